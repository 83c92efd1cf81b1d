import { DAY_MS } from './search.ts';
import { int, str, type StoreCore } from './store.ts';

/** A local account (one with a user). */
const LOCAL = (column: string) => `${column} IN (SELECT account_id FROM users)`;

/**
 * Each measure as the events it counts: `(day, item, amount)` rows in [@from, @to), with `day` the UTC day
 * number. Counted as distinct items (accounts, servers: one per day however often) or summed amounts (bytes).
 * `@param` is the tag id or the domain the measure is about.
 */
const MEASURES = {
  active_users: {
    // Active: wrote a post, favourited or followed (what the database keeps of activity).
    events: `SELECT created_at / ${DAY_MS} AS day, account_id AS item, 1 AS amount FROM statuses WHERE created_at >= @from AND created_at < @to AND ${LOCAL('account_id')}
             UNION ALL SELECT created_at / ${DAY_MS}, account_id, 1 FROM favourites WHERE created_at >= @from AND created_at < @to AND ${LOCAL('account_id')}
             UNION ALL SELECT created_at / ${DAY_MS}, account_id, 1 FROM follows WHERE created_at >= @from AND created_at < @to AND ${LOCAL('account_id')}`,
  },
  new_users: {
    events: `SELECT created_at / ${DAY_MS} AS day, id AS item, 1 AS amount FROM users WHERE created_at >= @from AND created_at < @to`,
  },
  interactions: {
    // Favourites, boosts and replies of local posts.
    events: `SELECT f.created_at / ${DAY_MS} AS day, 'f' || f.id AS item, 1 AS amount FROM favourites f JOIN statuses s ON s.id = f.status_id WHERE f.created_at >= @from AND f.created_at < @to AND s.local = 1
             UNION ALL SELECT r.created_at / ${DAY_MS}, 's' || r.id, 1 FROM statuses r JOIN statuses s ON s.id = r.reblog_of_id WHERE r.created_at >= @from AND r.created_at < @to AND s.local = 1
             UNION ALL SELECT r.created_at / ${DAY_MS}, 's' || r.id, 1 FROM statuses r JOIN statuses s ON s.id = r.in_reply_to_id WHERE r.created_at >= @from AND r.created_at < @to AND s.local = 1`,
  },
  opened_reports: {
    events: `SELECT created_at / ${DAY_MS} AS day, id AS item, 1 AS amount FROM reports WHERE created_at >= @from AND created_at < @to`,
  },
  resolved_reports: {
    events: `SELECT action_taken_at / ${DAY_MS} AS day, id AS item, 1 AS amount FROM reports WHERE action_taken_at >= @from AND action_taken_at < @to`,
  },
  tag_accounts: {
    param: 'id',
    events: `SELECT s.created_at / ${DAY_MS} AS day, s.account_id AS item, 1 AS amount FROM statuses_tags st JOIN statuses s ON s.id = st.status_id
             WHERE st.tag_id = @param AND s.created_at >= @from AND s.created_at < @to AND s.deleted_at IS NULL`,
  },
  tag_uses: {
    param: 'id',
    events: `SELECT s.created_at / ${DAY_MS} AS day, s.id AS item, 1 AS amount FROM statuses_tags st JOIN statuses s ON s.id = st.status_id
             WHERE st.tag_id = @param AND s.created_at >= @from AND s.created_at < @to AND s.deleted_at IS NULL`,
  },
  tag_servers: {
    param: 'id',
    events: `SELECT s.created_at / ${DAY_MS} AS day, a.domain AS item, 1 AS amount FROM statuses_tags st JOIN statuses s ON s.id = st.status_id JOIN accounts a ON a.id = s.account_id
             WHERE st.tag_id = @param AND s.created_at >= @from AND s.created_at < @to AND s.deleted_at IS NULL AND a.domain IS NOT NULL`,
  },
  instance_accounts: {
    param: 'domain',
    events: `SELECT created_at / ${DAY_MS} AS day, id AS item, 1 AS amount FROM accounts WHERE domain = @param AND created_at >= @from AND created_at < @to`,
  },
  instance_media_attachments: {
    param: 'domain',
    unit: 'bytes',
    events: `SELECT m.created_at / ${DAY_MS} AS day, m.id AS item, coalesce(m.file_size, 0) AS amount FROM media_attachments m JOIN accounts a ON a.id = m.account_id
             WHERE a.domain = @param AND m.created_at >= @from AND m.created_at < @to`,
  },
  instance_reports: {
    param: 'domain',
    events: `SELECT r.created_at / ${DAY_MS} AS day, r.id AS item, 1 AS amount FROM reports r JOIN accounts a ON a.id = r.target_account_id
             WHERE a.domain = @param AND r.created_at >= @from AND r.created_at < @to`,
  },
  instance_statuses: {
    param: 'domain',
    events: `SELECT s.created_at / ${DAY_MS} AS day, s.id AS item, 1 AS amount FROM statuses s JOIN accounts a ON a.id = s.account_id
             WHERE a.domain = @param AND s.created_at >= @from AND s.created_at < @to`,
  },
  instance_follows: {
    param: 'domain',
    events: `SELECT f.created_at / ${DAY_MS} AS day, f.id AS item, 1 AS amount FROM follows f JOIN accounts a ON a.id = f.target_account_id
             WHERE a.domain = @param AND ${LOCAL('f.account_id')} AND f.created_at >= @from AND f.created_at < @to`,
  },
  instance_followers: {
    param: 'domain',
    events: `SELECT f.created_at / ${DAY_MS} AS day, f.id AS item, 1 AS amount FROM follows f JOIN accounts a ON a.id = f.account_id
             WHERE a.domain = @param AND ${LOCAL('f.target_account_id')} AND f.created_at >= @from AND f.created_at < @to`,
  },
} satisfies Record<string, { events: string; param?: 'id' | 'domain'; unit?: 'bytes' }>;

