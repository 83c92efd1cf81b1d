import { cursorWhere, finishPage, int, idOrNull, jsonIds, str, type PageQuery, type StoreCore } from './store.ts';

export const POLICY_VERDICTS = ['accept', 'filter', 'drop'] as const;
export type PolicyVerdict = (typeof POLICY_VERDICTS)[number];
export const POLICY_KEYS = [
  'for_not_following',
  'for_not_followers',
  'for_new_accounts',
  'for_private_mentions',
  'for_limited_accounts',
] as const;
export type PolicyKey = (typeof POLICY_KEYS)[number];
export type NotificationPolicy = Record<PolicyKey, PolicyVerdict>;

/** Mastodon 4.3's defaults: private mentions from strangers and limited accounts wait in requests. */
export const DEFAULT_POLICY: NotificationPolicy = {
  for_not_following: 'accept',
  for_not_followers: 'accept',
  for_new_accounts: 'accept',
  for_private_mentions: 'filter',
  for_limited_accounts: 'filter',
};

export interface NotificationRequestRow {
  id: string;
  accountId: string;
  fromAccountId: string;
  lastStatusId: string | null;
  notificationsCount: number;
  createdAt: number;
  updatedAt: number;
}

function toRequest(r: Record<string, unknown>): NotificationRequestRow {
  return {
    id: str(r.id),
    accountId: str(r.account_id),
    fromAccountId: str(r.from_account_id),
    lastStatusId: idOrNull(r.last_status_id),
    notificationsCount: int(r.notifications_count),
    createdAt: int(r.created_at),
    updatedAt: int(r.updated_at),
  };
}

/**
 * Notification policies (what happens to notifications from strangers), the requests that gather the
 * notifications a policy filtered, one per sender, and the senders a user accepted.
 */
export class NotificationRequestRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  policy(accountId: string): NotificationPolicy {
    const r = this.core.sql('SELECT * FROM notification_policies WHERE account_id = ?').get(accountId) as
      | Record<string, unknown>
      | undefined;
    if (!r) return { ...DEFAULT_POLICY };
    return Object.fromEntries(POLICY_KEYS.map((k) => [k, r[k] as PolicyVerdict])) as NotificationPolicy;
  }

  setPolicy(accountId: string, policy: NotificationPolicy): void {
    this.core
      .sql(
        `INSERT INTO notification_policies (account_id, for_not_following, for_not_followers, for_new_accounts, for_private_mentions, for_limited_accounts, updated_at)
         VALUES (@account, @for_not_following, @for_not_followers, @for_new_accounts, @for_private_mentions, @for_limited_accounts, @now)
         ON CONFLICT (account_id) DO UPDATE SET for_not_following = excluded.for_not_following, for_not_followers = excluded.for_not_followers,
           for_new_accounts = excluded.for_new_accounts, for_private_mentions = excluded.for_private_mentions, for_limited_accounts = excluded.for_limited_accounts, updated_at = excluded.updated_at`,
      )
      .run({ account: accountId, ...policy, now: this.core.now() });
  }

  /** Whether the user accepted notifications from this sender (by accepting a request). */
  permitted(accountId: string, fromAccountId: string): boolean {
    return (
      this.core
        .sql('SELECT 1 FROM notification_permissions WHERE account_id = ? AND from_account_id = ?')
        .get(accountId, fromAccountId) !== undefined
    );
  }

  /** Counts one more filtered notification in the sender's request, making the request if there is none. */
  record(accountId: string, fromAccountId: string, statusId: string | null): void {
    const now = this.core.now();
    this.core
      .sql(
        `INSERT INTO notification_requests (id, account_id, from_account_id, last_status_id, notifications_count, created_at, updated_at) VALUES (@id, @account, @from, @status, 1, @now, @now)
         ON CONFLICT (account_id, from_account_id) DO UPDATE SET notifications_count = notifications_count + 1, last_status_id = coalesce(excluded.last_status_id, last_status_id), updated_at = excluded.updated_at`,
      )
      .run({ id: this.core.ids.next(), account: accountId, from: fromAccountId, status: statusId, now });
  }

  list(accountId: string, page: PageQuery): NotificationRequestRow[] {
    const c = cursorWhere('r.id', page);
    const rows = this.core
      .sql(
        `SELECT r.* FROM notification_requests r WHERE r.account_id = @account AND ${c.where} ORDER BY r.id ${c.order} LIMIT @cursor_limit`,
      )
      .all({ account: accountId, ...c.params }) as Record<string, unknown>[];
    return finishPage(rows.map(toRequest), page);
  }

  byIds(accountId: string, ids: readonly string[]): NotificationRequestRow[] {
    if (ids.length === 0) return [];
    const rows = this.core
      .sql('SELECT * FROM notification_requests WHERE account_id = ? AND id IN (SELECT value FROM json_each(?))')
      .all(accountId, jsonIds(ids)) as Record<string, unknown>[];
    return rows.map(toRequest);
  }

  /** Lets the sender's notifications through from now on, shows the held ones, and closes the request. */
  accept(request: NotificationRequestRow): void {
    this.core
      .sql('INSERT OR IGNORE INTO notification_permissions (account_id, from_account_id, created_at) VALUES (?, ?, ?)')
      .run(request.accountId, request.fromAccountId, this.core.now());
    this.core
      .sql('UPDATE notifications SET filtered = 0 WHERE account_id = ? AND from_account_id = ? AND filtered = 1')
      .run(request.accountId, request.fromAccountId);
    this.core.sql('DELETE FROM notification_requests WHERE id = ?').run(request.id);
  }

  /** Closes the request and drops the notifications it held. */
  dismiss(request: NotificationRequestRow): void {
    this.core
      .sql('DELETE FROM notifications WHERE account_id = ? AND from_account_id = ? AND filtered = 1')
      .run(request.accountId, request.fromAccountId);
    this.core.sql('DELETE FROM notification_requests WHERE id = ?').run(request.id);
  }

  /** Pending requests and the notifications they hold (the policy's summary). */
  summary(accountId: string): { requests: number; notifications: number } {
    const r = this.core
      .sql(
        'SELECT COUNT(*) AS n, coalesce(SUM(notifications_count), 0) AS total FROM notification_requests WHERE account_id = ?',
      )
      .get(accountId) as { n: bigint; total: bigint };
    return { requests: int(r.n), notifications: int(r.total) };
  }
}
