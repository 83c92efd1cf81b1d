/** The stream browser's queries: streams by name, creation or update, and categories by size. */
import { type Database, valuesUnseenByPlanner } from '../../db/index.ts';
import type { StreamRow } from './statements.ts';
import type { StreamSummary } from './types.ts';

export interface StreamListing {
  prefix?: string;
  pattern?: string;
  orderBy: 'created' | 'updated' | 'name';
  limit: number;
  includeSystem: boolean;
}

export class StreamListings {
  private readonly db: Database;
  /** Statements by SQL text (a handful of filter/order combinations). */
  private readonly statements = new Map<string, ReturnType<Database['prepare']>>();
  private readonly categoriesStatement;

  constructor(db: Database) {
    this.db = db;
    this.categoriesStatement = db.prepare(
      valuesUnseenByPlanner('SELECT category, streams FROM stream_categories ORDER BY streams DESC, category LIMIT ?'),
    );
  }

  list(options: StreamListing): StreamSummary[] {
    const { sql, params } = listStreamsQuery(options);
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    const rows = statement.all(params) as (StreamRow & { stream_id: string; deleted: number })[];
    return rows.map((r) => ({
      streamId: r.stream_id,
      lastEventNumber: r.last_event_number,
      eventCount: r.event_count,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
      deleted: r.deleted === 2 ? 'hard' : r.deleted === 1 ? 'soft' : 'no',
    }));
  }

  /** SQLite's plan for the query `list` runs with these options (the browse tests check it uses an index). */
  explain(options: StreamListing): string {
    const { sql, params } = listStreamsQuery(options);
    return (this.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[])
      .map((r) => r.detail)
      .join('; ');
  }

  categories(limit: number): { category: string; streams: number }[] {
    return this.categoriesStatement.all(clampLimit(limit)) as { category: string; streams: number }[];
  }
}

function clampLimit(limit: number): number {
  return Math.max(0, Math.min(Math.trunc(limit) || 0, 10_000));
}

/** The smallest string greater than every string starting with `prefix`. */
function prefixUpperBound(prefix: string): string {
  return prefix + '\u{10FFFF}';
}

function listStreamsQuery(options: StreamListing): { sql: string; params: (string | number)[] } {
  const where: string[] = [];
  const params: (string | number)[] = [];
  if (options.prefix) {
    where.push('stream_id >= ?', 'stream_id < ?');
    params.push(options.prefix, prefixUpperBound(options.prefix));
  }
  if (options.pattern) {
    where.push(/[*?[]/.test(options.pattern) ? 'stream_id GLOB ?' : 'stream_id = ?');
    params.push(options.pattern);
  }
  if (!options.includeSystem) where.push("substr(stream_id, 1, 1) <> '$'");
  const order =
    options.orderBy === 'created'
      ? 'created_at DESC, stream_key DESC'
      : options.orderBy === 'updated'
        ? 'updated_at DESC, stream_key DESC'
        : 'stream_id';
  params.push(clampLimit(options.limit));
  const sql = valuesUnseenByPlanner(
    `SELECT stream_id, last_event_number, tombstoned, event_count, created_at, updated_at, deleted FROM streams ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ${order} LIMIT ?`,
  );
  return { sql, params };
}
