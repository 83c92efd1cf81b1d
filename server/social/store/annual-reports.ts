import { int, intOrNull, str, type StoreCore } from './store.ts';

export interface AnnualReportRow {
  accountId: string;
  year: number;
  schemaVersion: number;
  data: Record<string, unknown>;
  viewedAt: number | null;
  createdAt: number;
}

/** What an account did in a span of time, as its annual report counts it (own rows only). */
export interface YearActivity {
  /** Own posts by month (1–12): statuses, follows made and follows received. */
  months: { month: number; statuses: number; following: number; followers: number }[];
  standalone: number;
  replies: number;
  reblogs: number;
  polls: number;
  topTags: { name: string; count: number }[];
  /** Own public or unlisted posts with the most of each interaction (null when none had any). */
  topStatuses: { byReblogs: string | null; byFavourites: string | null; byReplies: string | null };
  apps: { name: string; count: number }[];
  /** Accounts replied to and accounts reblogged most, others than oneself. */
  repliedTo: { accountId: string; count: number }[];
  reblogged: { accountId: string; count: number }[];
  /** Share (0–100) of the server's local accounts that posted less, and that gained fewer followers. */
  statusesPercentile: number;
  followersPercentile: number;
}

const TOP = 5;

/** Mastodon's generated annual reports ("Wrapstodon"), and the figures they are made of. */
export class AnnualReportRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  list(accountId: string): AnnualReportRow[] {
    const rows = this.core
      .sql('SELECT * FROM annual_reports WHERE account_id = ? ORDER BY year')
      .all(accountId) as Record<string, unknown>[];
    return rows.map(toReport);
  }

  get(accountId: string, year: number): AnnualReportRow | null {
    const r = this.core.sql('SELECT * FROM annual_reports WHERE account_id = ? AND year = ?').get(accountId, year) as
      | Record<string, unknown>
      | undefined;
    return r ? toReport(r) : null;
  }

  /** Stores a report; a report generated already stays as it was. */
  save(accountId: string, year: number, schemaVersion: number, data: Record<string, unknown>): void {
    this.core
      .sql(
        `INSERT INTO annual_reports (id, account_id, year, schema_version, data, created_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (account_id, year) DO NOTHING`,
      )
      .run(this.core.ids.next(), accountId, year, schemaVersion, JSON.stringify(data), this.core.now());
  }

  markViewed(accountId: string, year: number): void {
    this.core
      .sql('UPDATE annual_reports SET viewed_at = coalesce(viewed_at, ?) WHERE account_id = ? AND year = ?')
      .run(this.core.now(), accountId, year);
  }

  /** How many posts (boosts included) the account made in [from, to). */
  statusCount(accountId: string, from: number, to: number): number {
    return int(
      (
        this.core
          .sql(
            'SELECT COUNT(*) AS n FROM statuses WHERE account_id = ? AND created_at >= ? AND created_at < ? AND deleted_at IS NULL',
          )
          .get(accountId, from, to) as { n: bigint }
      ).n,
    );
  }

  activity(accountId: string, from: number, to: number): YearActivity {
    const p = { account: accountId, from, to };
    const own = 's.account_id = @account AND s.created_at >= @from AND s.created_at < @to AND s.deleted_at IS NULL';
    const all = <T>(sql: string) => this.core.sql(sql).all(p) as T[];
    const one = <T>(sql: string) => this.core.sql(sql).get(p) as T;

    const month = (column: string) => `CAST(strftime('%m', ${column} / 1000, 'unixepoch') AS INTEGER)`;
    const byMonth = (sql: string) =>
      new Map(all<{ month: bigint; n: bigint }>(sql).map((r) => [int(r.month), int(r.n)]));
    const statuses = byMonth(
      `SELECT ${month('s.created_at')} AS month, COUNT(*) AS n FROM statuses s WHERE ${own} GROUP BY 1`,
    );
    const following = byMonth(
      `SELECT ${month('f.created_at')} AS month, COUNT(*) AS n FROM follows f WHERE f.account_id = @account AND f.created_at >= @from AND f.created_at < @to GROUP BY 1`,
    );
    const followers = byMonth(
      `SELECT ${month('f.created_at')} AS month, COUNT(*) AS n FROM follows f WHERE f.target_account_id = @account AND f.created_at >= @from AND f.created_at < @to GROUP BY 1`,
    );

    const kinds = one<{ reblogs: bigint; replies: bigint; standalone: bigint; polls: bigint }>(
      `SELECT
         COALESCE(SUM(s.reblog_of_id IS NOT NULL), 0) AS reblogs,
         COALESCE(SUM(s.reblog_of_id IS NULL AND s.in_reply_to_id IS NOT NULL AND s.in_reply_to_account_id IS NOT @account), 0) AS replies,
         COALESCE(SUM(s.reblog_of_id IS NULL AND (s.in_reply_to_id IS NULL OR s.in_reply_to_account_id IS @account)), 0) AS standalone,
         COALESCE(SUM(s.poll_id IS NOT NULL), 0) AS polls
       FROM statuses s WHERE ${own}`,
    );

    const top = (counter: string) =>
      one<{ id: bigint } | undefined>(
        `SELECT s.id FROM statuses s JOIN status_stats st ON st.status_id = s.id
         WHERE ${own} AND s.reblog_of_id IS NULL AND s.visibility IN ('public', 'unlisted') AND st.${counter} > 0
         ORDER BY st.${counter} DESC, s.id DESC LIMIT 1`,
      );
    const idOrNull = (r: { id: bigint } | undefined) => (r ? str(r.id) : null);

    const counted = <K extends string>(sql: string, key: K) =>
      all<Record<K, unknown> & { n: bigint }>(sql).map((r) => ({ key: r[key], count: int(r.n) }));

    const ownCounts = one<{ statuses: bigint; followers: bigint }>(
      `SELECT
         (SELECT COUNT(*) FROM statuses s WHERE ${own}) AS statuses,
         (SELECT COUNT(*) FROM follows f WHERE f.target_account_id = @account AND f.created_at >= @from AND f.created_at < @to) AS followers`,
    );
    const shares = this.core
      .sql(
        `WITH locals AS (SELECT a.id FROM accounts a JOIN users u ON u.account_id = a.id WHERE a.deleted_at IS NULL),
         figures AS (
           SELECT
             (SELECT COUNT(*) FROM statuses s WHERE s.account_id = l.id AND s.created_at >= @from AND s.created_at < @to AND s.deleted_at IS NULL) AS statuses,
             (SELECT COUNT(*) FROM follows f WHERE f.target_account_id = l.id AND f.created_at >= @from AND f.created_at < @to) AS followers
           FROM locals l)
         SELECT 100.0 * SUM(statuses < @own_statuses) / COUNT(*) AS statuses, 100.0 * SUM(followers < @own_followers) / COUNT(*) AS followers
         FROM figures`,
      )
      .get({ from, to, own_statuses: ownCounts.statuses, own_followers: ownCounts.followers }) as {
      statuses: number | null;
      followers: number | null;
    };

    return {
      months: Array.from({ length: 12 }, (_, i) => ({
        month: i + 1,
        statuses: statuses.get(i + 1) ?? 0,
        following: following.get(i + 1) ?? 0,
        followers: followers.get(i + 1) ?? 0,
      })),
      standalone: int(kinds.standalone),
      replies: int(kinds.replies),
      reblogs: int(kinds.reblogs),
      polls: int(kinds.polls),
      topTags: counted(
        `SELECT coalesce(t.display_name, t.name) AS name, COUNT(*) AS n FROM statuses s JOIN statuses_tags st ON st.status_id = s.id JOIN tags t ON t.id = st.tag_id
         WHERE ${own} AND s.reblog_of_id IS NULL GROUP BY t.id ORDER BY n DESC, t.name LIMIT ${TOP}`,
        'name',
      ).map((r) => ({ name: String(r.key), count: r.count })),
      topStatuses: {
        byReblogs: idOrNull(top('reblogs_count')),
        byFavourites: idOrNull(top('favourites_count')),
        byReplies: idOrNull(top('replies_count')),
      },
      apps: counted(
        `SELECT app.name AS name, COUNT(*) AS n FROM statuses s JOIN oauth_applications app ON app.id = s.application_id
         WHERE ${own} AND s.reblog_of_id IS NULL GROUP BY app.id ORDER BY n DESC, app.name LIMIT ${TOP}`,
        'name',
      ).map((r) => ({ name: String(r.key), count: r.count })),
      repliedTo: counted(
        `SELECT s.in_reply_to_account_id AS account, COUNT(*) AS n FROM statuses s
         WHERE ${own} AND s.in_reply_to_account_id IS NOT NULL AND s.in_reply_to_account_id <> @account
         GROUP BY 1 ORDER BY n DESC, 1 LIMIT ${TOP}`,
        'account',
      ).map((r) => ({ accountId: str(r.key), count: r.count })),
      reblogged: counted(
        `SELECT o.account_id AS account, COUNT(*) AS n FROM statuses s JOIN statuses o ON o.id = s.reblog_of_id
         WHERE ${own} AND o.account_id <> @account GROUP BY 1 ORDER BY n DESC, 1 LIMIT ${TOP}`,
        'account',
      ).map((r) => ({ accountId: str(r.key), count: r.count })),
      statusesPercentile: Number(shares.statuses ?? 0),
      followersPercentile: Number(shares.followers ?? 0),
    };
  }
}

function toReport(r: Record<string, unknown>): AnnualReportRow {
  return {
    accountId: str(r.account_id),
    year: int(r.year),
    schemaVersion: int(r.schema_version),
    data: JSON.parse(String(r.data)) as Record<string, unknown>,
    viewedAt: intOrNull(r.viewed_at),
    createdAt: int(r.created_at),
  };
}
