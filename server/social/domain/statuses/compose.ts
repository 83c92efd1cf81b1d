import { DetailsCollector, ValidationFailure } from '../../errors.ts';
import { LIMITS } from '../../limits.ts';
import { isListed, type Account, type MediaRow, type SocialStore } from '../../store/index.ts';
import { countableLength, formatPlainText, graphemeLength, isLanguageCode } from '../../text/index.ts';
import type { SocialUrls } from '../../urls.ts';
import type { Formatted, PollInput } from './inputs.ts';

/** Turning what a user typed into a status: formatting, mentions, hashtags, language, and the checks on text, poll and media. */
export class StatusComposer {
  private readonly d: { store: SocialStore; urls: SocialUrls };

  constructor(store: SocialStore, urls: SocialUrls) {
    this.d = { store, urls };
  }

  private resolveMention(username: string, domain: string | null): Account | null {
    const local =
      domain === null || domain === this.d.urls.domain.toLowerCase() || domain === this.d.urls.hostname.toLowerCase();
    const account = this.d.store.accounts.byHandle(username, local ? null : domain);
    if (!account || !isListed(account) || account.suspendedAt !== null) return null;
    return account;
  }

  profileUrl(account: Account): string {
    return (
      account.url ??
      (account.domain === null
        ? this.d.urls.profileUrl(account.username)
        : (account.uri ?? this.d.urls.profileUrl(account.username)))
    );
  }

  /** Text → HTML, with the accounts it mentions and the hashtags it uses. */
  format(text: string): Formatted {
    const mentioned = new Map<string, Account>();
    const tags = new Map<string, string>();
    const content = formatPlainText(text, {
      mentionUrl: (username, domain) => {
        const account = this.resolveMention(username, domain);
        if (!account) return null;
        mentioned.set(account.id, account);
        return this.profileUrl(account);
      },
      tagUrl: (name) => {
        if (!tags.has(name.toLowerCase())) tags.set(name.toLowerCase(), name);
        return this.d.urls.tagUrl(name.toLowerCase());
      },
    });
    return { content, mentioned: [...mentioned.values()], tags: [...tags.keys()] };
  }

  normalizeLanguage(language: string | null | undefined, fallback: string | null): string | null {
    if (language) {
      const code = language.trim().toLowerCase().split(/[-_]/)[0];
      if (isLanguageCode(code)) return code;
    }
    return fallback;
  }

  checkText(details: DetailsCollector, text: string, spoilerText: string, hasMediaOrPoll: boolean): void {
    if (text.trim() === '' && !hasMediaOrPoll) details.add('text', 'ERR_BLANK', "can't be blank");
    const length = countableLength(text, LIMITS.statuses.characters_reserved_per_url) + graphemeLength(spoilerText);
    if (length > LIMITS.statuses.max_characters)
      details.add('text', 'ERR_TOO_LONG', `character limit of ${LIMITS.statuses.max_characters} exceeded`);
  }

  checkPoll(details: DetailsCollector, poll: PollInput): void {
    const limits = LIMITS.polls;
    if (poll.options.length < 2) details.add('poll[options]', 'ERR_TOO_SHORT', 'must have at least 2 options');
    if (poll.options.length > limits.max_options)
      details.add('poll[options]', 'ERR_TOO_LONG', `cannot have more than ${limits.max_options} options`);
    if (poll.options.some((o) => o.trim() === ''))
      details.add('poll[options]', 'ERR_BLANK', 'cannot contain blank options');
    if (poll.options.some((o) => graphemeLength(o) > limits.max_characters_per_option))
      details.add(
        'poll[options]',
        'ERR_TOO_LONG',
        `cannot contain options longer than ${limits.max_characters_per_option} characters`,
      );
    if (new Set(poll.options.map((o) => o.trim())).size !== poll.options.length)
      details.add('poll[options]', 'ERR_TAKEN', 'cannot contain duplicate options');
    if (!Number.isFinite(poll.expiresIn) || poll.expiresIn < limits.min_expiration)
      details.add('poll[expires_in]', 'ERR_INVALID', `must be at least ${limits.min_expiration} seconds`);
    else if (poll.expiresIn > limits.max_expiration)
      details.add('poll[expires_in]', 'ERR_INVALID', `must be at most ${limits.max_expiration} seconds`);
  }

  /**
   * The attachments named by `ids`, checked: the author's own, processed, not attached elsewhere (those of
   * `allowAttachedTo` may stay), at most four, and no video or audio beside anything else.
   */
  checkMedia(
    details: DetailsCollector,
    author: Account,
    ids: readonly string[],
    allowAttachedTo: { statusId?: string; scheduledId?: string } = {},
  ): MediaRow[] {
    if (ids.length === 0) return [];
    if (ids.length > LIMITS.statuses.max_media_attachments) {
      details.add(
        'media_ids',
        'ERR_TOO_LONG',
        `cannot attach more than ${LIMITS.statuses.max_media_attachments} files`,
      );
      return [];
    }
    if (new Set(ids).size !== ids.length) details.add('media_ids', 'ERR_TAKEN', 'cannot contain the same file twice');
    const found = this.d.store.media.byIds(ids);
    const usable = found.filter(
      (m) =>
        m.accountId === author.id &&
        (m.statusId === null || m.statusId === allowAttachedTo.statusId) &&
        (m.scheduledStatusId === null || m.scheduledStatusId === allowAttachedTo.scheduledId),
    );
    const missing = ids.filter((id) => !usable.some((m) => m.id === id));
    if (missing.length)
      details.add('media_ids', 'ERR_INVALID', `media attachments not found or already used: ${missing.join(', ')}`);
    if (usable.some((m) => m.processing !== 'done')) {
      if (usable.some((m) => m.processing === 'failed'))
        details.add('media_ids', 'ERR_INVALID', 'contain a file that could not be processed');
      else
        details.add(
          'media_ids',
          'ERR_INVALID',
          'cannot attach files that have not finished processing, try again in a moment',
        );
    }
    if (usable.length > 1 && usable.some((m) => m.type === 'video' || m.type === 'gifv' || m.type === 'audio')) {
      details.add('media_ids', 'ERR_INVALID', 'cannot combine a video or audio file with other files');
    }
    return usable;
  }
}

/** 422 when a post mentions accounts outside `allowed_mentions` (the extra key lists them). */
export class UnexpectedMentions extends ValidationFailure {
  readonly accounts: Account[];
  constructor(accounts: Account[]) {
    super({ text: [{ error: 'ERR_INVALID', description: 'mentions accounts that were not allowed' }] });
    this.accounts = accounts;
  }
}
