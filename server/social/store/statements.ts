import type BetterSqlite3 from 'better-sqlite3';
import { type Database, valuesUnseenByPlanner } from '../../db/index.ts';

/**
 * A statement compiler that compiles each SQL text once: the queue and the key-value store run the same few
 * statements for every delivery and inbox activity, and compiling them each time was a tenth of the
 * federation benchmark's CPU. Parameters as StoreCore.sql writes them (unseen by the planner).
 */
export function statementsOf(db: Database): (sql: string) => BetterSqlite3.Statement {
  const compiled = new Map<string, BetterSqlite3.Statement>();
  return (sql) => {
    let statement = compiled.get(sql);
    if (!statement) {
      statement = db.prepare(valuesUnseenByPlanner(sql));
      compiled.set(sql, statement);
    }
    return statement;
  };
}

/**
 * Where the federation queue and key-value store put their writes: the social store's group commit on the
 * server (StoreCore: an inbound activity's enqueue, its handling and its deletion share the commits of the
 * turns they fall in, instead of one commit and fsync each), else a transaction of their own.
 */
export interface SharedWrites {
  transaction<T>(fn: () => T): T;
  /** Resolves once everything written so far is on disk. */
  durable(): Promise<void>;
}

/** Each write its own transaction, on disk once it returns (the store alone, tests). */
export function ownTransactions(db: Database): SharedWrites {
  return { transaction: (fn) => db.transaction(fn)(), durable: () => Promise.resolve() };
}
