/** Test support for checking a database's statements: which are prepared, with what, and how SQLite plans them. */
import type { Database } from '../open.ts';
import { valuesUnseenByPlanner } from '../unseen-values.ts';

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

/** The statements `run` (asynchronous) prepares on `db` and the parameters of their first run. */
export async function statementsWhile(db: Database, run: () => Promise<void>): Promise<PreparedStatement[]> {
  const watch = watchStatements(db);
  try {
    await run();
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

/** The plain text of a statement valuesUnseenByPlanner rewrote: each parameter as it was written. */
export function asWritten(sql: string): string {
  return sql.replace(/\+(\?\d*|[@:$]\w+)/g, '$1');
}

/** The texts of statements binding a parameter the planner reads (valuesUnseenByPlanner would rewrite them). */
export function bareStatements(statements: PreparedStatement[]): string[] {
  return statements.filter((s) => valuesUnseenByPlanner(s.sql) !== s.sql).map((s) => s.sql);
}

/** The statements that SQLite plans otherwise than their plain text (asWritten) with the same values bound. */
export function plannedOtherwise(
  db: Database,
  statements: PreparedStatement[],
): { sql: string; planned: string[]; plain: string[] }[] {
  return statements
    .filter((s) => s.params !== undefined && /^\s*(SELECT|WITH|UPDATE|DELETE|INSERT)/i.test(s.sql))
    .map((s) => ({ sql: s.sql, planned: planOf(db, s.sql, s.params), plain: planOf(db, asWritten(s.sql), s.params) }))
    .filter((s) => JSON.stringify(s.planned) !== JSON.stringify(s.plain));
}
