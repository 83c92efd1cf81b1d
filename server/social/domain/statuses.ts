import type { Logger } from '../../logger.ts';
import { ApiError, DetailsCollector, notFound, ValidationFailure } from '../errors.ts';
import { LIMITS } from '../limits.ts';
import type { MediaStorage } from '../media/storage.ts';
import { isListed, type Account, type MediaRow, type QuotePolicy, type ScheduledParams, type ScheduledStatusRow, type SocialStore, type StatusRow, type User, type Visibility } from '../store/index.ts';
import { countableLength, formatPlainText, graphemeLength } from '../text/format.ts';
import { isLanguageCode } from '../text/languages.ts';
import type { SocialUrls } from '../urls.ts';
import type { NotificationService } from './notifications.ts';

/** A repeated Idempotency-Key within this window returns the first result. */
export const IDEMPOTENCY_WINDOW_MS = 60 * 60 * 1000;
/** A scheduled status must be at least this far in the future (Mastodon: 5 minutes). */
export const MIN_SCHEDULE_OFFSET_MS = 5 * 60 * 1000;
export const MAX_SCHEDULED_TOTAL = 300;
export const MAX_SCHEDULED_PER_DAY = 25;
export const MAX_ANCESTORS = 40;
export const MAX_DESCENDANTS = 4096;

export interface PollInput {
  options: string[];
  expiresIn: number;
  multiple?: boolean;
  hideTotals?: boolean;
}

export interface PostInput {
  text: string;
  spoilerText?: string;
  sensitive?: boolean;
  visibility?: Visibility;
  language?: string | null;
  inReplyToId?: string | null;
  mediaIds?: string[];
  poll?: PollInput | null;
  quoteApprovalPolicy?: QuotePolicy | null;
  /** ms since the epoch; makes a ScheduledStatus instead of a status. */
  scheduledAt?: number | null;
  idempotencyKey?: string | null;
  /** When given, mentioning anyone else is refused (422 with unexpected_accounts). */
  allowedMentions?: string[] | null;
}

export interface MediaAttributeInput {
  id: string;
  description?: string | null;
  focus?: { x: number; y: number } | null;
}

export interface EditInput {
  text: string;
  spoilerText?: string;
  sensitive?: boolean;
  language?: string | null;
  mediaIds?: string[];
  mediaAttributes?: MediaAttributeInput[];
  poll?: PollInput | null;
  quoteApprovalPolicy?: QuotePolicy | null;
}

export type PostResult = { kind: 'status'; status: StatusRow } | { kind: 'scheduled'; scheduled: ScheduledStatusRow };

/** Who posts: the account, its user (posting defaults) and the application of the token. */
export interface Poster {
  account: Account;
  user: User | null;
  applicationId: string | null;
}

interface Formatted {
  content: string;
  mentioned: Account[];
  tags: string[];
}

const ALLOWED_REBLOG_VISIBILITIES: readonly Visibility[] = ['public', 'unlisted', 'private'];

/**
 * Posting, editing, deleting and every action on statuses, with their effects: home feeds, direct
 * conversations, notifications, idempotency, scheduling. Routes call this; it throws ApiErrors.
 */
export class StatusService {
  private readonly store: SocialStore;
  private readonly urls: SocialUrls;
  private readonly notifications: NotificationService;
  private readonly media: MediaStorage;
  private readonly logger: Logger;
  /** Called when a poll or scheduled status is created, so the job timer can look again. */
  onScheduleChange: () => void = () => {};

  constructor(store: SocialStore, urls: SocialUrls, notifications: NotificationService, media: MediaStorage, logger: Logger) {
    this.store = store;
    this.urls = urls;
    this.notifications = notifications;
    this.media = media;
    this.logger = logger;
  }

  // ---- reading

  /** The status if `viewer` may read it; 404 otherwise (deleted, private, blocked, unknown). */
  readable(viewer: Account | null, id: string): StatusRow {
    const status = this.store.timelines.readable(viewer?.id ?? null, id);
    if (!status) throw notFound();
    return status;
  }

