import type BetterSqlite3 from 'better-sqlite3';
import type { Database } from './open.ts';

/**
 * `sql` with every parameter written `+?`, `+?2` or `+@name` (also `:name`, `$name`): the same value (a unary plus
 * changes neither value nor affinity, and compiles to nothing) but one the planner cannot look into. SQLite 3.54
 * marks a parameter it read while planning (a bound LIMIT or OFFSET, an equality it weighs as a filter, a value
 * compared with a partial index's condition) and better-sqlite3 clears the bindings after every run, which expires
 * a statement with such a mark: each was parsed and planned anew at every run. Left bare: the patterns of LIKE,
 * GLOB, REGEXP and MATCH and their ESCAPE characters, whose value the planner needs to use an index, and a
 * parameter already behind a plus. String literals, quoted names and comments are copied as they are.
 * Hand-written: a tokenizer of SQLite's lexical forms only (no SQL library exposes a parameter rewrite).
 */
export function valuesUnseenByPlanner(sql: string): string {
  let out = '';
  let copied = 0;
  let previous = '';
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    const next = sql[i + 1];
    if (c === "'" || c === '"' || c === '`') {
      i = endOfQuoted(sql, i, c);
      previous = 'literal';
    } else if (c === '[') {
      i = endOf(sql, i + 1, ']');
      previous = 'literal';
    } else if (c === '-' && next === '-') {
      i = endOf(sql, i + 2, '\n');
    } else if (c === '/' && next === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else if (WORD_START.test(c)) {
      const start = i;
      while (i < sql.length && WORD_PART.test(sql[i])) i++;
      previous = sql.slice(start, i).toUpperCase();
    } else if (c === '?' || ((c === '@' || c === ':' || c === '$') && next !== undefined && WORD_PART.test(next))) {
      const start = i++;
      while (i < sql.length && WORD_PART.test(sql[i])) i++;
      if (previous !== '+' && !PATTERN_OPERATORS.has(previous)) {
        out += `${sql.slice(copied, start)}+`;
        copied = start;
      }
      previous = 'parameter';
    } else {
      if (!/\s/.test(c)) previous = c;
      i++;
    }
  }
  return out + sql.slice(copied);
}

/** `db.prepare` with every parameter of the SQL unseen by the planner (valuesUnseenByPlanner). */
export function preparingUnseen(db: Database): (sql: string) => BetterSqlite3.Statement {
  return (sql) => db.prepare(valuesUnseenByPlanner(sql));
}

const WORD_START = /[A-Za-z_\u0080-\uffff]/;
const WORD_PART = /[A-Za-z0-9_$\u0080-\uffff]/;
/** Operators whose right-hand value the planner reads to use an index (LIKE 'abc%' is a range of it). */
const PATTERN_OPERATORS = new Set(['LIKE', 'GLOB', 'REGEXP', 'MATCH', 'ESCAPE']);

/** The index after the quote closing the one at `start` (a doubled quote is part of the text). */
function endOfQuoted(sql: string, start: number, quote: string): number {
  let i = start + 1;
  for (;;) {
    const end = sql.indexOf(quote, i);
    if (end < 0) return sql.length;
    if (sql[end + 1] !== quote) return end + 1;
    i = end + 2;
  }
}

function endOf(sql: string, from: number, closing: string): number {
  const end = sql.indexOf(closing, from);
  return end < 0 ? sql.length : end + 1;
}
