import type { SqlValue } from './row-values.ts';

/** Cursor parameters of a paginated list; ids are decimal strings. */
export interface PageQuery {
  maxId?: string;
  sinceId?: string;
  minId?: string;
  limit: number;
}

/**
 * SQL for Mastodon cursor pagination over `column`. min_id pages forward (ascending, then reversed by
 * the caller via `finishPage`); max_id and since_id page backward from the newest.
 */
export function cursorWhere(
  column: string,
  page: PageQuery,
): { where: string; order: 'ASC' | 'DESC'; params: Record<string, SqlValue> } {
  const parts: string[] = [];
  const params: Record<string, SqlValue> = {};
  if (page.maxId !== undefined) {
    parts.push(`${column} < @cursor_max`);
    params.cursor_max = page.maxId;
  }
  if (page.sinceId !== undefined) {
    parts.push(`${column} > @cursor_since`);
    params.cursor_since = page.sinceId;
  }
  if (page.minId !== undefined) {
    parts.push(`${column} > @cursor_min`);
    params.cursor_min = page.minId;
  }
  params.cursor_limit = page.limit;
  return { where: parts.length ? parts.join(' AND ') : '1', order: page.minId !== undefined ? 'ASC' : 'DESC', params };
}

/** Rows come back newest first whatever the direction of the query. */
export function finishPage<T>(rows: T[], page: PageQuery): T[] {
  return page.minId !== undefined ? rows.reverse() : rows;
}
