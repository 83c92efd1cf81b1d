import { describe, expect, it } from 'vitest';
import { eventually, useFollowingPair, type TestInstance, type NetworkUser } from './testing/test-network.ts';

/*
 * A deleted post leaves its hashtags' listings (as Mastodon's removal takes it off its tags), on the server of its
 * author and on the servers that received it, whether the post or its whole account is deleted: a hashtag page then
 * walks live posts only, not the tombstones of every deleted one. A deleted account's notifications and the boosts
 * of its posts go with it.
 */

const t = useFollowingPair();

/** How many posts the hashtag's listing holds on `instance` (deleted ones included). */
function listed(instance: TestInstance, tag: string): number {
  const row = instance.social.context.store.db
    .prepare('SELECT COUNT(*) AS n FROM statuses_tags st JOIN tags t ON t.id = st.tag_id WHERE t.name = ?')
    .get(tag) as { n: bigint };
  return Number(row.n);
}

const inTagTimeline = async (user: NetworkUser, tag: string, id: string) =>
  (await user.client.v1.timelines.tag.$select(tag).list({ local: false })).some((s) => s.id === id);

describe('a deleted post', () => {
  it('leaves its hashtags’ listings, here and where it was received', async () => {
    const post = await t.alice.client.v1.statuses.create({ status: 'a post in #gonetag' });
    await eventually(() => listed(t.b, 'gonetag') === 1, 'the post listed at b');
    expect(listed(t.a, 'gonetag')).toBe(1);
    expect(await inTagTimeline(t.alice, 'gonetag', post.id)).toBe(true);

    await t.alice.client.v1.statuses.$select(post.id).remove();
    await t.a.social.federation!.idle();
    expect(listed(t.a, 'gonetag')).toBe(0);
    await eventually(() => listed(t.b, 'gonetag') === 0, 'the post off the listing at b');
    expect(await inTagTimeline(t.alice, 'gonetag', post.id)).toBe(false);
  });

  it('leaves them with its deleted account, here and where it was received', async () => {
    const frank = await t.a.createUser('frank');
    await frank.client.v1.accounts.$select(t.bobOnA).follow();
    const frankOnB = await eventually(() => t.b.social.context.store.accounts.byHandle('frank', 'a.test')?.id, 'frank');
    await t.bob.client.v1.accounts.$select(frankOnB).follow();
    await eventually(
      () => t.b.social.context.store.relationships.follow(t.bob.accountId, frankOnB),
      'bob follows frank',
    );
    const leaving = await frank.client.v1.statuses.create({ status: 'leaving #accounttag' });
    await eventually(() => listed(t.b, 'accounttag') === 1, 'the post listed at b');
    // bob boosts it: his boost goes with it, as Mastodon removes the reblogs of a deleted account's posts.
    const leavingOnB = t.b.social.context.store.federation.statusByUri(leaving.uri)!;
    await t.bob.client.v1.statuses.$select(leavingOnB).reblog();
    const bobsPosts = async () => (await t.bob.client.v1.accounts.verifyCredentials()).statusesCount;
    expect(await bobsPosts()).toBe(1);
    // alice boosts it on frank's own server: hers goes too.
    await t.alice.client.v1.statuses.$select(leaving.id).reblog();
    const alicesPosts = async () => (await t.alice.client.v1.accounts.verifyCredentials()).statusesCount;
    expect(await alicesPosts()).toBe(1);

    const fromFrank = () =>
      Number(
        (
          t.b.social.context.store.db
            .prepare('SELECT COUNT(*) AS n FROM notifications WHERE from_account_id = ?')
            .get(frankOnB) as { n: bigint }
        ).n,
      );
    expect(fromFrank()).toBeGreaterThan(0);

    t.a.social.context.accounts.deleteLocal(frank.accountId);
    await t.a.social.federation!.idle();
    expect(listed(t.a, 'accounttag')).toBe(0);
    await eventually(() => listed(t.b, 'accounttag') === 0, 'the post off the listing at b');
    // Nor are bob's notifications from frank kept (Mastodon purges them with the account), nor the boosts.
    expect(fromFrank()).toBe(0);
    expect(await alicesPosts()).toBe(0);
    expect(await bobsPosts()).toBe(0);
    expect(await t.bob.client.v1.accounts.$select(t.bob.accountId).statuses.list()).toEqual([]);
  });
});