  /** The status an action applies to: a reblog wrapper stands for the status it reblogs. */
  actionTarget(viewer: Account, id: string): StatusRow {
    const status = this.readable(viewer, id);
    return status.reblogOfId ? this.readable(viewer, status.reblogOfId) : status;
  }

  /** Ancestors (oldest first) and descendants (depth first, in reply order) the viewer may read. */
  context(viewer: Account | null, status: StatusRow): { ancestors: StatusRow[]; descendants: StatusRow[] } {
    const scope = this.store.timelines.scope(viewer?.id ?? null);
    const ancestorIds = this.store.timelines.ancestorIds(status.id, MAX_ANCESTORS);
    const below = this.store.timelines.descendantRows(status.id, MAX_DESCENDANTS);
    const readable = this.store.timelines.readableIds(scope, [...ancestorIds, ...below.map((d) => d.id)]);
    const ancestors = this.store.statuses.byIds(ancestorIds.filter((id) => readable.has(id)).reverse());
    // Depth first: each reply followed by its own replies, siblings oldest first; unreadable ones cut their branch.
    const children = new Map<string, string[]>();
    for (const d of below) {
      const list = children.get(d.parentId) ?? [];
      list.push(d.id);
      children.set(d.parentId, list);
    }
    const order: string[] = [];
    const walk = (id: string) => {
      for (const child of children.get(id) ?? []) {
        if (!readable.has(child)) continue;
        order.push(child);
        walk(child);
      }
    };
    walk(status.id);
    return { ancestors, descendants: this.store.statuses.byIds(order) };
  }

  // ---- posting

  private resolveMention(username: string, domain: string | null): Account | null {
    const local = domain === null || domain === this.urls.domain.toLowerCase() || domain === this.urls.hostname.toLowerCase();
    const account = this.store.accounts.byHandle(username, local ? null : domain);
    if (!account || !isListed(account) || account.suspendedAt !== null) return null;
    return account;
  }

