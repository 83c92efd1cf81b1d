import { htmlToText } from '../text/index.ts';
import { snowflakeLowerBound } from '../ids.ts';
import { int, jsonIds, str, type StoreCore } from './store.ts';

/** The words a status is found by: its content warning and its text (a remote status's, from its HTML). */
export function searchableText(spoilerText: string, text: string, content: string): string {
  return `${spoilerText} ${text || htmlToText(content)}`.trim();
}

/**
 * Puts a status's words in the index, replacing what an earlier version left (called by the status repository's
 * writes). A status just inserted has no earlier version (`isNew`): its id was never used, so nothing is looked up.
 */
export function indexStatusWords(
  core: StoreCore,
  statusId: string,
  parts: { spoilerText: string; text: string; content: string },
  isNew = false,
): void {
  if (!isNew) core.sql('DELETE FROM statuses_fts WHERE rowid = ?').run(statusId);
  core
    .sql('INSERT INTO statuses_fts (rowid, body) VALUES (?, ?)')
    .run(statusId, searchableText(parts.spoilerText, parts.text, parts.content));
}

/** A user's words as an FTS5 query: every word must appear, each taken literally (no operators). */
function ftsQuery(q: string): string | null {
  const words = q.split(/\s+/).filter(Boolean).slice(0, 16);
  if (words.length === 0) return null;
  return words.map((w) => `"${w.replace(/"/g, '""')}"`).join(' ');
}

export interface TagRow {
  id: string;
  name: string;
  displayName: string;
}

export interface TagDay {
  /** Midnight UTC, ms. */
  day: number;
  uses: number;
  accounts: number;
}

export const DAY_MS = 24 * 60 * 60 * 1000;

/** One row of a per-day count: an id (tag, card…), a day's midnight (ms), its uses and distinct accounts. */
export interface DayCount {
  id: bigint;
  day: bigint;
  uses: bigint;
  accounts: bigint;
}

/**
 * Seven days of use of each id, today first (Mastodon's Trends::History, as tags and links show it), from the
 * rows `count` gives for the days since its argument (missing days count zero).
 */
export function weekOfUse(
  now: number,
  ids: readonly string[],
  count: (since: number) => DayCount[],
): Map<string, TagDay[]> {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const result = new Map<string, TagDay[]>();
  for (const id of ids)
    result.set(
      id,
      Array.from({ length: 7 }, (_, i) => ({ day: today - i * DAY_MS, uses: 0, accounts: 0 })),
    );
  if (ids.length === 0) return result;
  for (const r of count(today - 6 * DAY_MS)) {
    const entry = result.get(str(r.id))?.find((d) => d.day === int(r.day));
    if (entry) {
      entry.uses = int(r.uses);
      entry.accounts = int(r.accounts);
    }
  }
  return result;
}

/** Full-text search over statuses and the tag lookups of /api/v2/search. */
export class SearchRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  /**
   * Statuses matching `q` among those Mastodon lets a user search: their own, and those they favourited,
   * bookmarked or were mentioned in; newest first, by id bounds and offset.
   */
  statusIds(
    viewerId: string,
    q: string,
    options: { accountId?: string; maxId?: string; minId?: string; limit: number; offset: number },
  ): string[] {
    const match = ftsQuery(q);
    if (!match) return [];
    const rows = this.core
      .sql(
        `SELECT s.id FROM statuses_fts f JOIN statuses s ON s.id = f.rowid
         WHERE statuses_fts MATCH @match AND s.deleted_at IS NULL
           AND (@account IS NULL OR s.account_id = @account)
           AND (@max IS NULL OR s.id < @max) AND (@min IS NULL OR s.id > @min)
           AND (s.account_id = @viewer
             OR EXISTS (SELECT 1 FROM favourites x WHERE x.account_id = @viewer AND x.status_id = s.id)
             OR EXISTS (SELECT 1 FROM bookmarks x WHERE x.account_id = @viewer AND x.status_id = s.id)
             OR EXISTS (SELECT 1 FROM mentions x WHERE x.account_id = @viewer AND x.status_id = s.id))
         ORDER BY s.id DESC LIMIT @limit OFFSET @offset`,
      )
      .all({
        match,
        viewer: viewerId,
        account: options.accountId ?? null,
        max: options.maxId ?? null,
        min: options.minId ?? null,
        limit: options.limit,
        offset: options.offset,
      }) as { id: bigint }[];
    return rows.map((r) => str(r.id));
  }

  /** Tags by name: the exact one first, then those starting with `q`, most recently used first. */
  tags(q: string, options: { exact: boolean; limit: number; offset: number; reviewedOnly?: boolean }): TagRow[] {
    const name = q.replace(/^#/, '').toLowerCase();
    if (!/^[\p{L}\p{N}_\p{M}·]+$/u.test(name)) return [];
    const prefix = `${name.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const rows = this.core
      .sql(
        `SELECT id, name, coalesce(display_name, name) AS display FROM tags
         WHERE (listable IS NULL OR listable = 1) AND (usable IS NULL OR usable = 1) AND (@reviewed = 0 OR listable = 1)
           AND (name = @name OR (@exact = 0 AND name LIKE @prefix ESCAPE '\\'))
         ORDER BY name = @name DESC, last_status_at DESC NULLS LAST, name LIMIT @limit OFFSET @offset`,
      )
      .all({
        name,
        prefix,
        exact: options.exact ? 1 : 0,
        reviewed: options.reviewedOnly ? 1 : 0,
        limit: options.limit,
        offset: options.offset,
      }) as { id: bigint; name: string; display: string }[];
    return rows.map((r) => ({ id: str(r.id), name: r.name, displayName: r.display }));
  }

  /** Uses of each tag on each of the last seven days (today first), counted by status and by distinct account. */
  tagHistory(tagIds: readonly string[]): Map<string, TagDay[]> {
    return weekOfUse(
      this.core.now(),
      tagIds,
      (since) =>
        this.core
          .sql(
            `SELECT st.tag_id AS id, (s.created_at / ${DAY_MS}) * ${DAY_MS} AS day, COUNT(*) AS uses, COUNT(DISTINCT s.account_id) AS accounts
           FROM statuses_tags st JOIN statuses s ON s.id = st.status_id
           WHERE st.tag_id IN (SELECT value FROM json_each(@tags)) AND st.status_id >= @since_id AND s.deleted_at IS NULL AND s.created_at >= @since
           GROUP BY st.tag_id, day`,
          )
          .all({ tags: jsonIds(tagIds), since_id: snowflakeLowerBound(since), since }) as DayCount[],
    );
  }
}
