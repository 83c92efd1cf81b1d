import type { Account, QuotePolicy, QuoteRow, QuoteState, SocialStore, StatusRow, Visibility } from '../store/index.ts';
import type { NotificationService } from './notifications.ts';

/** A quote as a remote post states it (federation reads it from the post and its approval stamp). */
export interface StatedQuote {
  quotedStatus: StatusRow | null;
  state: QuoteState;
  approvalUri: string | null;
  legacy: boolean;
}

/**
 * What other servers' activities change here, once federation has checked and read them: favourites and boosts
 * of statuses, quote approvals and revocations, remote profiles. Each change is told on the bus after it commits.
 */
export class RemoteActivity {
  private readonly store: SocialStore;
  private readonly notifications: NotificationService;
  constructor(store: SocialStore, notifications: NotificationService) {
    this.store = store;
    this.notifications = notifications;
  }

  /** A remote account favourites (or reacts to) a status; a second time changes nothing. */
  favourited(sender: Account, status: StatusRow): void {
    this.store.transaction(() => {
      if (!this.store.interactions.favourite(sender.id, status.id)) return;
      this.notifications.notify(status.accountId, sender.id, 'favourite', status.id);
      this.store.events.emit('status.favourited', { statusId: status.id, accountId: sender.id });
    });
  }

  unfavourited(sender: Account, statusId: string): void {
    this.store.transaction(() => {
      if (!this.store.interactions.unfavourite(sender.id, statusId)) return;
      this.store.notifications.deleteFor(sender.id, 'favourite', statusId);
      this.store.events.emit('status.unfavourited', { statusId, accountId: sender.id });
    });
  }

  /** A boost becomes a reblog row in the booster's name, in local followers' home feeds; a local author is notified. */
  boosted(booster: Account, original: StatusRow, boost: { uri: string; visibility: Visibility }): void {
    this.store.transaction(() => {
      const id = this.store.statuses.insert({
        accountId: booster.id,
        local: false,
        uri: boost.uri,
        reblogOfId: original.id,
        visibility: boost.visibility,
      });
      const reblog = this.store.statuses.byId(id)!;
      const homeRecipients = this.store.feeds.distributeStatus(reblog, []);
      const author = this.store.accounts.byId(original.accountId);
      if (author && author.domain === null) this.notifications.notify(author.id, booster.id, 'reblog', original.id);
      this.store.events.emit('status.created', { status: reblog, homeRecipients });
    });
  }

  /** A boost undone: the reblog goes, from home feeds too, and so does its notification. */
  unboosted(sender: Account, reblog: StatusRow): void {
    this.store.transaction(() => {
      this.store.statuses.markDeleted(reblog);
      const homeRecipients = this.store.feeds.holders([reblog.id]);
      this.store.feeds.remove([reblog.id]);
      this.store.notifications.deleteFor(sender.id, 'reblog', reblog.reblogOfId!);
      this.store.events.emit('status.deleted', { status: reblog, homeRecipients });
    });
  }

  /** A local author grants a remote quote request: the quote is accepted (its author notified once) and remembered. */
  quoteRequestAccepted(
    quote: QuoteRow,
    quoting: StatusRow,
    parties: { authorId: string; requesterId: string },
    requestUri: string,
  ): void {
    this.store.transaction(() => {
      if (quote.state !== 'accepted') {
        this.store.quotes.setState(quote, 'accepted', null);
        this.notifications.notify(parties.authorId, parties.requesterId, 'quote', quoting.id);
      }
      this.store.quotes.setActivityUri(quote, requestUri);
      this.store.events.emit('status.updated', { status: this.store.statuses.byId(quoting.id)! });
    });
  }

  /** The quoted remote author approved a local quote, with the address of their stamp. */
  quoteApproved(quote: QuoteRow, stampUri: string): void {
    this.store.transaction(() => {
      this.store.quotes.setState(quote, 'accepted', stampUri);
      this.store.events.emit('status.updated', { status: this.store.statuses.byId(quote.statusId)! });
    });
  }

  /**
   * The quoted author deleted their stamp: accepted becomes revoked, pending rejected. Readers here see it at once;
   * other servers learn it from the Delete, not from an Update of the post.
   */
  quoteStampDeleted(quote: QuoteRow): void {
    this.store.transaction(() => {
      this.store.quotes.setState(quote, quote.state === 'accepted' ? 'revoked' : 'rejected', null);
      this.store.events.emit('status.updated', {
        status: this.store.statuses.byId(quote.statusId)!,
        unfederated: true,
      });
    });
  }

  /**
   * What a remote post now says of quotes: who may quote it, and what it quotes (`stampChanged`: whether the stated
   * approval differs from the stored one). Told as an update when the quote changed.
   */
  quotesStated(
    status: StatusRow,
    stated: { policy: QuotePolicy; quote: StatedQuote | null },
    stampChanged: (current: QuoteRow, next: StatedQuote) => boolean,
  ): void {
    const current = this.store.quotes.ofStatus(status.id);
    const next = stated.quote;
    let changed = false;
    this.store.transaction(() => {
      if (status.quoteApprovalPolicy !== stated.policy) this.store.statuses.setQuotePolicy(status.id, stated.policy);
      if (!next) {
        if (current) this.store.quotes.remove(current);
        changed = current !== null;
        return;
      }
      const quotedStatusId = next.quotedStatus?.id ?? null;
      if (!current) {
        this.store.quotes.insert(status.id, quotedStatusId, next.quotedStatus?.accountId ?? null, next.state, {
          approvalUri: next.approvalUri,
          legacy: next.legacy,
        });
        changed = true;
        return;
      }
      if (current.quotedStatusId === quotedStatusId && !stampChanged(current, next)) return;
      this.store.quotes.replace(current, {
        quotedStatusId,
        quotedAccountId: next.quotedStatus?.accountId ?? null,
        state: next.state,
        approvalUri: next.approvalUri,
        legacy: next.legacy,
      });
      changed = true;
    });
    if (changed) this.store.events.emit('status.updated', { status: this.store.statuses.byId(status.id)! });
  }

  /** A remote profile was stored afresh: streams and clients are told. */
  accountRefreshed(accountId: string): void {
    this.store.events.emit('account.updated', { accountId });
  }
}
