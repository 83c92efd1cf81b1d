import { forbidden, notFound, ValidationFailure } from '../../errors.ts';
import { LIMITS } from '../../limits.ts';
import type { Account, StatusRow, Visibility } from '../../store/index.ts';
import type { StatusDeps } from './deps.ts';
import type { Poster } from './inputs.ts';

const ALLOWED_REBLOG_VISIBILITIES: readonly Visibility[] = ['public', 'unlisted', 'private'];

/** What a user does to a status: reblog, favourite, bookmark, pin, mute its conversation, take back a quote's permission. */
export class StatusActions {
  private readonly d: StatusDeps;

  constructor(deps: StatusDeps) {
    this.d = deps;
  }

  reblog(me: Poster, statusId: string, visibility: Visibility | undefined): StatusRow {
    const original = this.d.reader.actionTarget(me.account, statusId);
    if (
      original.visibility === 'direct' ||
      (original.visibility === 'private' && original.accountId !== me.account.id)
    ) {
      throw ValidationFailure.single('reblog', 'ERR_INVALID', 'of a private or direct post is not allowed');
    }
    if (visibility !== undefined && !ALLOWED_REBLOG_VISIBILITIES.includes(visibility))
      throw ValidationFailure.single(
        'visibility',
        'ERR_INCLUSION',
        'is not included in the list (public, unlisted, private)',
      );
    const existing = this.d.store.statuses.reblogBy(me.account.id, original.id);
    if (existing) return existing;
    const fallback = me.user?.settings.defaultPrivacy;
    const chosen: Visibility =
      original.visibility === 'private'
        ? 'private'
        : (visibility ?? (fallback && fallback !== 'direct' ? fallback : 'public'));
    return this.d.store.transaction(() => {
      const id = this.d.store.statuses.insert({
        accountId: me.account.id,
        local: true,
        reblogOfId: original.id,
        visibility: chosen,
        applicationId: me.applicationId,
      });
      const homeRecipients = this.d.store.feeds.distribute({
        statusId: id,
        authorId: me.account.id,
        reblogOfId: original.id,
        inReplyToAccountId: null,
        isReply: false,
        language: original.language,
        toFollowers: true,
        mentionedIds: [],
      }).receivers;
      this.d.notifications.notify(original.accountId, me.account.id, 'reblog', original.id);
      const reblog = this.d.store.statuses.byId(id)!;
      this.d.store.events.emit('status.created', {
        status: reblog,
        homeRecipients: [me.account.id, ...homeRecipients],
      });
      return reblog;
    });
  }

  /** Undoes a reblog; returns the reblogged status. */
  unreblog(me: Account, statusId: string): StatusRow {
    const original = this.d.reader.actionTarget(me, statusId);
    const reblog = this.d.store.statuses.reblogBy(me.id, original.id);
    if (reblog) {
      this.d.store.transaction(() => {
        this.d.store.statuses.markDeleted(reblog);
        const homeRecipients = this.d.store.feeds.holders([reblog.id]);
        this.d.store.feeds.remove([reblog.id]);
        this.d.store.events.emit('status.deleted', { status: reblog, homeRecipients, tags: [] });
        this.d.store.notifications.deleteFor(me.id, 'reblog', original.id);
      });
    }
    return original;
  }

  favourite(me: Account, statusId: string): StatusRow {
    const status = this.d.reader.actionTarget(me, statusId);
    this.d.store.transaction(() => {
      if (!this.d.store.interactions.favourite(me.id, status.id)) return;
      this.d.notifications.notify(status.accountId, me.id, 'favourite', status.id);
      this.d.store.events.emit('status.favourited', { statusId: status.id, accountId: me.id });
    });
    return status;
  }

  unfavourite(me: Account, statusId: string): StatusRow {
    const status = this.d.reader.actionTarget(me, statusId);
    this.d.store.transaction(() => {
      if (!this.d.store.interactions.unfavourite(me.id, status.id)) return;
      this.d.store.notifications.deleteFor(me.id, 'favourite', status.id);
      this.d.store.events.emit('status.unfavourited', { statusId: status.id, accountId: me.id });
    });
    return status;
  }

  bookmark(me: Account, statusId: string, on: boolean): StatusRow {
    const status = this.d.reader.actionTarget(me, statusId);
    if (on) this.d.store.interactions.bookmark(me.id, status.id);
    else this.d.store.interactions.unbookmark(me.id, status.id);
    return status;
  }

  pin(me: Account, statusId: string): StatusRow {
    const status = this.d.reader.readable(me, statusId);
    if (status.reblogOfId !== null)
      throw ValidationFailure.single('status', 'ERR_INVALID', 'a reblog cannot be pinned');
    if (status.accountId !== me.id)
      throw ValidationFailure.single('status', 'ERR_INVALID', "someone else's post cannot be pinned");
    if (status.visibility === 'direct')
      throw ValidationFailure.single(
        'status',
        'ERR_INVALID',
        'posts that are only visible to mentioned users cannot be pinned',
      );
    this.d.store.transaction(() => {
      if (
        this.d.store.interactions.pinCount(me.id) >= LIMITS.accounts.max_pinned_statuses &&
        !this.d.store.interactions.flags(me.id, [status.id], []).pinned.has(status.id)
      ) {
        throw ValidationFailure.single(
          'status',
          'ERR_TOO_LONG',
          `you have already pinned the maximum number of posts (${LIMITS.accounts.max_pinned_statuses})`,
        );
      }
      if (this.d.store.interactions.pin(me.id, status.id))
        this.d.store.events.emit('status.pinned', { accountId: me.id, statusId: status.id });
    });
    return status;
  }

  unpin(me: Account, statusId: string): StatusRow {
    const status = this.d.reader.readable(me, statusId);
    this.d.store.transaction(() => {
      if (this.d.store.interactions.unpin(me.id, status.id))
        this.d.store.events.emit('status.unpinned', { accountId: me.id, statusId: status.id });
    });
    return status;
  }

  muteConversation(me: Account, statusId: string, mute: boolean): StatusRow {
    const status = this.d.reader.actionTarget(me, statusId);
    if (status.conversationId === null)
      throw ValidationFailure.single('status', 'ERR_INVALID', 'is not part of a conversation that can be muted');
    if (mute) this.d.store.interactions.muteConversation(me.id, status.conversationId);
    else this.d.store.interactions.unmuteConversation(me.id, status.conversationId);
    return status;
  }

  /** The author of a quoted post revokes one quote of it; returns the quoting post as it now is. */
  revokeQuote(me: Account, statusId: string, quotingStatusId: string): StatusRow {
    const status = this.d.reader.readable(me, statusId);
    const quote = this.d.store.quotes.byQuotingStatus(status.id, quotingStatusId);
    if (!quote) throw notFound();
    if (status.accountId !== me.id) throw forbidden();
    this.d.store.transaction(() => {
      this.d.store.quotes.setState(quote, 'revoked');
      // Federated as the Delete of the stamp (quote.revoked), not as an Update of the quoting post.
      this.d.store.events.emit('status.updated', {
        status: this.d.store.statuses.byId(quote.statusId)!,
        unfederated: true,
      });
      this.d.store.events.emit('quote.revoked', { quoteId: quote.id });
    });
    return this.d.store.statuses.byId(quote.statusId)!;
  }
}