export type MeasureKey = keyof typeof MEASURES;
export const MEASURE_KEYS = Object.keys(MEASURES) as MeasureKey[];

export function measureParam(key: MeasureKey): 'id' | 'domain' | null {
  return (MEASURES[key] as { param?: 'id' | 'domain' }).param ?? null;
}

export function measureUnit(key: MeasureKey): 'bytes' | null {
  return (MEASURES[key] as { unit?: 'bytes' }).unit ?? null;
}

/** Ranked keys with their value, for the dimensions. */
export interface RankedRow {
  key: string;
  value: number;
}

/** The figures of the admin dashboard (Mastodon's Admin::Metrics): measures, dimensions and retention. */
export class AdminMetricsRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  /** A measure over [from, to): its value per UTC day number, and the total (distinct items over the whole span). */
  measure(
    key: MeasureKey,
    from: number,
    to: number,
    param: string | null,
  ): { days: Map<number, number>; total: number } {
    const { events } = MEASURES[key];
    const value = measureUnit(key) === 'bytes' ? 'SUM(amount)' : 'COUNT(DISTINCT item)';
    const p = { from, to, ...(measureParam(key) ? { param } : {}) };
    const rows = this.core
      .sql(`WITH events(day, item, amount) AS (${events}) SELECT day, ${value} AS n FROM events GROUP BY day`)
      .all(p) as { day: bigint; n: bigint }[];
    const total = this.core
      .sql(`WITH events(day, item, amount) AS (${events}) SELECT coalesce(${value}, 0) AS n FROM events`)
      .get(p) as { n: bigint };
    return { days: new Map(rows.map((r) => [int(r.day), int(r.n)])), total: int(total.n) };
  }

  /** Languages of the posts written here (or, with a domain, on that server; with a tag, using it) in [from, to). */
  languages(from: number, to: number, limit: number, where: { domain?: string; tagId?: string } = {}): RankedRow[] {
    const scope = where.domain
      ? 'a.domain = @domain'
      : where.tagId
        ? 's.id IN (SELECT status_id FROM statuses_tags WHERE tag_id = @tag)'
        : 'a.domain IS NULL';
    return this.ranked(
      `SELECT s.language AS key, COUNT(*) AS value FROM statuses s JOIN accounts a ON a.id = s.account_id
       WHERE ${scope} AND s.language IS NOT NULL AND s.reblog_of_id IS NULL AND s.deleted_at IS NULL AND s.created_at >= @from AND s.created_at < @to
       GROUP BY s.language ORDER BY value DESC, key LIMIT @limit`,
      { from, to, limit, domain: where.domain ?? null, tag: where.tagId ?? null },
    );
  }

  /** The apps local posts were written with in [from, to). */
  sources(from: number, to: number, limit: number): RankedRow[] {
    return this.ranked(
      `SELECT app.name AS key, COUNT(*) AS value FROM statuses s JOIN oauth_applications app ON app.id = s.application_id
       WHERE s.local = 1 AND s.reblog_of_id IS NULL AND s.created_at >= @from AND s.created_at < @to
       GROUP BY app.id ORDER BY value DESC, key LIMIT @limit`,
      { from, to, limit },
    );
  }

  /** Servers whose posts arrived most in [from, to) (those using a tag, with one). */
  servers(from: number, to: number, limit: number, tagId?: string): RankedRow[] {
    const tagged = tagId ? 'AND s.id IN (SELECT status_id FROM statuses_tags WHERE tag_id = @tag)' : '';
    return this.ranked(
      `SELECT a.domain AS key, COUNT(*) AS value FROM statuses s JOIN accounts a ON a.id = s.account_id
       WHERE a.domain IS NOT NULL AND s.created_at >= @from AND s.created_at < @to ${tagged}
       GROUP BY a.domain ORDER BY value DESC, key LIMIT @limit`,
      { from, to, limit, tag: tagId ?? null },
    );
  }

  /** The accounts of a server most followed from here. */
  followedAccounts(domain: string, limit: number): RankedRow[] {
    return this.ranked(
      `SELECT a.username || '@' || a.domain AS key, COUNT(*) AS value FROM follows f JOIN accounts a ON a.id = f.target_account_id
       WHERE a.domain = @domain AND ${LOCAL('f.account_id')} GROUP BY a.id ORDER BY value DESC, key LIMIT @limit`,
      { domain, limit },
    );
  }

  /** Bytes the database file holds, and the media files it records (uploads and cached remote media). */
  spaceUsage(): { database: number; media: number } {
    const pages = this.core.db.pragma('page_count', { simple: true });
    const size = this.core.db.pragma('page_size', { simple: true });
    const media = this.core.sql('SELECT coalesce(SUM(file_size), 0) AS n FROM media_attachments').get() as {
      n: bigint;
    };
    return { database: Number(pages) * Number(size), media: int(media.n) };
  }

  sqliteVersion(): string {
    return str((this.core.sql('SELECT sqlite_version() AS v').get() as { v: string }).v);
  }

  /** Local users who signed up in [from, to), with their sign-up time. */
  signUps(from: number, to: number): { accountId: string; createdAt: number }[] {
    const rows = this.core
      .sql('SELECT account_id, created_at FROM users WHERE created_at >= ? AND created_at < ?')
      .all(from, to) as { account_id: bigint; created_at: bigint }[];
    return rows.map((r) => ({ accountId: str(r.account_id), createdAt: int(r.created_at) }));
  }

  /** The UTC days in [from, to) each of these local accounts was active on (as active_users counts). */
  activeDays(accountIds: readonly string[], from: number, to: number): Map<string, Set<number>> {
    const result = new Map<string, Set<number>>();
    if (accountIds.length === 0) return result;
    const rows = this.core
      .sql(
        `WITH events(day, item, amount) AS (${MEASURES.active_users.events})
         SELECT DISTINCT day, item FROM events WHERE item IN (SELECT value FROM json_each(@ids))`,
      )
      .all({ from, to, ids: `[${accountIds.join(',')}]` }) as { day: bigint; item: bigint }[];
    for (const r of rows) {
      const id = str(r.item);
      let days = result.get(id);
      if (!days) result.set(id, (days = new Set()));
      days.add(int(r.day));
    }
    return result;
  }

  private ranked(sql: string, params: Record<string, unknown>): RankedRow[] {
    const rows = this.core.sql(sql).all(params) as { key: unknown; value: bigint }[];
    return rows.map((r) => ({ key: String(r.key), value: int(r.value) }));
  }
}
