import type BetterSqlite3 from 'better-sqlite3';
import type { Database } from '../../db/index.ts';

/*
 * Counters of a connection's writes, kept in memory: all of them (watchWrites), or those to chosen tables
 * (watchTableWrites, by temporary triggers). The store's stamps are made of them and SQLite's data_version.
 */

type Statement = BetterSqlite3.Statement<unknown[]>;

/** A connection's counter under `key`, made and watched by `watch` the first time (one per connection, shared by its stores). */
const connectionCounters = new WeakMap<Database, Map<string, { count: number }>>();
function counterOf(db: Database, key: string, watch: (counter: { count: number }) => void): { count: number } {
  let counters = connectionCounters.get(db);
  if (!counters) connectionCounters.set(db, (counters = new Map()));
  let counter = counters.get(key);
  if (!counter) {
    counters.set(key, (counter = { count: 0 }));
    watch(counter);
  }
  return counter;
}

/**
 * Counts the writes run on a connection, whoever prepares them (the store, the federation queue, write
 * groups): a statement that may write (not read-only to SQLite) adds the rows it changed, or one when run
 * as a read (RETURNING) or when it fails; `exec` adds one. What `SELECT total_changes()` told, kept in memory
 * instead of asked per stamp; a count that moves without a change only empties caches sooner.
 */
export function watchWrites(db: Database): { count: number } {
  return counterOf(db, 'writes', (counter) => {
    const prepare = db.prepare.bind(db);
    db.prepare = ((source: string) => {
      const statement = prepare(source);
      if (!statement.readonly) countWrites(statement, counter);
      return statement;
    }) as typeof db.prepare;
    const exec = db.exec.bind(db);
    db.exec = (source: string) => {
      counter.count++;
      return exec(source);
    };
  });
}

function countWrites(statement: Statement, counter: { count: number }): void {
  const methods = statement as unknown as Record<'run' | 'get' | 'all' | 'iterate', (...params: unknown[]) => unknown>;
  const run = methods.run.bind(statement);
  methods.run = (...params) => {
    let changes = 1;
    try {
      const info = run(...params) as BetterSqlite3.RunResult;
      changes = info.changes;
      return info;
    } finally {
      counter.count += changes;
    }
  };
  for (const method of ['get', 'all', 'iterate'] as const) {
    const read = methods[method].bind(statement);
    methods[method] = (...params) => {
      counter.count++;
      return read(...params);
    };
  }
}

type WriteOperation = 'INSERT' | 'UPDATE' | 'DELETE';

/**
 * Temporary triggers (this connection's only) named `name` that count every insert, update and delete of the
 * given tables' rows (those meeting a table's condition for the operation, when it has one). A write rolled
 * back later still counts: a cache keyed on the count is only ever emptied too often, never too rarely.
 */
export function watchTableWrites(
  db: Database,
  name: string,
  tables: Record<string, Partial<Record<WriteOperation, string>>>,
): { count: number } {
  return counterOf(db, `${name} rows`, (counter) => {
    db.function(`homeport_${name}_written`, { deterministic: false }, () => {
      counter.count++;
      return null;
    });
    for (const [table, conditions] of Object.entries(tables))
      for (const op of ['INSERT', 'UPDATE', 'DELETE'] as const)
        db.exec(
          `CREATE TEMP TRIGGER IF NOT EXISTS ${name}_written_${table}_${op} AFTER ${op} ON main.${table} ${conditions[op] ?? ''}
           BEGIN SELECT homeport_${name}_written(); END`,
        );
  });
}

/** The rows a principal is made of: access tokens, applications, users and local accounts. */
export function watchCredentialWrites(db: Database): { count: number } {
  const local = {
    INSERT: 'WHEN NEW.domain IS NULL',
    UPDATE: 'WHEN OLD.domain IS NULL OR NEW.domain IS NULL',
    DELETE: 'WHEN OLD.domain IS NULL',
  };
  return watchTableWrites(db, 'credential', {
    oauth_access_tokens: {},
    oauth_applications: {},
    users: {},
    accounts: local,
  });
}
