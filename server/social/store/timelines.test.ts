import { afterAll, describe, expect, it } from 'vitest';
import { temporaryStore } from '../testing/store.ts';
import type { ViewerScope } from './readable-sql.ts';

/*
 * The listings and reading checks write their parameters out of the planner's sight (`+@name`): SQLite
 * compiles a statement again at each run when the planner looked at a parameter's value, which was half a
 * timeline page's listing. The plans must stay those of the plain text, whatever the filters and cursors.
 */

const { db, store, remove } = temporaryStore('timelines');

afterAll(remove);

/** The statements `run` prepares and the parameters of their first run. */
function statementsOf(run: () => void): { sql: string; params: unknown }[] {
  const seen: { sql: string; params: unknown }[] = [];
  const prepare = db.prepare;
  db.prepare = ((sql: string) => {
    const statement = prepare.call(db, sql);
    const methods = statement as unknown as Record<'all' | 'get', (...params: unknown[]) => unknown>;
    for (const method of ['all', 'get'] as const) {
      const original = methods[method].bind(statement);
      methods[method] = (...params: unknown[]) => {
        if (!seen.some((s) => s.sql === sql)) seen.push({ sql, params: params[0] });
        return original(...params);
      };
    }
    return statement;
  }) as typeof db.prepare;
  try {
    run();
  } finally {
    db.prepare = prepare;
  }
  return seen;
}

const planOf = (sql: string, params: unknown) =>
  (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params ?? {}) as { detail: string }[]).map((r) => r.detail);

const viewer = '1000';
const scopes: ViewerScope[] = [
  { viewerId: viewer, blocks: false, mutes: false, domainBlocks: false, unavailableAccounts: false },
  { viewerId: viewer, blocks: true, mutes: true, domainBlocks: true, exclusiveLists: true, unavailableAccounts: true },
  { viewerId: null, blocks: false, mutes: false, domainBlocks: false },
];
const pages = [{ limit: 20 }, { limit: 40, maxId: '900' }, { limit: 20, minId: '5' }, { limit: 20, sinceId: '5' }];

describe('timeline listings', () => {
  it('bind no parameter the planner reads, and keep the plain text plans', () => {
    const { timelines, linkTimeline } = store;
    const statements = statementsOf(() => {
      for (const scope of scopes)
        for (const page of pages) {
          timelines.home(scope, page);
          timelines.list(scope, { id: '7', repliesPolicy: 'list' }, page);
          timelines.public(scope, {}, page);
          timelines.public(scope, { local: true, onlyMedia: true }, page);
          timelines.tag(scope, { anyTagIds: ['3'], allTagIds: [], noneTagIds: [] }, page);
          timelines.tag(scope, { anyTagIds: ['3', '4'], allTagIds: ['5'], noneTagIds: ['6'], remote: true }, page);
          timelines.account(scope, '1001', {}, page);
          timelines.account(
            scope,
            '1001',
            { pinned: true, excludeReplies: true, onlyMedia: true, taggedId: '3' },
            page,
          );
          timelines.marked('favourites', scope, page);
          timelines.marked('bookmarks', scope, page);
          linkTimeline.statuses(scope, '8', page);
          timelines.readableIds(scope, ['1', '2']);
        }
      timelines.readable(viewer, '1');
      timelines.audience('1', [viewer, '1001']);
    });
    const checked = statements.filter((s) => s.sql.includes('@'));
    expect(checked.length).toBeGreaterThan(20);
    for (const { sql, params } of checked) {
      expect(sql.match(/(?<![+\w])@\w+/g), sql).toBeNull();
      expect(planOf(sql, params), sql).toEqual(planOf(sql.replaceAll('+@', '@'), params));
    }
  });
});
