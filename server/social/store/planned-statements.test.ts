import { afterAll, describe, expect, it } from 'vitest';
import { planOf, statementsOf } from '../../db/testing/index.ts';
import { temporaryStore } from '../testing/store.ts';

/*
 * Statements run for every post or inbound activity that SQLite compiled again at every run when their parameters
 * were written bare (StoreCore.sql): a new post's joins (its followers, its tags' followers, the lists and Web
 * Push subscriptions of its author, its remote audience: 5 of a post's ~58 statements; a boost's insert into its
 * author's feed), an inbound post's check for a local follower and a home page's next mute expiry. The plans must
 * stay those of the plain text.
 */

const { db, store, remove } = temporaryStore('planned-statements');

/** Every statement `run` prepares that binds a parameter binds none the planner reads, and plans as written bare. */
function expectPlannedAlike(statements: { sql: string; params: unknown }[]): void {
  for (const { sql, params } of statements) {
    expect(sql.match(/(?<![+\w])(@\w+|\?)/g), sql).toBeNull();
    expect(planOf(db, sql, params), sql).toEqual(planOf(db, sql.replace(/\+(@\w+|\?)/g, '$1'), params));
  }
}

afterAll(remove);

describe("a post's fan-out statements", () => {
  it('bind no parameter the planner reads, and keep the plain text plans', () => {
    const statements = statementsOf(db, () => {
      for (const d of [
        { reblogOfId: null, isReply: false, language: null, toFollowers: true },
        { reblogOfId: '9', isReply: false, language: null, toFollowers: true },
        { reblogOfId: null, isReply: true, language: 'en', toFollowers: true },
        { reblogOfId: null, isReply: false, language: 'en', toFollowers: false },
      ])
        store.feeds.distribute({
          statusId: '100',
          authorId: '1',
          inReplyToAccountId: d.isReply ? '2' : null,
          mentionedIds: ['3'],
          ...d,
        });
      store.feeds.distributeToTagFollowers({ id: '100', accountId: '1', visibility: 'public', reblogOfId: null });
      store.lists.withMember('1');
      store.push.ofAccount('1');
      store.federation.remoteFollowers('1');
      store.federation.statusReach('100');
      store.federation.knownInboxes();
      store.federation.remoteRecipients(['2', '3']);
    });
    const joins = statements.filter((s) => / JOIN | EXISTS /.test(s.sql) && /[@?]/.test(s.sql));
    expect(joins.length).toBeGreaterThanOrEqual(10);
    expectPlannedAlike(joins);
  });
});

describe("an inbound post's and a home page's checks", () => {
  it('bind no parameter the planner reads, and keep the plain text plans', () => {
    const statements = statementsOf(db, () => {
      store.federation.hasLocalFollower('1');
      store.timelines.nextMuteExpiry('1');
    });
    expect(statements).toHaveLength(2);
    expectPlannedAlike(statements);
  });
});