  profileUrl(account: Account): string {
    return account.url ?? (account.domain === null ? this.urls.profileUrl(account.username) : (account.uri ?? this.urls.profileUrl(account.username)));
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
        return this.urls.tagUrl(name.toLowerCase());
      },
    });
    return { content, mentioned: [...mentioned.values()], tags: [...tags.keys()] };
  }

  private normalizeLanguage(language: string | null | undefined, fallback: string | null): string | null {
    if (language) {
      const code = language.trim().toLowerCase().split(/[-_]/)[0];
      if (isLanguageCode(code)) return code;
    }
    return fallback;
  }

  private checkText(details: DetailsCollector, text: string, spoilerText: string, hasMediaOrPoll: boolean): void {
    if (text.trim() === '' && !hasMediaOrPoll) details.add('text', 'ERR_BLANK', "can't be blank");
    const length = countableLength(text, LIMITS.statuses.characters_reserved_per_url) + graphemeLength(spoilerText);
    if (length > LIMITS.statuses.max_characters) details.add('text', 'ERR_TOO_LONG', `character limit of ${LIMITS.statuses.max_characters} exceeded`);
  }

  private checkPoll(details: DetailsCollector, poll: PollInput): void {
    const limits = LIMITS.polls;
    if (poll.options.length < 2) details.add('poll[options]', 'ERR_TOO_SHORT', 'must have at least 2 options');
    if (poll.options.length > limits.max_options) details.add('poll[options]', 'ERR_TOO_LONG', `cannot have more than ${limits.max_options} options`);
    if (poll.options.some((o) => o.trim() === '')) details.add('poll[options]', 'ERR_BLANK', 'cannot contain blank options');
    if (poll.options.some((o) => graphemeLength(o) > limits.max_characters_per_option)) details.add('poll[options]', 'ERR_TOO_LONG', `cannot contain options longer than ${limits.max_characters_per_option} characters`);
    if (new Set(poll.options.map((o) => o.trim())).size !== poll.options.length) details.add('poll[options]', 'ERR_TAKEN', 'cannot contain duplicate options');
    if (!Number.isFinite(poll.expiresIn) || poll.expiresIn < limits.min_expiration) details.add('poll[expires_in]', 'ERR_INVALID', `must be at least ${limits.min_expiration} seconds`);
    else if (poll.expiresIn > limits.max_expiration) details.add('poll[expires_in]', 'ERR_INVALID', `must be at most ${limits.max_expiration} seconds`);
  }

  /**
   * The attachments named by `ids`, checked: the author's own, processed, not attached elsewhere (those of
   * `allowAttachedTo` may stay), at most four, and no video or audio beside anything else.
   */
  private checkMedia(details: DetailsCollector, author: Account, ids: readonly string[], allowAttachedTo: { statusId?: string; scheduledId?: string } = {}): MediaRow[] {
    if (ids.length === 0) return [];
    if (ids.length > LIMITS.statuses.max_media_attachments) {
      details.add('media_ids', 'ERR_TOO_LONG', `cannot attach more than ${LIMITS.statuses.max_media_attachments} files`);
      return [];
    }
    if (new Set(ids).size !== ids.length) details.add('media_ids', 'ERR_TAKEN', 'cannot contain the same file twice');
    const found = this.store.media.byIds(ids);
    const usable = found.filter(
      (m) =>
        m.accountId === author.id &&
        (m.statusId === null || m.statusId === allowAttachedTo.statusId) &&
        (m.scheduledStatusId === null || m.scheduledStatusId === allowAttachedTo.scheduledId),
    );
    const missing = ids.filter((id) => !usable.some((m) => m.id === id));
    if (missing.length) details.add('media_ids', 'ERR_INVALID', `media attachments not found or already used: ${missing.join(', ')}`);
    if (usable.some((m) => m.processing !== 'done')) {
      if (usable.some((m) => m.processing === 'failed')) details.add('media_ids', 'ERR_INVALID', 'contain a file that could not be processed');
      else details.add('media_ids', 'ERR_INVALID', 'cannot attach files that have not finished processing, try again in a moment');
    }
    if (usable.length > 1 && usable.some((m) => m.type === 'video' || m.type === 'gifv' || m.type === 'audio')) {
      details.add('media_ids', 'ERR_INVALID', 'cannot combine a video or audio file with other files');
    }
    return usable;
  }

  /** Posts a status, or schedules it when `scheduledAt` is given. Idempotent per Idempotency-Key for an hour. */
  post(poster: Poster, input: PostInput): PostResult {
    const { account: author, user } = poster;
    if (input.idempotencyKey) {
      const seen = this.store.statuses.idempotent(author.id, input.idempotencyKey, IDEMPOTENCY_WINDOW_MS);
      if (seen?.statusId) {
        const status = this.store.statuses.byId(seen.statusId);
        if (status && status.deletedAt === null) return { kind: 'status', status };
      }
      if (seen?.scheduledStatusId) {
        const scheduled = this.store.scheduled.byId(seen.scheduledStatusId);
        if (scheduled) return { kind: 'scheduled', scheduled };
      }
    }
    const settings = user?.settings ?? {};
    const visibility = input.visibility ?? settings.defaultPrivacy ?? 'public';
    const spoilerText = input.spoilerText ?? '';
    const details = new DetailsCollector();
    const mediaIds = input.mediaIds ?? [];
    this.checkText(details, input.text, spoilerText, mediaIds.length > 0 || !!input.poll);
    if (input.poll) {
      this.checkPoll(details, input.poll);
      if (mediaIds.length) details.add('poll', 'ERR_INVALID', 'cannot be combined with media attachments');
    }
    this.checkMedia(details, author, mediaIds);
    if (input.scheduledAt !== undefined && input.scheduledAt !== null) {
      const now = this.store.now();
      if (input.scheduledAt < now + MIN_SCHEDULE_OFFSET_MS) details.add('scheduled_at', 'ERR_INVALID', 'must be at least 5 minutes in the future');
      else {
        const counts = this.store.scheduled.counts(author.id, input.scheduledAt);
        if (counts.total >= MAX_SCHEDULED_TOTAL) details.add('scheduled_at', 'ERR_TOO_LONG', `you cannot schedule more than ${MAX_SCHEDULED_TOTAL} posts`);
        else if (counts.sameDay >= MAX_SCHEDULED_PER_DAY) details.add('scheduled_at', 'ERR_TOO_LONG', `you cannot schedule more than ${MAX_SCHEDULED_PER_DAY} posts on the same day`);
      }
    }
    details.throwIfAny();
    const thread = input.inReplyToId ? this.replyTarget(author, input.inReplyToId) : null;
    const formatted = this.format(input.text);
    if (input.allowedMentions) {
      const allowed = new Set(input.allowedMentions);
      const unexpected = formatted.mentioned.filter((a) => !allowed.has(a.id));
      if (unexpected.length) throw new UnexpectedMentions(unexpected);
    }
    const language = this.normalizeLanguage(input.language, settings.defaultLanguage ?? null);
    const quotePolicy: QuotePolicy = visibility === 'private' || visibility === 'direct' ? 'nobody' : (input.quoteApprovalPolicy ?? settings.defaultQuotePolicy ?? 'public');

    if (input.scheduledAt !== undefined && input.scheduledAt !== null) {
      const params: ScheduledParams = {
        text: input.text,
        spoilerText: input.spoilerText ?? null,
        sensitive: input.sensitive ?? null,
        visibility,
        language,
        inReplyToId: thread?.id ?? null,
        mediaIds: mediaIds.length ? mediaIds : null,
        poll: input.poll ? { options: input.poll.options, expiresIn: input.poll.expiresIn, multiple: input.poll.multiple ?? false, hideTotals: input.poll.hideTotals ?? false } : null,
        quoteApprovalPolicy: input.quoteApprovalPolicy ?? null,
        idempotency: input.idempotencyKey ?? null,
        allowedMentions: input.allowedMentions ?? null,
      };
      const scheduledAt = input.scheduledAt;
      const id = this.store.transaction(() => {
        const id = this.store.scheduled.insert({ accountId: author.id, applicationId: poster.applicationId, scheduledAt, params });
        this.store.media.attachToScheduled(id, mediaIds);
        if (input.idempotencyKey) this.store.statuses.rememberIdempotencyKey(author.id, input.idempotencyKey, { scheduledStatusId: id });
        return id;
      });
      this.onScheduleChange();
      return { kind: 'scheduled', scheduled: this.store.scheduled.byId(id)! };
    }

    const sensitive = (input.sensitive ?? settings.defaultSensitive ?? false) || spoilerText.trim() !== '';
    const status = this.store.transaction(() =>
      this.publish(poster, {
        text: input.text,
        formatted,
        spoilerText,
        sensitive,
        visibility,
        language,
        thread,
        mediaIds,
        poll: input.poll ?? null,
        quotePolicy,
        idempotencyKey: input.idempotencyKey ?? null,
      }),
    );
    if (input.poll) this.onScheduleChange();
    return { kind: 'status', status };
  }

  /** The status being replied to: it must be readable by the author (a reblog stands for its original). */
  private replyTarget(author: Account, id: string): StatusRow {
    const thread = this.store.timelines.readable(author.id, id);
    const target = thread?.reblogOfId ? this.store.timelines.readable(author.id, thread.reblogOfId) : thread;
    if (!target) throw new ApiError(404, 'The post you are trying to reply to does not appear to exist.');
    return target;
  }

  /** Creates a status and everything that follows from it; runs inside a transaction. */
  private publish(
    poster: Poster,
    p: {
      text: string;
      formatted: Formatted;
      spoilerText: string;
      sensitive: boolean;
      visibility: Visibility;
      language: string | null;
      thread: StatusRow | null;
      mediaIds: string[];
      poll: PollInput | null;
      quotePolicy: QuotePolicy;
      idempotencyKey: string | null;
      createdAt?: number;
    },
  ): StatusRow {
    const author = poster.account;
    const conversationId = p.thread?.conversationId ?? this.store.statuses.newConversation();
    const pollId = p.poll
      ? this.store.polls.insert({
          accountId: author.id,
          statusId: null,
          options: p.poll.options.map((o) => o.trim()),
          multiple: p.poll.multiple ?? false,
          hideTotals: p.poll.hideTotals ?? false,
          expiresAt: this.store.now() + p.poll.expiresIn * 1000,
        })
      : null;
    const id = this.store.statuses.insert({
      accountId: author.id,
      local: true,
      inReplyToId: p.thread?.id ?? null,
      inReplyToAccountId: p.thread?.accountId ?? null,
      conversationId,
      quoteApprovalPolicy: p.quotePolicy,
      text: p.text,
      content: p.formatted.content,
      spoilerText: p.spoilerText,
      visibility: p.visibility,
      sensitive: p.sensitive,
      language: p.language,
      applicationId: poster.applicationId,
      pollId,
    });
    if (pollId) this.store.polls.setStatus(pollId, id);
    const mentionedIds = p.formatted.mentioned.map((a) => a.id);
    this.store.statuses.insertMentions(id, mentionedIds);
    this.store.statuses.setTags(id, p.formatted.tags);
    this.store.media.attach(id, p.mediaIds);
    const status = this.store.statuses.byId(id)!;
    const localMentioned = p.formatted.mentioned.filter((a) => a.domain === null && a.id !== author.id);
    const receivers = this.store.feeds.distribute({
      statusId: id,
      authorId: author.id,
      reblogOfId: null,
      inReplyToAccountId: status.inReplyToAccountId,
      isReply: status.inReplyToId !== null,
      language: status.language,
      toFollowers: p.visibility !== 'direct',
      mentionedIds: localMentioned.map((a) => a.id),
    });
    if (p.visibility === 'direct') {
      const participants = [author.id, ...mentionedIds.filter((m) => m !== author.id)];
      for (const accountId of participants) {
        const account = accountId === author.id ? author : p.formatted.mentioned.find((a) => a.id === accountId)!;
        if (account.domain !== null) continue;
        this.store.conversations.touch(
          accountId,
          conversationId,
          participants.filter((x) => x !== accountId),
          id,
          accountId !== author.id,
        );
      }
    }
    for (const mentioned of localMentioned) this.notifications.notify(mentioned.id, author.id, 'mention', id);
    // "Notify me" subscriptions: followers who asked to hear of new posts (not of replies to others).
    const selfThread = status.inReplyToId === null || status.inReplyToAccountId === author.id;
    if (p.visibility !== 'direct' && selfThread && receivers.length) {
      const mentionedSet = new Set(mentionedIds);
      for (const followerId of receivers) {
        if (mentionedSet.has(followerId)) continue;
        const follow = this.store.relationships.follow(followerId, author.id);
        if (follow?.notify) this.notifications.notify(followerId, author.id, 'status', id);
      }
    }
    if (p.idempotencyKey) this.store.statuses.rememberIdempotencyKey(author.id, p.idempotencyKey, { statusId: id });
    this.store.events.emit('status.created', { status, homeRecipients: receivers });
    return status;
  }

  /** Publishes a scheduled status that is due, with every normal effect; false when it could not be published. */
  publishScheduled(scheduled: ScheduledStatusRow): StatusRow | null {
    const account = this.store.accounts.byId(scheduled.accountId);
    if (!account || account.suspendedAt !== null || account.deletedAt !== null) {
      this.store.scheduled.delete(scheduled.id);
      return null;
    }
    const user = this.store.users.byAccountId(account.id);
    const params = scheduled.params;
    // A reply whose parent went away is published as a new thread (as Mastodon does).
    const thread = params.inReplyToId ? (this.store.timelines.readable(account.id, params.inReplyToId) ?? null) : null;
    const mediaIds = (params.mediaIds ?? []).filter((id) => {
      const m = this.store.media.byId(id);
      return m !== null && m.accountId === account.id && m.statusId === null && m.processing === 'done';
    });
    const spoilerText = params.spoilerText ?? '';
    const sensitive = (params.sensitive ?? user?.settings.defaultSensitive ?? false) || spoilerText.trim() !== '';
    const status = this.store.transaction(() => {
      if (!this.store.scheduled.delete(scheduled.id)) return null; // published by someone else meanwhile
      return this.publish(
        { account, user, applicationId: scheduled.applicationId },
        {
          text: params.text,
          formatted: this.format(params.text),
          spoilerText,
          sensitive,
          visibility: params.visibility,
          language: params.language,
          thread,
          mediaIds,
          poll: params.poll,
          quotePolicy: params.visibility === 'private' || params.visibility === 'direct' ? 'nobody' : (params.quoteApprovalPolicy ?? 'public'),
          idempotencyKey: params.idempotency,
        },
      );
    });
    if (status) this.logger.info({ statusId: status.id, scheduledStatusId: scheduled.id }, 'scheduled status published');
    return status;
  }

  // ---- editing

  edit(author: Account, statusId: string, input: EditInput): StatusRow {
    const status = this.readable(author, statusId);
    if (status.accountId !== author.id || status.reblogOfId !== null) throw notFound();
    const details = new DetailsCollector();
    const spoilerText = input.spoilerText ?? '';
    const mediaIds = input.mediaIds ?? [];
    this.checkText(details, input.text, spoilerText, mediaIds.length > 0 || !!input.poll);
    if (input.poll) {
      this.checkPoll(details, input.poll);
      if (mediaIds.length) details.add('poll', 'ERR_INVALID', 'cannot be combined with media attachments');
    }
    this.checkMedia(details, author, mediaIds, { statusId: status.id });
    for (const attr of input.mediaAttributes ?? []) {
      if (!mediaIds.includes(attr.id)) details.add('media_attributes', 'ERR_INVALID', `refer to media ${attr.id} that the post does not keep`);
      if (attr.description && graphemeLength(attr.description) > LIMITS.media_attachments.description_limit) {
        details.add('media_attributes', 'ERR_TOO_LONG', `description is too long (maximum is ${LIMITS.media_attachments.description_limit} characters)`);
      }
    }
    details.throwIfAny();
    const formatted = this.format(input.text);
    const sensitive = (input.sensitive ?? status.sensitive) || spoilerText.trim() !== '';
    const language = input.language === undefined ? status.language : this.normalizeLanguage(input.language, status.language);
    const oldMedia = this.store.media.forStatuses([status.id]).get(status.id) ?? [];
    const oldPoll = status.pollId ? this.store.polls.byId(status.pollId) : null;
    const mediaChanged = oldMedia.map((m) => m.id).join() !== mediaIds.join() || (input.mediaAttributes ?? []).length > 0;
    const pollChanged =
      (oldPoll === null) !== !input.poll ||
      (oldPoll !== null && input.poll !== null && input.poll !== undefined && (oldPoll.options.join('\u0000') !== input.poll.options.map((o) => o.trim()).join('\u0000') || oldPoll.multiple !== (input.poll.multiple ?? false)));
    const changed = input.text !== status.text || spoilerText !== status.spoilerText || sensitive !== status.sensitive || language !== status.language || mediaChanged || pollChanged;
    if (!changed) return status;

    const newlyMentioned = this.store.transaction(() => {
      const now = this.store.now();
      if (this.store.statuses.edits(status.id).length === 0) {
        // The first edit keeps the original as the first entry of the history.
        this.store.statuses.insertEdit({
          statusId: status.id,
          accountId: author.id,
          text: status.text,
          content: status.content,
          spoilerText: status.spoilerText,
          sensitive: status.sensitive,
          mediaAttachmentIds: oldMedia.map((m) => m.id),
          mediaDescriptions: oldMedia.map((m) => m.description),
          pollOptions: oldPoll?.options ?? null,
          createdAt: status.createdAt,
        });
      }
      let pollId = status.pollId;
      if (pollChanged) {
        if (oldPoll) this.store.polls.delete(oldPoll.id);
        pollId = input.poll
          ? this.store.polls.insert({
              accountId: author.id,
              statusId: status.id,
              options: input.poll.options.map((o) => o.trim()),
              multiple: input.poll.multiple ?? false,
              hideTotals: input.poll.hideTotals ?? false,
              expiresAt: now + input.poll.expiresIn * 1000,
            })
          : null;
      }
      for (const attr of input.mediaAttributes ?? []) {
        const current = this.store.media.byId(attr.id);
        this.store.media.update(attr.id, {
          description: attr.description === undefined ? undefined : attr.description,
          meta: attr.focus === undefined || !current ? undefined : { ...current.meta, focus: attr.focus ?? undefined },
        });
      }
      this.store.media.detachOthers(status.id, mediaIds);
      this.store.media.attach(status.id, mediaIds);
      this.store.statuses.updateContent(status.id, { text: input.text, content: formatted.content, spoilerText, sensitive, language, pollId, editedAt: now });
      const newly = this.store.statuses.replaceMentions(
        status.id,
        formatted.mentioned.map((a) => a.id),
      );
      this.store.statuses.setTags(status.id, formatted.tags);
      const media = this.store.media.byIds(mediaIds);
      this.store.statuses.insertEdit({
        statusId: status.id,
        accountId: author.id,
        text: input.text,
        content: formatted.content,
        spoilerText,
        sensitive,
        mediaAttachmentIds: mediaIds,
        mediaDescriptions: media.map((m) => m.description),
        pollOptions: input.poll ? input.poll.options.map((o) => o.trim()) : null,
        createdAt: now,
      });
      for (const accountId of this.store.interactions.localRebloggers(status.id)) this.notifications.notify(accountId, author.id, 'update', status.id);
      this.store.events.emit('status.updated', { status: this.store.statuses.byId(status.id)! });
      return newly;
    });
    for (const accountId of newlyMentioned) {
      const account = this.store.accounts.byId(accountId);
      if (account && account.domain === null) this.notifications.notify(accountId, author.id, 'mention', status.id);
    }
    if (pollChanged && input.poll) this.onScheduleChange();
    return this.store.statuses.byId(status.id)!;
  }

  // ---- deleting

  /**
   * Deletes an own status (with its reblogs, notifications, feed entries, pins and bookmarks). Its media
   * are kept unattached for a redraft unless `deleteMedia`.
   */
  async delete(author: Account, status: StatusRow, deleteMedia: boolean): Promise<void> {
    if (status.accountId !== author.id) throw notFound();
    const doomedFiles: MediaRow[] = [];
    this.store.transaction(() => {
      const reblogs = this.store.statuses.reblogsOf(status.id);
      for (const s of [status, ...reblogs]) this.store.statuses.markDeleted(s);
      const ids = [status.id, ...reblogs.map((r) => r.id)];
      this.store.feeds.remove(ids);
      this.store.notifications.deleteForStatuses(ids);
      this.store.interactions.forgetStatuses(ids);
      if (status.visibility === 'direct') this.store.conversations.forgetStatus(status.id);
      for (const s of [status, ...reblogs]) this.store.events.emit('status.deleted', { status: s, homeRecipients: [] });
      const media = this.store.media.forStatuses([status.id]).get(status.id) ?? [];
      if (deleteMedia) {
        for (const m of media) this.store.media.delete(m.id);
        doomedFiles.push(...media);
      } else {
        this.store.media.detachFromStatus(status.id);
      }
    });
    for (const m of doomedFiles) {
      for (const file of [m.filePath, m.previewPath, m.thumbnailPath]) await this.media.remove(file).catch((err) => this.logger.warn({ err, file }, 'could not remove a media file'));
    }
  }

  // ---- reblogs, favourites, bookmarks, pins, conversation mutes

  reblog(me: Poster, statusId: string, visibility: Visibility | undefined): StatusRow {
    const original = this.actionTarget(me.account, statusId);
    if (original.visibility === 'direct' || (original.visibility === 'private' && original.accountId !== me.account.id)) {
      throw ValidationFailure.single('reblog', 'ERR_INVALID', 'of a private or direct post is not allowed');
    }
    if (visibility !== undefined && !ALLOWED_REBLOG_VISIBILITIES.includes(visibility)) throw ValidationFailure.single('visibility', 'ERR_INCLUSION', 'is not included in the list (public, unlisted, private)');
    const existing = this.store.statuses.reblogBy(me.account.id, original.id);
    if (existing) return existing;
    const fallback = me.user?.settings.defaultPrivacy;
    const chosen: Visibility = original.visibility === 'private' ? 'private' : (visibility ?? (fallback && fallback !== 'direct' ? fallback : 'public'));
    return this.store.transaction(() => {
      const id = this.store.statuses.insert({ accountId: me.account.id, local: true, reblogOfId: original.id, visibility: chosen, applicationId: me.applicationId });
      this.store.feeds.distribute({
        statusId: id,
        authorId: me.account.id,
        reblogOfId: original.id,
        inReplyToAccountId: null,
        isReply: false,
        language: original.language,
        toFollowers: true,
        mentionedIds: [],
      });
      this.notifications.notify(original.accountId, me.account.id, 'reblog', original.id);
      return this.store.statuses.byId(id)!;
    });
  }

  /** Undoes a reblog; returns the reblogged status. */
  unreblog(me: Account, statusId: string): StatusRow {
    const original = this.actionTarget(me, statusId);
    const reblog = this.store.statuses.reblogBy(me.id, original.id);
    if (reblog) {
      this.store.transaction(() => {
        this.store.statuses.markDeleted(reblog);
        this.store.feeds.remove([reblog.id]);
        this.store.notifications.deleteFor(me.id, 'reblog', original.id);
      });
    }
    return original;
  }

  favourite(me: Account, statusId: string): StatusRow {
    const status = this.actionTarget(me, statusId);
    this.store.transaction(() => {
      if (this.store.interactions.favourite(me.id, status.id)) this.notifications.notify(status.accountId, me.id, 'favourite', status.id);
    });
    return status;
  }

  unfavourite(me: Account, statusId: string): StatusRow {
    const status = this.actionTarget(me, statusId);
    this.store.transaction(() => {
      if (this.store.interactions.unfavourite(me.id, status.id)) this.store.notifications.deleteFor(me.id, 'favourite', status.id);
    });
    return status;
  }

  bookmark(me: Account, statusId: string, on: boolean): StatusRow {
    const status = this.actionTarget(me, statusId);
    if (on) this.store.interactions.bookmark(me.id, status.id);
    else this.store.interactions.unbookmark(me.id, status.id);
    return status;
  }

  pin(me: Account, statusId: string): StatusRow {
    const status = this.readable(me, statusId);
    if (status.reblogOfId !== null) throw ValidationFailure.single('status', 'ERR_INVALID', 'a reblog cannot be pinned');
    if (status.accountId !== me.id) throw ValidationFailure.single('status', 'ERR_INVALID', "someone else's post cannot be pinned");
    if (status.visibility === 'direct') throw ValidationFailure.single('status', 'ERR_INVALID', 'posts that are only visible to mentioned users cannot be pinned');
    this.store.transaction(() => {
      if (this.store.interactions.pinCount(me.id) >= LIMITS.accounts.max_pinned_statuses && !this.store.interactions.flags(me.id, [status.id], []).pinned.has(status.id)) {
        throw ValidationFailure.single('status', 'ERR_TOO_LONG', `you have already pinned the maximum number of posts (${LIMITS.accounts.max_pinned_statuses})`);
      }
      this.store.interactions.pin(me.id, status.id);
    });
    return status;
  }

  unpin(me: Account, statusId: string): StatusRow {
    const status = this.readable(me, statusId);
    this.store.interactions.unpin(me.id, status.id);
    return status;
  }

  muteConversation(me: Account, statusId: string, mute: boolean): StatusRow {
    const status = this.actionTarget(me, statusId);
    if (status.conversationId === null) throw ValidationFailure.single('status', 'ERR_INVALID', 'is not part of a conversation that can be muted');
    if (mute) this.store.interactions.muteConversation(me.id, status.conversationId);
    else this.store.interactions.unmuteConversation(me.id, status.conversationId);
    return status;
  }
}

/** 422 when a post mentions accounts outside `allowed_mentions` (the extra key lists them). */
export class UnexpectedMentions extends ApiError {
  readonly accounts: Account[];
  constructor(accounts: Account[]) {
    super(422, 'Validation failed: Text mentions accounts that were not allowed', { details: { text: [{ error: 'ERR_INVALID', description: 'mentions accounts that were not allowed' }] } });
    this.accounts = accounts;
  }
}
