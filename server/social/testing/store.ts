import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Database, openDatabase } from '../../db/index.ts';
import { socialMigrations } from '../migrations/index.ts';
import { SocialStore } from '../store/index.ts';

/** A social store on a new database in a temporary directory (no server), and its removal. */
export function temporaryStore(name: string): { db: Database; store: SocialStore; remove: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `homeport-${name}-`));
  const db = openDatabase(path.join(dir, 'social.db'), { migrations: socialMigrations, synchronous: 'NORMAL' });
  return {
    db,
    store: new SocialStore(db),
    remove: () => {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The statements `run` prepares on `db` and the parameters of their first run (all, get or run). */
export function statementsOf(db: Database, run: () => void): PreparedStatement[] {
  const watch = watchStatements(db);
  try {
    run();
  } finally {
    watch.stop();
  }
  return watch.seen;
}

export interface PreparedStatement {
  sql: string;
  params: unknown;
}

/** Records the statements prepared on `db` from now until `stop` and the parameters of their first run. */
export function watchStatements(db: Database): { seen: PreparedStatement[]; stop: () => void } {
  const seen: PreparedStatement[] = [];
  const prepare = db.prepare;
  db.prepare = ((sql: string) => {
    const statement = prepare.call(db, sql);
    const methods = statement as unknown as Record<
      'all' | 'get' | 'run' | 'iterate',
      (...params: unknown[]) => unknown
    >;
    for (const method of ['all', 'get', 'run', 'iterate'] as const) {
      const original = methods[method].bind(statement);
      methods[method] = (...params: unknown[]) => {
        if (!seen.some((s) => s.sql === sql)) seen.push({ sql, params: params.length > 1 ? params : params[0] });
        return original(...params);
      };
    }
    return statement;
  }) as typeof db.prepare;
  return { seen, stop: () => (db.prepare = prepare) };
}

/** SQLite's query plan of `sql` with `params` (one object, one value, or a list of positional values). */
export function planOf(db: Database, sql: string, params: unknown): string[] {
  const args = params === undefined ? [] : Array.isArray(params) ? params : [params];
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail);
}
