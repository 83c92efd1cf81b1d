import type BetterSqlite3 from 'better-sqlite3';
import type { Database } from '../../db/index.ts';

/**
 * A statement compiler that compiles each SQL text once: the queue and the key-value store run the same few
 * statements for every delivery and inbox activity, and compiling them each time was a tenth of the
 * federation benchmark's CPU.
 */
export function statementsOf(db: Database): (sql: string) => BetterSqlite3.Statement {
  const compiled = new Map<string, BetterSqlite3.Statement>();
  return (sql) => {
    let statement = compiled.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      compiled.set(sql, statement);
    }
    return statement;
  };
}
