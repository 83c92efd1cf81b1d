import { afterAll, describe, expect, it } from 'vitest';
import { planOf as planOfIn, statementsOf } from '../../db/testing/index.ts';
import { temporaryStore } from '../testing/store.ts';
import type { ViewerScope } from './readable-sql.ts';

/*
 * The listings and reading checks write their parameters out of the planner's sight (`+@name`): SQLite
 * compiles a statement again at each run when the planner looked at a parameter's value, which was half a
 * timeline page's listing. The plans must stay those of the plain text, whatever the filters and cursors.
 */

const { db, store, remove } = temporaryStore('timelines');

afterAll(remove);

const planOf = (sql: string, params: unknown) => planOfIn(db, sql, params);

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
    const statements = statementsOf(db, () => {
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

  it('walk an account’s live posts only on profile and list pages, not its deleted ones (statuses_account_live)', () => {
    const statements = statementsOf(db, () => {
      for (const scope of scopes) {
        store.timelines.account(scope, '1001', {}, { limit: 20 });
        store.timelines.account(scope, '1001', { excludeReplies: true, onlyMedia: true }, { limit: 20 });
        store.timelines.list(scope, { id: '7', repliesPolicy: 'list' }, { limit: 20 });
      }
    });
    const walks = statements.filter(({ sql }) =>
      /s\.account_id = \+@account|JOIN statuses s ON s\.account_id/.test(sql),
    );
    expect(walks.length).toBeGreaterThan(0);
    for (const { sql, params } of walks) expect(planOf(sql, params).join('\n'), sql).toContain('statuses_account_live');
  });

  it('list one hashtag’s statuses from the public statuses’ covering index, not their scattered table rows', () => {
    // A store of its own: the statements are watched as they are prepared, and the first test prepared these.
    const own = temporaryStore('timelines-tag');
    try {
      const statements = statementsOf(own.db, () => {
        for (const scope of scopes)
          for (const page of pages)
            own.store.timelines.tag(scope, { anyTagIds: ['3'], allTagIds: [], noneTagIds: [] }, page);
      });
      const listings = statements.filter(({ sql }) => sql.includes('FROM statuses_tags st'));
      expect(listings.length).toBeGreaterThan(scopes.length);
      for (const { sql, params } of listings)
        expect(planOfIn(own.db, sql, params).join('\n'), sql).toMatch(
          /SEARCH s USING COVERING INDEX statuses_public_listing \(id=\?\)/,
        );
    } finally {
      own.remove();
    }
  });
});
