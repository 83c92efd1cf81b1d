import { notFound } from '../errors.ts';
import type { PushPolicy, PushSubscriptionRow, SocialStore } from '../store/index.ts';

export type NewPushSubscription = Omit<PushSubscriptionRow, 'id' | 'createdAt' | 'updatedAt'>;

/** Web Push subscriptions, one per access token: a client subscribes, changes its alerts and unsubscribes. */
export class PushSubscriptionService {
  private readonly store: SocialStore;
  constructor(store: SocialStore) {
    this.store = store;
  }

  /** The subscription of an access token; a 404 when it has none. */
  ofToken(accessTokenId: string): PushSubscriptionRow {
    const row = this.store.push.byToken(accessTokenId);
    if (!row) throw notFound();
    return row;
  }

  /** Subscribes the token, replacing the subscription it had (Mastodon's: one per token). */
  subscribe(input: NewPushSubscription): PushSubscriptionRow {
    return this.store.push.replace(input);
  }

  update(accessTokenId: string, changes: { alerts: Record<string, boolean>; policy: PushPolicy }): PushSubscriptionRow {
    const row = this.ofToken(accessTokenId);
    this.store.push.update(row.id, changes);
    return this.store.push.byId(row.id)!;
  }

  /** Ends the token's subscription, if it has one. */
  unsubscribe(accessTokenId: string): void {
    const row = this.store.push.byToken(accessTokenId);
    if (row) this.store.push.delete(row.id);
  }
}
