import { snowflakeLowerBound } from '../ids.ts';
import type { TagRow } from './search.ts';
import { toStatus, type StatusRow } from './statuses.ts';
import { int, str, type StoreCore } from './store.ts';

/** How far back trends look: what many people used or shared in the last two days. */
const TREND_WINDOW_MS = 2 * 24 * 60 * 60 * 1000;

export interface TagUsage {
  tag: TagRow;
  accounts: number;
  uses: number;
  /** Whether staff allowed the tag to trend (null: not reviewed yet). */
  trendable: boolean | null;
}

/**
 * What is trending: hashtags many accounts used lately (only those staff allowed, as Mastodon's review) and
 * public posts many accounts favourited and reblogged lately, newest interest first.
 */
export class TrendRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  /** Tags used in public posts in the window, by distinct accounts then uses; `allowedOnly` for the public list. */
  tags(options: { allowedOnly: boolean; limit: number; offset: number }): TagUsage[] {
    const since = this.core.now() - TREND_WINDOW_MS;
    const rows = this.core
      .sql(
        `SELECT t.id, t.name, coalesce(t.display_name, t.name) AS display, t.trendable, COUNT(DISTINCT s.account_id) AS accounts, COUNT(*) AS uses
         FROM statuses_tags st JOIN statuses s ON s.id = st.status_id JOIN tags t ON t.id = st.tag_id
         WHERE st.status_id >= @since_id AND s.created_at >= @since AND s.deleted_at IS NULL AND s.visibility = 'public' AND s.reblog_of_id IS NULL
           AND (t.usable IS NULL OR t.usable = 1) AND (@allowed = 0 OR t.trendable = 1)
           AND NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = s.account_id AND (a.suspended_at IS NOT NULL OR a.silenced_at IS NOT NULL OR a.deleted_at IS NOT NULL))
         GROUP BY t.id ORDER BY accounts DESC, uses DESC, t.id DESC LIMIT @limit OFFSET @offset`,
      )
      .all({ since, since_id: snowflakeLowerBound(since), allowed: options.allowedOnly ? 1 : 0, limit: options.limit, offset: options.offset }) as Record<string, unknown>[];
    return rows.map((r) => ({
      tag: { id: str(r.id), name: String(r.name), displayName: String(r.display) },
      accounts: int(r.accounts),
      uses: int(r.uses),
      trendable: r.trendable === null ? null : int(r.trendable) === 1,
    }));
  }

  /** Staff's review of a tag: allowed to trend or not. */
  setTrendable(tagId: string, trendable: boolean): void {
    this.core.sql('UPDATE tags SET trendable = ?, updated_at = ? WHERE id = ?').run(trendable ? 1 : 0, this.core.now(), tagId);
  }

  /**
   * Public, unsensitive posts of discoverable accounts from the window that several accounts favourited or
   * reblogged, by interest (a reblog counts twice a favourite) fading with age.
   */
  statuses(options: { limit: number; offset: number }): StatusRow[] {
    const since = this.core.now() - TREND_WINDOW_MS;
    const rows = this.core
      .sql(
        `WITH interest(id, score) AS (
           SELECT status_id, SUM(w) FROM (
             SELECT f.status_id, 1 AS w FROM favourites f WHERE f.status_id >= @since_id AND f.created_at >= @since
             UNION ALL SELECT r.reblog_of_id, 2 FROM statuses r WHERE r.reblog_of_id >= @since_id AND r.created_at >= @since AND r.deleted_at IS NULL
           ) GROUP BY status_id HAVING SUM(w) >= 2)
         SELECT s.* FROM interest i JOIN statuses s ON s.id = i.id JOIN accounts a ON a.id = s.account_id
         WHERE s.deleted_at IS NULL AND s.visibility = 'public' AND s.sensitive = 0 AND s.spoiler_text = '' AND s.created_at >= @since
           AND a.discoverable = 1 AND a.suspended_at IS NULL AND a.silenced_at IS NULL AND a.deleted_at IS NULL
         ORDER BY i.score * 1.0 / (1 + (@now - s.created_at) / 3600000.0) DESC, s.id DESC LIMIT @limit OFFSET @offset`,
      )
      .all({ since, since_id: snowflakeLowerBound(since), now: this.core.now(), limit: options.limit, offset: options.offset }) as Record<string, unknown>[];
    return rows.map(toStatus);
  }
}
