import { int, type StoreCore } from './store.ts';

/** The public figures of the server (instance activity, active users), counted from the tables. */
export class InstanceStatsRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  /** Users who used the API (or signed in) since `since`, confirmed ones only. */
  activeUsers(since: number): number {
    const r = this.core
      .sql(
        `SELECT COUNT(*) AS n FROM users u WHERE u.confirmed_at IS NOT NULL AND (u.current_sign_in_at > @since
           OR EXISTS (SELECT 1 FROM oauth_access_tokens t WHERE t.user_id = u.id AND (t.last_used_at > @since OR t.created_at > @since)))`,
      )
      .get({ since }) as { n: bigint };
    return int(r.n);
  }

  /** Local posts written, sign-ins and sign-ups in [from, to). */
  activity(from: number, to: number): { statuses: number; logins: number; registrations: number } {
    const count = (sql: string) => int((this.core.sql(sql).get(from, to) as { n: bigint }).n);
    return {
      statuses: count('SELECT COUNT(*) AS n FROM statuses WHERE local = 1 AND created_at >= ? AND created_at < ?'),
      logins: count('SELECT COUNT(*) AS n FROM users WHERE current_sign_in_at >= ? AND current_sign_in_at < ?'),
      registrations: count('SELECT COUNT(*) AS n FROM users WHERE created_at >= ? AND created_at < ?'),
    };
  }
}
