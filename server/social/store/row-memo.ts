import type { Database } from '../../db/index.ts';
import { StampMemo } from './stamp-memo.ts';
import type { StoreCore } from './store.ts';

/** How the rows of one table feed a RowMemo's values. */
export interface RowSource {
  /** SQL of the keys of the values a row feeds, over `ROW` (the row before and after the write). */
  keys: readonly string[];
  /** Only rows meeting this condition (over `ROW`) feed a value. */
  when?: string;
  /** Inserting or deleting a row changes what every value is: all are forgotten. */
  rowsFeedAll?: true;
  /** An update meeting this condition (over OLD and NEW) changes what every value is: all are forgotten. */
  updateFeedsAll?: string;
}

type Listeners = Map<string, { forget: Set<StampMemo<unknown>> }>;
const connectionMemos = new WeakMap<Database, Listeners>();

/**
 * A StampMemo that keeps its values through writes to rows they are not read from: this connection's writes to
 * the source tables forget the values their rows feed (temporary triggers calling into the process, as each row
 * is written), anything another connection writes or a lost write group forgets every value (foreignStamp).
 * A write rolled back later has still forgotten its values: a value is only ever read again too often.
 */
export function rowMemo<V>(
  core: StoreCore,
  name: string,
  maxEntries: number,
  sources: Record<string, RowSource>,
): StampMemo<V> {
  const memo = new StampMemo<V>(core, maxEntries, () => core.foreignStamp());
  let listeners = connectionMemos.get(core.db);
  if (!listeners) connectionMemos.set(core.db, (listeners = new Map()));
  let entry = listeners.get(name);
  if (!entry) {
    const forget = new Set<StampMemo<unknown>>();
    listeners.set(name, (entry = { forget }));
    watchRows(core.db, name, sources, forget);
  }
  entry.forget.add(memo as StampMemo<unknown>);
  return memo;
}

function watchRows(db: Database, name: string, sources: Record<string, RowSource>, memos: Set<StampMemo<unknown>>) {
  const one = `homeport_memo_${name}_row`;
  const all = `homeport_memo_${name}_all`;
  db.function(one, { deterministic: false }, (key: unknown) => {
    if (key !== null) for (const memo of memos) memo.forget(String(key));
    return null;
  });
  db.function(all, { deterministic: false }, () => {
    for (const memo of memos) memo.forgetAll();
    return null;
  });
  const over = (sql: string, row: 'NEW' | 'OLD') => sql.replaceAll('ROW.', `${row}.`);
  for (const [table, source] of Object.entries(sources)) {
    const fed = (row: 'NEW' | 'OLD') =>
      source.keys
        .map((key) => `SELECT ${one}(${over(key, row)})${source.when ? ` WHERE ${over(source.when, row)}` : ''};`)
        .join(' ');
    const trigger = (op: string, body: string) =>
      db.exec(
        `CREATE TEMP TRIGGER IF NOT EXISTS memo_${name}_${table}_${op} AFTER ${op} ON main.${table} BEGIN ${body} END`,
      );
    trigger('INSERT', source.rowsFeedAll ? `SELECT ${all}();` : fed('NEW'));
    trigger('DELETE', source.rowsFeedAll ? `SELECT ${all}();` : fed('OLD'));
    const updateAll = source.updateFeedsAll ? `SELECT ${all}() WHERE ${source.updateFeedsAll};` : '';
    trigger('UPDATE', `${updateAll} ${fed('OLD')} ${fed('NEW')}`);
  }
}
