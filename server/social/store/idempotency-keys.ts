import { idOrNull, type StoreCore } from './store.ts';

/** The Idempotency-Key headers of status posts: a retried POST returns what the first one made. */
export class IdempotencyKeyRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  /** The status or scheduled status a key produced within `windowMs`. */
  lookup(
    accountId: string,
    key: string,
    windowMs: number,
  ): { statusId: string | null; scheduledStatusId: string | null } | null {
    const r = this.core
      .sql(
        'SELECT status_id, scheduled_status_id FROM idempotency_keys WHERE account_id = ? AND key = ? AND created_at > ?',
      )
      .get(accountId, key, this.core.now() - windowMs) as
      | { status_id: bigint | null; scheduled_status_id: bigint | null }
      | undefined;
    return r ? { statusId: idOrNull(r.status_id), scheduledStatusId: idOrNull(r.scheduled_status_id) } : null;
  }

  /** Records what `key` produced (a retried request then gets the same answer). */
  remember(accountId: string, key: string, target: { statusId?: string; scheduledStatusId?: string }): void {
    this.core
      .sql(
        `INSERT INTO idempotency_keys (account_id, key, status_id, scheduled_status_id, created_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (account_id, key) DO UPDATE SET status_id = excluded.status_id, scheduled_status_id = excluded.scheduled_status_id, created_at = excluded.created_at`,
      )
      .run(accountId, key, target.statusId ?? null, target.scheduledStatusId ?? null, this.core.now());
  }

  /** Forgets keys older than `olderThan` (ms since the epoch); returns how many. */
  purge(olderThan: number): number {
    return this.core.sql('DELETE FROM idempotency_keys WHERE created_at < ?').run(olderThan).changes;
  }
}
