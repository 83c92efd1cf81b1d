import { int, jsonOr, sqlBool, str, bool, type StoreCore } from './store.ts';

export type PushPolicy = 'all' | 'followed' | 'follower' | 'none';

export interface PushSubscriptionRow {
  id: string;
  accessTokenId: string;
  accessToken: string;
  accountId: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  standard: boolean;
  alerts: Record<string, boolean>;
  policy: PushPolicy;
  createdAt: number;
  updatedAt: number;
}

export interface PushDeliveryRow {
  id: string;
  subscriptionId: string;
  notificationId: string;
  attempts: number;
}

function toSubscription(r: Record<string, unknown>): PushSubscriptionRow {
  return {
    id: str(r.id),
    accessTokenId: str(r.access_token_id),
    accessToken: String(r.access_token),
    accountId: str(r.account_id),
    endpoint: String(r.endpoint),
    p256dh: String(r.p256dh),
    auth: String(r.auth),
    standard: bool(r.standard),
    alerts: jsonOr<Record<string, boolean>>(r.alerts, {}),
    policy: String(r.policy) as PushPolicy,
    createdAt: int(r.created_at),
    updatedAt: int(r.updated_at),
  };
}

/** Web Push subscriptions (one per access token) and the queue of pushes to send. */
export class PushRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  /** Creates the token's subscription, replacing the one it had. */
  replace(input: Omit<PushSubscriptionRow, 'id' | 'createdAt' | 'updatedAt'>): PushSubscriptionRow {
    const now = this.core.now();
    return this.core.transaction(() => {
      this.core.sql('DELETE FROM push_subscriptions WHERE access_token_id = ?').run(input.accessTokenId);
      const id = this.core.ids.next();
      this.core
        .sql(
          `INSERT INTO push_subscriptions (id, access_token_id, access_token, account_id, endpoint, p256dh, auth, standard, alerts, policy, created_at, updated_at)
           VALUES (@id, @token_id, @token, @account, @endpoint, @p256dh, @auth, @standard, @alerts, @policy, @now, @now)`,
        )
        .run({
          id,
          token_id: input.accessTokenId,
          token: input.accessToken,
          account: input.accountId,
          endpoint: input.endpoint,
          p256dh: input.p256dh,
          auth: input.auth,
          standard: sqlBool(input.standard),
          alerts: JSON.stringify(input.alerts),
          policy: input.policy,
          now,
        });
      return this.byId(id)!;
    });
  }

  byId(id: string): PushSubscriptionRow | null {
    const r = this.core.sql('SELECT * FROM push_subscriptions WHERE id = ?').get(id) as
      | Record<string, unknown>
      | undefined;
    return r ? toSubscription(r) : null;
  }

  byToken(accessTokenId: string): PushSubscriptionRow | null {
    const r = this.core.sql('SELECT * FROM push_subscriptions WHERE access_token_id = ?').get(accessTokenId) as
      | Record<string, unknown>
      | undefined;
    return r ? toSubscription(r) : null;
  }

  /** The subscriptions of an account whose token is still valid. */
  ofAccount(accountId: string): PushSubscriptionRow[] {
    const rows = this.core
      .sql(
        'SELECT p.* FROM push_subscriptions p JOIN oauth_access_tokens t ON t.id = p.access_token_id WHERE p.account_id = ? AND t.revoked_at IS NULL',
      )
      .all(accountId) as Record<string, unknown>[];
    return rows.map(toSubscription);
  }

  update(id: string, changes: { alerts: Record<string, boolean>; policy: PushPolicy }): void {
    this.core
      .sql('UPDATE push_subscriptions SET alerts = ?, policy = ?, updated_at = ? WHERE id = ?')
      .run(JSON.stringify(changes.alerts), changes.policy, this.core.now(), id);
  }

  delete(id: string): boolean {
    return this.core.sql('DELETE FROM push_subscriptions WHERE id = ?').run(id).changes > 0;
  }

  enqueue(subscriptionIds: readonly string[], notificationId: string): void {
    const insert = this.core.sql(
      'INSERT INTO push_deliveries (id, subscription_id, notification_id, next_attempt_at) VALUES (?, ?, ?, ?)',
    );
    const now = this.core.now();
    this.core.transaction(() => {
      for (const id of subscriptionIds) insert.run(this.core.ids.next(), id, notificationId, now);
    });
  }

  /** Deliveries due now, oldest first. */
  due(limit: number): PushDeliveryRow[] {
    const rows = this.core
      .sql('SELECT * FROM push_deliveries WHERE next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?')
      .all(this.core.now(), limit) as Record<string, unknown>[];
    return rows.map((r) => ({
      id: str(r.id),
      subscriptionId: str(r.subscription_id),
      notificationId: str(r.notification_id),
      attempts: int(r.attempts),
    }));
  }

  /** When the next delivery is due (ms since the epoch), or null when the queue is empty. */
  nextDue(): number | null {
    const r = this.core.sql('SELECT MIN(next_attempt_at) AS at FROM push_deliveries').get() as { at: bigint | null };
    return r.at === null ? null : Number(r.at);
  }

  delivered(id: string): void {
    this.core.sql('DELETE FROM push_deliveries WHERE id = ?').run(id);
  }

  retryLater(id: string, at: number, error: string): void {
    this.core
      .sql('UPDATE push_deliveries SET attempts = attempts + 1, next_attempt_at = ?, last_error = ? WHERE id = ?')
      .run(at, error.slice(0, 500), id);
  }
}
