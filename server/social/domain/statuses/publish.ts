import { DetailsCollector } from '../../errors.ts';
import type { QuotePolicy, ScheduledParams, ScheduledStatusRow, StatusRow, Visibility } from '../../store/index.ts';
import { UnexpectedMentions } from './compose.ts';
import type { StatusDeps } from './deps.ts';
import {
  IDEMPOTENCY_WINDOW_MS,
  MAX_SCHEDULED_PER_DAY,
  MAX_SCHEDULED_TOTAL,
  MIN_SCHEDULE_OFFSET_MS,
  type Formatted,
  type PollInput,
  type Poster,
  type PostInput,
  type PostResult,
} from './inputs.ts';
import { recordDirectMessage } from '../conversations.ts';

/** Posting now or later: checks, idempotency, scheduling, and publishing with its fan-out (feeds, conversations, notifications, events). */
export class StatusPublisher {
  private readonly d: StatusDeps;

  constructor(deps: StatusDeps) {
    this.d = deps;
  }

  /** Posts a status, or schedules it when `scheduledAt` is given. Idempotent per Idempotency-Key for an hour. */
  post(poster: Poster, input: PostInput): PostResult {
    const { account: author, user } = poster;
    if (input.idempotencyKey) {
      const seen = this.d.store.idempotencyKeys.lookup(author.id, input.idempotencyKey, IDEMPOTENCY_WINDOW_MS);
      if (seen?.statusId) {
        const status = this.d.store.statuses.byId(seen.statusId);
        if (status && status.deletedAt === null) return { kind: 'status', status };
      }
      if (seen?.scheduledStatusId) {
        const scheduled = this.d.store.scheduled.byId(seen.scheduledStatusId);
        if (scheduled) return { kind: 'scheduled', scheduled };
      }
    }
    const settings = user?.settings ?? {};
    const visibility = input.visibility ?? settings.defaultPrivacy ?? 'public';
    const spoilerText = input.spoilerText ?? '';
    const details = new DetailsCollector();
    const mediaIds = input.mediaIds ?? [];
    this.d.composer.checkText(details, input.text, spoilerText, mediaIds.length > 0 || !!input.poll);
    if (input.poll) {
      this.d.composer.checkPoll(details, input.poll);
      if (mediaIds.length) details.add('poll', 'ERR_INVALID', 'cannot be combined with media attachments');
    }
    this.d.composer.checkMedia(details, author, mediaIds);
    if (input.scheduledAt !== undefined && input.scheduledAt !== null) {
      const now = this.d.store.now();
      if (input.scheduledAt < now + MIN_SCHEDULE_OFFSET_MS)
        details.add('scheduled_at', 'ERR_INVALID', 'must be at least 5 minutes in the future');
      else {
        const counts = this.d.store.scheduled.counts(author.id, input.scheduledAt);
        if (counts.total >= MAX_SCHEDULED_TOTAL)
          details.add('scheduled_at', 'ERR_TOO_LONG', `you cannot schedule more than ${MAX_SCHEDULED_TOTAL} posts`);
        else if (counts.sameDay >= MAX_SCHEDULED_PER_DAY)
          details.add(
            'scheduled_at',
            'ERR_TOO_LONG',
            `you cannot schedule more than ${MAX_SCHEDULED_PER_DAY} posts on the same day`,
          );
      }
    }
    details.throwIfAny();
    const thread = input.inReplyToId ? this.d.reader.replyTarget(author, input.inReplyToId) : null;
    const quoted = input.quotedStatusId ? this.d.reader.quoteTarget(author, input.quotedStatusId) : null;
    const formatted = this.d.composer.format(input.text);
    if (input.allowedMentions) {
      const allowed = new Set(input.allowedMentions);
      const unexpected = formatted.mentioned.filter((a) => !allowed.has(a.id));
      if (unexpected.length) throw new UnexpectedMentions(unexpected);
    }
    const language = this.d.composer.normalizeLanguage(input.language, settings.defaultLanguage ?? null);
    const quotePolicy: QuotePolicy =
      visibility === 'private' || visibility === 'direct'
        ? 'nobody'
        : (input.quoteApprovalPolicy ?? settings.defaultQuotePolicy ?? 'public');

    if (input.scheduledAt !== undefined && input.scheduledAt !== null) {
      const params: ScheduledParams = {
        text: input.text,
        spoilerText: input.spoilerText ?? null,
        sensitive: input.sensitive ?? null,
        visibility,
        language,
        inReplyToId: thread?.id ?? null,
        mediaIds: mediaIds.length ? mediaIds : null,
        poll: input.poll
          ? {
              options: input.poll.options,
              expiresIn: input.poll.expiresIn,
              multiple: input.poll.multiple ?? false,
              hideTotals: input.poll.hideTotals ?? false,
            }
          : null,
        quoteApprovalPolicy: input.quoteApprovalPolicy ?? null,
        quotedStatusId: quoted?.id ?? null,
        idempotency: input.idempotencyKey ?? null,
        allowedMentions: input.allowedMentions ?? null,
      };
      const scheduledAt = input.scheduledAt;
      const id = this.d.store.transaction(() => {
        const id = this.d.store.scheduled.insert({
          accountId: author.id,
          applicationId: poster.applicationId,
          scheduledAt,
          params,
        });
        this.d.store.media.attachToScheduled(id, mediaIds);
        if (input.idempotencyKey)
          this.d.store.idempotencyKeys.remember(author.id, input.idempotencyKey, { scheduledStatusId: id });
        return id;
      });
      this.d.scheduleChanged();
      return { kind: 'scheduled', scheduled: this.d.store.scheduled.byId(id)! };
    }

    const sensitive = (input.sensitive ?? settings.defaultSensitive ?? false) || spoilerText.trim() !== '';
    const status = this.d.store.transaction(() =>
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
        quoted,
        idempotencyKey: input.idempotencyKey ?? null,
      }),
    );
    if (input.poll) this.d.scheduleChanged();
    return { kind: 'status', status };
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
      /** The status quoted, already checked (quoteTarget). */
      quoted?: StatusRow | null;
      idempotencyKey: string | null;
      createdAt?: number;
    },
  ): StatusRow {
    const author = poster.account;
    const conversationId = p.thread?.conversationId ?? this.d.store.statuses.newConversation();
    const pollId = p.poll
      ? this.d.store.polls.insert({
          accountId: author.id,
          statusId: null,
          options: p.poll.options.map((o) => o.trim()),
          multiple: p.poll.multiple ?? false,
          hideTotals: p.poll.hideTotals ?? false,
          expiresAt: this.d.store.now() + p.poll.expiresIn * 1000,
        })
      : null;
    const id = this.d.store.statuses.insert({
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
    if (pollId) this.d.store.polls.setStatus(pollId, id);
    if (p.quoted) {
      // A remote author is asked first (FEP-044f QuoteRequest, sent by the federation): pending until answered.
      this.d.store.quotes.insert(id, p.quoted.id, p.quoted.accountId, p.quoted.local ? 'accepted' : 'pending');
      if (p.quoted.accountId !== author.id) this.d.notifications.notify(p.quoted.accountId, author.id, 'quote', id);
    }
    const mentionedIds = p.formatted.mentioned.map((a) => a.id);
    this.d.store.statuses.insertMentions(id, mentionedIds);
    this.d.store.statuses.addTags(id, p.formatted.tags);
    this.d.store.media.attach(id, p.mediaIds);
    const status = this.d.store.statuses.byId(id)!;
    const localMentioned = p.formatted.mentioned.filter((a) => a.domain === null && a.id !== author.id);
    const { receivers, notifying } = this.d.store.feeds.distribute({
      statusId: id,
      authorId: author.id,
      reblogOfId: null,
      inReplyToAccountId: status.inReplyToAccountId,
      isReply: status.inReplyToId !== null,
      language: status.language,
      toFollowers: p.visibility !== 'direct',
      mentionedIds: localMentioned.map((a) => a.id),
    });
    if (p.visibility === 'direct')
      recordDirectMessage(this.d.store, {
        statusId: id,
        conversationId,
        author,
        mentioned: p.formatted.mentioned,
      });
    for (const mentioned of localMentioned) this.d.notifications.notify(mentioned.id, author.id, 'mention', id);
    // "Notify me" subscriptions: followers who asked to hear of new posts (not of replies to others).
    const selfThread = status.inReplyToId === null || status.inReplyToAccountId === author.id;
    if (p.visibility !== 'direct' && selfThread && notifying.length) {
      const mentionedSet = new Set(mentionedIds);
      for (const followerId of notifying)
        if (!mentionedSet.has(followerId)) this.d.notifications.notify(followerId, author.id, 'status', id);
    }
    if (p.idempotencyKey) this.d.store.idempotencyKeys.remember(author.id, p.idempotencyKey, { statusId: id });
    // The author's own feed holds it too (and their user stream shows it).
    // Followers of its hashtags get a public status in home too (after the follower fan-out, so none twice).
    const tagFollowers = this.d.store.feeds.distributeToTagFollowers(status);
    this.d.store.events.emit('status.created', { status, homeRecipients: [author.id, ...receivers, ...tagFollowers] });
    return status;
  }

  /** Publishes a scheduled status that is due, with every normal effect; false when it could not be published. */
  publishScheduled(scheduled: ScheduledStatusRow): StatusRow | null {
    const account = this.d.store.accounts.byId(scheduled.accountId);
    if (!account || account.suspendedAt !== null || account.deletedAt !== null) {
      this.d.store.scheduled.delete(scheduled.id);
      return null;
    }
    const user = this.d.store.users.byAccountId(account.id);
    const params = scheduled.params;
    // A reply whose parent went away is published as a new thread (as Mastodon does).
    const thread = params.inReplyToId
      ? (this.d.store.timelines.readable(account.id, params.inReplyToId) ?? null)
      : null;
    const mediaIds = (params.mediaIds ?? []).filter((id) => {
      const m = this.d.store.media.byId(id);
      return m !== null && m.accountId === account.id && m.statusId === null && m.processing === 'done';
    });
    const spoilerText = params.spoilerText ?? '';
    const sensitive = (params.sensitive ?? user?.settings.defaultSensitive ?? false) || spoilerText.trim() !== '';
    // A quote whose post went away or may no longer be quoted is left out, as a reply's parent is.
    let quoted: StatusRow | null = null;
    try {
      quoted = params.quotedStatusId ? this.d.reader.quoteTarget(account, params.quotedStatusId) : null;
    } catch {
      quoted = null;
    }
    const status = this.d.store.transaction(() => {
      if (!this.d.store.scheduled.delete(scheduled.id)) return null; // published by someone else meanwhile
      return this.publish(
        { account, user, applicationId: scheduled.applicationId },
        {
          text: params.text,
          formatted: this.d.composer.format(params.text),
          spoilerText,
          sensitive,
          visibility: params.visibility,
          language: params.language,
          thread,
          mediaIds,
          poll: params.poll,
          quotePolicy:
            params.visibility === 'private' || params.visibility === 'direct'
              ? 'nobody'
              : (params.quoteApprovalPolicy ?? 'public'),
          quoted,
          idempotencyKey: params.idempotency,
        },
      );
    });
    if (status)
      this.d.logger.info({ statusId: status.id, scheduledStatusId: scheduled.id }, 'scheduled status published');
    return status;
  }
}
