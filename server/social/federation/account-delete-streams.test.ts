import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { DELETIONS_PER_TURN } from '../streaming/index.ts';
import { eventually, followingPair } from './testing/test-network.ts';

/*
 * A remote account deleted on its server takes its posts with it, and every stream that may have shown them is
 * told, as Mastodon streams each status its DeleteAccountService removes: bob (b.test) follows alice (a.test),
 * has her in a list and watches his streams over real WebSockets while a.test deletes her.
 */

const w = {} as Awaited<ReturnType<typeof followingPair>> & { streamingBase: string };
const sockets: WebSocket[] = [];

interface Frame {
  stream: string[];
  event: string;
  payload?: string;
}

async function watch(query: string): Promise<Frame[]> {
  const frames: Frame[] = [];
  const ws = new WebSocket(`${w.streamingBase}/api/v1/streaming?${query}`, [w.bob.token], {
    headers: { host: 'b.test' },
  });
  ws.on('message', (data) => frames.push(JSON.parse(data.toString()) as Frame));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  sockets.push(ws);
  return frames;
}

const deletions = (frames: Frame[]) => frames.filter((f) => f.event === 'delete').map((f) => f.payload!);

beforeAll(async () => {
  Object.assign(w, await followingPair());
  await w.b.http.listen({ port: 0, host: '127.0.0.1' });
  w.streamingBase = `ws://127.0.0.1:${(w.b.http.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const ws of sockets) ws.close();
  await w.net?.close();
});

describe('a deleted account', () => {
  it('deleted on its server has each of its posts told as a deletion on the home, public, hashtag and list streams that may have shown them', async () => {
    const { a, b, alice, bob, aliceOnB } = w;
    const posts = [
      await alice.client.v1.statuses.create({ status: 'a public goodbye #farewell' }),
      await alice.client.v1.statuses.create({ status: 'an unlisted note', visibility: 'unlisted' }),
      await alice.client.v1.statuses.create({ status: 'for followers only', visibility: 'private' }),
    ];
    const onB = await eventually(async () => {
      const home = await bob.client.v1.timelines.home.list();
      const ids = posts.map((p) => home.find((s) => s.uri === p.uri)?.id);
      return ids.every(Boolean) ? (ids as string[]) : null;
    }, 'alice’s posts in bob’s home');
    const [publicId, unlistedId, privateId] = onB;
    const list = await bob.client.v1.lists.create({ title: 'friends' });
    await bob.client.v1.lists.$select(list.id).accounts.create({ accountIds: [aliceOnB] });

    const user = await watch('stream=user');
    const everyone = await watch('stream=public');
    const remote = await watch('stream=public:remote');
    const local = await watch('stream=public:local');
    const tag = await watch('stream=hashtag&tag=farewell');
    const friends = await watch(`stream=list&list=${list.id}`);
    await eventually(() => b.social.streaming.stats().subscriptions >= 6, 'six subscriptions');

    a.social.context.accounts.deleteLocal(alice.accountId);
    await a.social.federation!.idle();
    await eventually(() => b.social.context.store.accounts.byId(aliceOnB)!.deletedAt !== null, 'alice deleted at b');
    await eventually(async () => {
      await b.social.streaming.idle();
      return deletions(user).length >= 3 && deletions(friends).length >= 3;
    }, 'the deletions on bob’s streams');

    expect(deletions(user).sort()).toEqual([publicId, unlistedId, privateId].sort());
    expect(deletions(friends).sort()).toEqual([publicId, unlistedId, privateId].sort());
    expect(deletions(everyone)).toEqual([publicId]);
    expect(deletions(remote)).toEqual([publicId]);
    expect(deletions(tag)).toEqual([publicId]);
    expect(deletions(local)).toEqual([]);
    expect(friends.find((f) => f.event === 'delete')!.stream).toEqual(['list', list.id]);
  });

  it('of ours, deleted here, has its posts told as deletions too', async () => {
    const { b, bob } = w;
    const gil = await b.createUser('gil');
    await bob.client.v1.accounts.$select(gil.accountId).follow();
    const post = await gil.client.v1.statuses.create({ status: 'leaving soon #farewell' });
    await eventually(
      async () => (await bob.client.v1.timelines.home.list()).some((s) => s.id === post.id),
      'gil’s post in bob’s home',
    );
    const user = await watch('stream=user');
    const local = await watch('stream=public:local');
    const tag = await watch('stream=hashtag:local&tag=farewell');
    await eventually(() => b.social.streaming.stats().subscriptions >= 3, 'three subscriptions');
    b.social.context.accounts.deleteLocal(gil.accountId);
    await eventually(async () => {
      await b.social.streaming.idle();
      return [user, local, tag].every((frames) => deletions(frames).length > 0);
    }, 'the deletion on bob’s streams');
    for (const frames of [user, local, tag]) expect(deletions(frames)).toEqual([post.id]);
  });

  it('tells an account’s many deletions a batch per turn of the event loop', async () => {
    const { b } = w;
    for (const ws of sockets.splice(0)) ws.close();
    await eventually(() => b.social.streaming.stats().connections === 0, 'the first test’s sockets closed');
    const frames = await watch('stream=public:remote');
    await eventually(() => b.social.streaming.stats().subscriptions >= 1, 'the subscription');
    const total = DELETIONS_PER_TURN * 2 + 10;
    const statuses = Array.from({ length: total }, (_, i) => ({
      id: String(9_000_000 + i),
      accountId: '1',
      visibility: 'public' as const,
      local: false,
      reblogOfId: null,
      inReplyToId: null,
      inReplyToAccountId: null,
      hasMedia: false,
      tags: [],
      homeRecipients: [],
    }));
    const hub = b.social.streaming.hub;
    const sent = hub.counters.frames;
    b.social.context.store.events.emit('account.statuses.deleted', { accountId: '1', statuses, listIds: [] });
    // The hub routes on the next turn: one batch then, the others in the turns after.
    await new Promise((resolve) => setImmediate(resolve));
    expect(hub.counters.frames - sent).toBe(DELETIONS_PER_TURN);
    await b.social.streaming.idle();
    expect(hub.counters.frames - sent).toBe(total);
    await eventually(() => deletions(frames).length === total, 'every deletion on the socket');
    expect(new Set(deletions(frames)).size).toBe(total);
  });
});
