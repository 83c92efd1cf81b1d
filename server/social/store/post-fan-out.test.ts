import { afterAll, describe, expect, it } from 'vitest';
import { planOf, statementsOf, temporaryStore } from '../testing/store.ts';

/*
 * The joins a new post runs once each (its followers, its tags' followers, the lists and Web Push subscriptions
 * of its author, its remote audience) write their parameters out of the planner's sight (StoreCore.planned):
 * written bare, SQLite compiled each of them again at every run, 5 of a post's ~58 statements. The plans must
 * stay those of the plain text.
 */

const { db, store, remove } = temporaryStore('post-fan-out');

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
    const joins = statements.filter((s) => / JOIN /.test(s.sql) && /[@?]/.test(s.sql));
    expect(joins.length).toBeGreaterThanOrEqual(8);
    for (const { sql, params } of joins) {
      expect(sql.match(/(?<![+\w])(@\w+|\?)/g), sql).toBeNull();
      expect(planOf(db, sql, params), sql).toEqual(planOf(db, sql.replace(/\+(@\w+|\?)/g, '$1'), params));
    }
  });
});
