import type { TagRow } from './search.ts';
import { cursorWhere, finishPage, int, intOrNull, str, type PageQuery, type StoreCore } from './store.ts';

export interface FeaturedTagRow {
  id: string;
  tag: TagRow;
  statusesCount: number;
  lastStatusAt: number | null;
}

function toTag(r: Record<string, unknown>): TagRow {
  return { id: str(r.tag_id ?? r.id), name: String(r.name), displayName: String(r.display_name ?? r.name) };
}

/** Hashtags people follow (their posts come into home) and feature on their profiles. */
export class TagRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  byName(name: string): TagRow | null {
    const r = this.core
      .sql('SELECT id, name, display_name FROM tags WHERE name = lower(?)')
      .get(name.replace(/^#/, '')) as Record<string, unknown> | undefined;
    return r ? toTag(r) : null;
  }

  byId(id: string): TagRow | null {
    const r = this.core.sql('SELECT id, name, display_name FROM tags WHERE id = ?').get(id) as
      | Record<string, unknown>
      | undefined;
    return r ? toTag(r) : null;
  }

  /** Every tag, newest first, cursor-paged by id (staff's list). */
  page(page: PageQuery): TagRow[] {
    const c = cursorWhere('id', page);
    const rows = this.core
      .sql(`SELECT id, name, display_name FROM tags WHERE ${c.where} ORDER BY id ${c.order} LIMIT @cursor_limit`)
      .all(c.params) as Record<string, unknown>[];
    return finishPage(rows.map(toTag), page);
  }

  /** Staff's review: how the name is written (same letters), and whether it may trend, be linked and be listed. */
  review(
    id: string,
    changes: { displayName?: string; trendable?: boolean; usable?: boolean; listable?: boolean },
  ): void {
    const flag = (v: boolean | undefined) => (v === undefined ? null : v ? 1 : 0);
    this.core
      .sql(
        `UPDATE tags SET display_name = coalesce(@display, display_name), trendable = coalesce(@trendable, trendable),
           usable = coalesce(@usable, usable), listable = coalesce(@listable, listable), updated_at = @now WHERE id = @id`,
      )
      .run({
        id,
        display: changes.displayName ?? null,
        trendable: flag(changes.trendable),
        usable: flag(changes.usable),
        listable: flag(changes.listable),
        now: this.core.now(),
      });
  }

  // ---- following

  follow(accountId: string, tagId: string): void {
    this.core
      .sql('INSERT OR IGNORE INTO tag_follows (id, account_id, tag_id, created_at) VALUES (?, ?, ?, ?)')
      .run(this.core.ids.next(), accountId, tagId, this.core.now());
  }

  unfollow(accountId: string, tagId: string): void {
    this.core.sql('DELETE FROM tag_follows WHERE account_id = ? AND tag_id = ?').run(accountId, tagId);
  }

  followedAmong(accountId: string, tagIds: readonly string[]): Set<string> {
    if (tagIds.length === 0) return new Set();
    const rows = this.core
      .sql('SELECT tag_id FROM tag_follows WHERE account_id = ? AND tag_id IN (SELECT value FROM json_each(?))')
      .all(accountId, `[${tagIds.join(',')}]`) as { tag_id: bigint }[];
    return new Set(rows.map((r) => str(r.tag_id)));
  }

  /** Which of these tags the account features on its profile. */
  featuredAmong(accountId: string, tagIds: readonly string[]): Set<string> {
    if (tagIds.length === 0) return new Set();
    const rows = this.core
      .sql('SELECT tag_id FROM featured_tags WHERE account_id = ? AND tag_id IN (SELECT value FROM json_each(?))')
      .all(accountId, `[${tagIds.join(',')}]`) as { tag_id: bigint }[];
    return new Set(rows.map((r) => str(r.tag_id)));
  }

  /** The tags an account follows, newest follow first (cursor: the follow's id). */
  followed(accountId: string, page: PageQuery): { cursor: string; tag: TagRow }[] {
    const c = cursorWhere('f.id', page);
    const rows = this.core
      .sql(
        `SELECT f.id AS cursor, t.id AS tag_id, t.name, t.display_name FROM tag_follows f JOIN tags t ON t.id = f.tag_id WHERE f.account_id = @account AND ${c.where} ORDER BY f.id ${c.order} LIMIT @cursor_limit`,
      )
      .all({ account: accountId, ...c.params }) as Record<string, unknown>[];
    return finishPage(
      rows.map((r) => ({ cursor: str(r.cursor), tag: toTag(r) })),
      page,
    );
  }

  // ---- featuring

  private featuredRows(accountId: string, where = '1'): FeaturedTagRow[] {
    const rows = this.core
      .sql(
        `SELECT ft.id, t.id AS tag_id, t.name, t.display_name,
           (SELECT COUNT(*) FROM statuses_tags st JOIN statuses s ON s.id = st.status_id
              WHERE st.tag_id = t.id AND s.account_id = ft.account_id AND s.deleted_at IS NULL AND s.visibility IN ('public', 'unlisted')) AS statuses_count,
           (SELECT MAX(s.created_at) FROM statuses_tags st JOIN statuses s ON s.id = st.status_id
              WHERE st.tag_id = t.id AND s.account_id = ft.account_id AND s.deleted_at IS NULL AND s.visibility IN ('public', 'unlisted')) AS last_status_at
         FROM featured_tags ft JOIN tags t ON t.id = ft.tag_id WHERE ft.account_id = @account AND ${where} ORDER BY ft.id`,
      )
      .all({ account: accountId }) as Record<string, unknown>[];
    return rows.map((r) => ({
      id: str(r.id),
      tag: toTag(r),
      statusesCount: int(r.statuses_count),
      lastStatusAt: intOrNull(r.last_status_at),
    }));
  }

  featured(accountId: string): FeaturedTagRow[] {
    return this.featuredRows(accountId);
  }

  feature(accountId: string, tagId: string): FeaturedTagRow {
    this.core
      .sql('INSERT OR IGNORE INTO featured_tags (id, account_id, tag_id, created_at) VALUES (?, ?, ?, ?)')
      .run(this.core.ids.next(), accountId, tagId, this.core.now());
    return this.featuredRows(accountId).find((f) => f.tag.id === tagId)!;
  }

  featuredById(accountId: string, id: string): FeaturedTagRow | null {
    return this.featuredRows(accountId).find((f) => f.id === id) ?? null;
  }

  unfeature(accountId: string, tagId: string): void {
    this.core.sql('DELETE FROM featured_tags WHERE account_id = ? AND tag_id = ?').run(accountId, tagId);
  }

  /** Tags the account used lately and does not feature yet (featured tag suggestions). */
  recentlyUsed(accountId: string, limit: number): TagRow[] {
    const rows = this.core
      .sql(
        `SELECT t.id AS tag_id, t.name, t.display_name, MAX(s.id) AS latest FROM statuses s JOIN statuses_tags st ON st.status_id = s.id JOIN tags t ON t.id = st.tag_id
         WHERE s.account_id = ? AND s.deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM featured_tags ft WHERE ft.account_id = s.account_id AND ft.tag_id = t.id)
         GROUP BY t.id ORDER BY latest DESC LIMIT ?`,
      )
      .all(accountId, limit) as Record<string, unknown>[];
    return rows.map(toTag);
  }
}
