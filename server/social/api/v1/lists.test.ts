import { createStreamingAPIClient } from 'masto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSocialTestServer, type SocialTestServer, type TestUser } from '../../testing/harness.ts';

/*
 * Lists through masto.js: CRUD, members (followed accounts only), the list timeline with each replies
 * policy, exclusive lists keeping their members out of home, the lists holding an account, leaving a list
 * on unfollow, and the `list` stream.
 */

let server: SocialTestServer;
let owner: TestUser;
let ann: TestUser;
let ben: TestUser;
let cat: TestUser;

beforeAll(async () => {
  server = await startSocialTestServer();
  [owner, ann, ben, cat] = await Promise.all(['owner', 'ann', 'ben', 'cat'].map((name) => server.createUser(name)));
  for (const who of [ann, ben, cat]) await server.masto(owner.token).v1.accounts.$select(who.accountId).follow();
});

afterAll(async () => {
  await server?.close();
});

describe('lists', () => {
  it('are created, renamed, listed and deleted by their owner only', async () => {
    const client = server.masto(owner.token);
    const list = await client.v1.lists.create({ title: 'Friends' });
    expect(list).toMatchObject({ title: 'Friends', repliesPolicy: 'list', exclusive: false });
    const renamed = await client.v1.lists
      .$select(list.id)
      .update({ title: 'Close friends', repliesPolicy: 'none', exclusive: true } as never);
    expect(renamed).toMatchObject({ title: 'Close friends', repliesPolicy: 'none', exclusive: true } as never);
    expect((await client.v1.lists.list()).map((l) => l.title)).toEqual(['Close friends']);
    await expect(server.masto(ann.token).v1.lists.$select(list.id).fetch()).rejects.toMatchObject({ statusCode: 404 });
    await expect(client.v1.lists.create({ title: '   ' })).rejects.toMatchObject({ statusCode: 422 });
    await client.v1.lists.$select(list.id).remove();
    expect(await client.v1.lists.list()).toEqual([]);
  });

  it('hold followed accounts only, and show their posts with replies per the policy', async () => {
    const client = server.masto(owner.token);
    const list = await client.v1.lists.create({ title: 'Artists', repliesPolicy: 'list' } as never);
    await client.v1.lists.$select(list.id).accounts.create({ accountIds: [ann.accountId, ben.accountId] });
    expect((await client.v1.lists.$select(list.id).accounts.list()).map((a) => a.id).sort()).toEqual(
      [ann.accountId, ben.accountId].sort(),
    );
    const stranger = await server.createUser('stranger');
    await expect(
      client.v1.lists.$select(list.id).accounts.create({ accountIds: [stranger.accountId] }),
    ).rejects.toMatchObject({ statusCode: 422 });
    expect((await client.v1.accounts.$select(ann.accountId).lists.list()).map((l) => l.id)).toEqual([list.id]);

    const annPost = await server.masto(ann.token).v1.statuses.create({ status: 'a painting' });
    const benToAnn = await server
      .masto(ben.token)
      .v1.statuses.create({ status: '@ann lovely', inReplyToId: annPost.id });
    const catPost = await server.masto(cat.token).v1.statuses.create({ status: 'not a member' });
    const annToCat = await server
      .masto(ann.token)
      .v1.statuses.create({ status: '@cat hello', inReplyToId: catPost.id });
    const ids = async () => (await client.v1.timelines.list.$select(list.id).list()).map((s) => s.id);
    // `list`: replies to members are in, replies to others are not.
    expect(await ids()).toEqual([benToAnn.id, annPost.id]);
    await client.v1.lists.$select(list.id).update({ title: 'Artists', repliesPolicy: 'followed' } as never);
    expect(await ids()).toEqual([annToCat.id, benToAnn.id, annPost.id]);
    await client.v1.lists.$select(list.id).update({ title: 'Artists', repliesPolicy: 'none' } as never);
    expect(await ids()).toEqual([annPost.id]);
    expect(await ids()).not.toContain(catPost.id);

    await client.v1.lists.$select(list.id).accounts.remove({ accountIds: [ben.accountId] });
    expect((await client.v1.lists.$select(list.id).accounts.list()).map((a) => a.id)).toEqual([ann.accountId]);
    // Unfollowing takes an account out of one's lists.
    await client.v1.accounts.$select(ann.accountId).unfollow();
    expect(await client.v1.lists.$select(list.id).accounts.list()).toEqual([]);
    await client.v1.accounts.$select(ann.accountId).follow();
    await client.v1.lists.$select(list.id).remove();
  });

  it('exclusive: members’ posts appear in the list and stay out of home, live on the list stream (deletions too)', async () => {
    const client = server.masto(owner.token);
    const list = await client.v1.lists.create({ title: 'Busy poster', exclusive: true });
    await client.v1.lists.$select(list.id).accounts.create({ accountIds: [cat.accountId] });
    const streaming = createStreamingAPIClient({
      streamingApiUrl: (await client.v2.instance.fetch()).configuration.urls.streaming,
      accessToken: owner.token,
      retry: false,
    } as never);
    const listEvents: { event: string; payload: { id: string } }[] = [];
    const homeEvents: { event: string; payload: { id: string } }[] = [];
    const collect = (sub: AsyncIterable<unknown>, into: unknown[]) =>
      void (async () => {
        try {
          for await (const e of sub) into.push(e);
        } catch {
          // closed
        }
      })();
    collect(streaming.list.subscribe({ list: list.id }), listEvents);
    collect(streaming.user.subscribe(), homeEvents);
    await vi.waitFor(() => expect(server.social.streaming.stats().subscriptions).toBeGreaterThanOrEqual(2), {
      timeout: 10_000,
    });

    const catPost = await server.masto(cat.token).v1.statuses.create({ status: 'many posts' });
    const benPost = await server.masto(ben.token).v1.statuses.create({ status: 'one post' });
    // Each stream gets its post; nothing else, as the exact lists below say, once both are there.
    const updates = (events: { event: string; payload: { id: string } }[]) =>
      events.filter((e) => e.event === 'update').map((e) => e.payload.id);
    await vi.waitFor(
      () => {
        expect(updates(listEvents)).toContain(catPost.id);
        expect(updates(homeEvents)).toContain(benPost.id);
      },
      { timeout: 10_000 },
    );
    // The list reads its members' statuses, earlier ones included (as Mastodon fills a list when an account joins).
    const listed = (await client.v1.timelines.list.$select(list.id).list()).map((s) => s.id);
    expect(listed[0]).toBe(catPost.id);
    expect(listed).not.toContain(benPost.id);
    const home = (await client.v1.timelines.home.list()).map((s) => s.id);
    expect(home).toContain(benPost.id);
    expect(home).not.toContain(catPost.id);
    expect(updates(listEvents)).toEqual([catPost.id]);
    expect(updates(homeEvents)).toEqual([benPost.id]);
    // A member's deleted post is taken off the list stream, as off the list.
    await server.masto(cat.token).v1.statuses.$select(catPost.id).remove();
    await vi.waitFor(() => expect(listEvents.some((e) => e.event === 'delete')).toBe(true), { timeout: 10_000 });
    expect(listEvents.filter((e) => e.event === 'delete').map((e) => e.payload)).toEqual([catPost.id]);
    streaming.close();
  });
});
