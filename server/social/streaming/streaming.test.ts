import { createStreamingAPIClient } from 'masto';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  collect,
  expectShapes,
  ofEvent,
  rawSubscription,
  received,
  subscribed,
  until,
  useStreamingWorld,
} from '../testing/streaming.ts';

/*
 * The streaming API through masto.js's streaming client (token as subprotocol, multiplexed subscriptions) and raw
 * `ws` for exact payloads: each event must arrive once, on the right streams only, shaped as the OpenAPI document
 * says, and only to subscribers the REST API would show it to.
 */

const w = useStreamingWorld();

describe('masto.js streaming client', () => {
  it('delivers posts, edits, notifications and deletions once each, on the streams they belong to', async () => {
    const streaming = createStreamingAPIClient({
      streamingApiUrl: w.streamingUrl,
      accessToken: w.bob.token,
      retry: false,
    } as never);
    const user = collect(streaming.user.subscribe());
    const local = collect(streaming.public.local.subscribe());
    const tag = collect(streaming.hashtag.subscribe({ tag: 'Homeport' }));
    const remote = collect(streaming.public.remote.subscribe());
    const raw = await rawSubscription(w.streamingUrl, w.bob.token, 'user');
    await subscribed(w.server, 5);

    const post = await w.server.masto(w.alice.token).v1.statuses.create({ status: 'first light #homeport' });
    await received([user, local, tag], 'update', post.id);
    for (const list of [user, local, tag]) {
      expect(ofEvent(list, 'update').map((e) => (e.payload as { id: string }).id)).toEqual([post.id]);
    }
    expect(remote).toEqual([]);
    expect(ofEvent(tag, 'update')[0].stream).toEqual(['hashtag', 'Homeport']);
    expect(ofEvent(local, 'update')[0].stream).toEqual(['public:local']);

    await w.server
      .masto(w.alice.token)
      .v1.statuses.$select(post.id)
      .update({ status: 'first light, edited #homeport' });
    await received([user, local, tag], 'status.update', post.id);
    for (const list of [user, local, tag]) {
      const edits = ofEvent(list, 'status.update');
      expect(edits).toHaveLength(1);
      expect((edits[0].payload as { editedAt: string | null }).editedAt).not.toBeNull();
    }

    // A favourite and a mention of bob's: notifications on bob's user stream only.
    const own = await w.server
      .masto(w.bob.token)
      .v1.statuses.create({ status: 'bob speaking', visibility: 'unlisted' });
    await w.server.masto(w.carol.token).v1.statuses.$select(own.id).favourite();
    await w.server.masto(w.carol.token).v1.statuses.create({ status: '@bob hello there', visibility: 'unlisted' });
    await until(() => ofEvent(user, 'notification').length >= 2, 'two notifications');
    const notifications = ofEvent(user, 'notification').map(
      (e) => e.payload as { type: string; account: { id: string } },
    );
    expect(notifications.map((n) => n.type).sort()).toEqual(['favourite', 'mention']);
    expect(ofEvent(local, 'notification')).toEqual([]);
    // bob's own unlisted post reaches his home (his user stream), not the public ones.
    expect(ofEvent(user, 'update').map((e) => (e.payload as { id: string }).id)).toContain(own.id);
    expect(ofEvent(local, 'update').map((e) => (e.payload as { id: string }).id)).not.toContain(own.id);

    await w.server.masto(w.alice.token).v1.statuses.$select(post.id).remove();
    await until(
      () => [user, local, tag].every((list) => ofEvent(list, 'delete').length > 0),
      'the delete on three streams',
    );
    for (const list of [user, local, tag]) expect(ofEvent(list, 'delete').map((e) => e.payload)).toEqual([post.id]);
    await until(() => raw.frames.some((f) => f.event === 'delete'), 'the delete on the raw socket');

    // The same events as sent, checked against the document's Status and Notification schemas.
    expect(expectShapes(raw.frames, 'update', (s) => `/api/v1/statuses/${s.id}`)).toBe(2);
    expect(expectShapes(raw.frames, 'status.update', (s) => `/api/v1/statuses/${s.id}`)).toBe(1);
    expect(expectShapes(raw.frames, 'notification', (n) => `/api/v1/notifications/${n.id}`)).toBe(2);
    expect(raw.frames.filter((f) => f.event === 'delete').map((f) => f.payload)).toEqual([post.id]);
    expect(raw.frames.every((f) => f.stream[0] === 'user')).toBe(true);
    raw.close();
    streaming.close();
  });

  it('stops delivering after unsubscribe and keeps the other subscriptions of the socket', async () => {
    const streaming = createStreamingAPIClient({
      streamingApiUrl: w.streamingUrl,
      accessToken: w.bob.token,
      retry: false,
    } as never);
    const tagSubscription = streaming.hashtag.subscribe({ tag: 'quiet' });
    const tag = collect(tagSubscription);
    const local = collect(streaming.public.local.subscribe());
    await subscribed(w.server, 2);
    const one = await w.server.masto(w.alice.token).v1.statuses.create({ status: 'one #quiet' });
    await received([tag, local], 'update', one.id);
    tagSubscription.unsubscribe();
    await until(() => w.server.social.streaming.stats().subscriptions === 1, 'the unsubscribe');
    const two = await w.server.masto(w.alice.token).v1.statuses.create({ status: 'two #quiet' });
    // The local subscription shares the socket: once it has the second post, the tag's copy would be there.
    await received([local], 'update', two.id);
    expect(ofEvent(tag, 'update')).toHaveLength(1);
    expect(ofEvent(local, 'update')).toHaveLength(2);
    streaming.close();
  });

  it('shows each subscriber only what the REST API shows it: private posts, blocks, mutes', async () => {
    const bobStream = createStreamingAPIClient({
      streamingApiUrl: w.streamingUrl,
      accessToken: w.bob.token,
      retry: false,
    } as never);
    const daveStream = createStreamingAPIClient({
      streamingApiUrl: w.streamingUrl,
      accessToken: w.dave.token,
      retry: false,
    } as never);
    const carolStream = createStreamingAPIClient({
      streamingApiUrl: w.streamingUrl,
      accessToken: w.carol.token,
      retry: false,
    } as never);
    await w.server.masto(w.dave.token).v1.accounts.$select(w.alice.accountId).block();
    await w.server.masto(w.carol.token).v1.accounts.$select(w.alice.accountId).mute();
    const bobUser = collect(bobStream.user.subscribe());
    const bobLocal = collect(bobStream.public.local.subscribe());
    const daveLocal = collect(daveStream.public.local.subscribe());
    const carolLocal = collect(carolStream.public.local.subscribe());
    await subscribed(w.server, 4);

    const privatePost = await w.server
      .masto(w.alice.token)
      .v1.statuses.create({ status: 'followers only', visibility: 'private' });
    const publicPost = await w.server.masto(w.alice.token).v1.statuses.create({ status: 'for everyone' });
    const fromBob = await w.server.masto(w.bob.token).v1.statuses.create({ status: 'bob in public' });
    // bob's post comes last: a stream that has it has whatever of alice's it was going to get.
    await received([bobUser, bobLocal, daveLocal, carolLocal], 'update', fromBob.id);
    expect(ofEvent(bobUser, 'update').map((e) => (e.payload as { id: string }).id)).toEqual([
      privatePost.id,
      publicPost.id,
      fromBob.id,
    ]);
    expect(ofEvent(bobLocal, 'update').map((e) => (e.payload as { id: string }).id)).toEqual([
      publicPost.id,
      fromBob.id,
    ]);
    // dave blocks w.alice, carol mutes her: both see bob's post only.
    expect(ofEvent(daveLocal, 'update').map((e) => (e.payload as { id: string }).id)).toEqual([fromBob.id]);
    expect(ofEvent(carolLocal, 'update').map((e) => (e.payload as { id: string }).id)).toEqual([fromBob.id]);

    await w.server.masto(w.dave.token).v1.accounts.$select(w.alice.accountId).unblock();
    await w.server.masto(w.carol.token).v1.accounts.$select(w.alice.accountId).unmute();
    for (const s of [bobStream, daveStream, carolStream]) s.close();
  });

  it('renders per viewer: the author and those who interacted get their own flags', async () => {
    const post = await w.server.masto(w.alice.token).v1.statuses.create({ status: 'flags' });
    const bobStream = createStreamingAPIClient({
      streamingApiUrl: w.streamingUrl,
      accessToken: w.bob.token,
      retry: false,
    } as never);
    const aliceStream = createStreamingAPIClient({
      streamingApiUrl: w.streamingUrl,
      accessToken: w.alice.token,
      retry: false,
    } as never);
    const bobLocal = collect(bobStream.public.local.subscribe());
    const aliceLocal = collect(aliceStream.public.local.subscribe());
    await subscribed(w.server, 2);
    await w.server.masto(w.bob.token).v1.statuses.$select(post.id).favourite();
    await w.server.masto(w.alice.token).v1.statuses.$select(post.id).update({ status: 'flags, edited' });
    await received([bobLocal, aliceLocal], 'status.update', post.id);
    const forBob = ofEvent(bobLocal, 'status.update')[0].payload as { favourited: boolean; favouritesCount: number };
    const forAlice = ofEvent(aliceLocal, 'status.update')[0].payload as { favourited: boolean; pinned?: boolean };
    expect(forBob.favourited).toBe(true);
    expect(forAlice.favourited).toBe(false);
    expect(forAlice.pinned).toBe(false);
    expect(forBob.favouritesCount).toBe(1);
    bobStream.close();
    aliceStream.close();
  });

  it('refuses tokens without a read scope and subscriptions beyond the token', async () => {
    const writeOnly = w.server.social.admin.createToken('bob', 'write').token;
    const refused = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`${w.streamingUrl}/api/v1/streaming`, [writeOnly]);
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(101));
      ws.on('error', () => {});
    });
    expect(refused).toBe(403);
    const badToken = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`${w.streamingUrl}/api/v1/streaming?access_token=nonsense`);
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(101));
      ws.on('error', () => {});
    });
    expect(badToken).toBe(401);

    const notificationsOnly = w.server.social.admin.createToken('bob', 'read:notifications').token;
    const ws = new WebSocket(`${w.streamingUrl}/api/v1/streaming`, {
      headers: { Authorization: `Bearer ${notificationsOnly}` },
    });
    const frames: { error?: string; status?: number; event?: string }[] = [];
    ws.on('message', (data) => frames.push(JSON.parse(data.toString())));
    await new Promise((r) => ws.on('open', r));
    ws.send(JSON.stringify({ type: 'subscribe', stream: 'public:local' }));
    ws.send(JSON.stringify({ type: 'subscribe', stream: 'nonsense' }));
    ws.send(JSON.stringify({ type: 'subscribe', stream: 'hashtag', tag: '' }));
    ws.send(JSON.stringify({ type: 'subscribe', stream: 'list', list: '1' }));
    ws.send(JSON.stringify({ type: 'subscribe', stream: 'user:notification' }));
    await until(() => frames.length >= 4, 'four error frames');
    expect(frames.map((f) => f.error)).toEqual([
      'Access token does not have the required scopes',
      'Unknown stream type',
      'No tag for stream provided',
      'Not authorized to stream this list',
    ]);
    expect(frames.every((f) => typeof f.status === 'number')).toBe(true);
    await w.server.masto(w.carol.token).v1.accounts.$select(w.bob.accountId).follow();
    await until(() => frames.some((f) => f.event === 'notification'), 'the follow notification');
    expect(frames.filter((f) => f.event === 'notification')).toHaveLength(1);
    await w.server.masto(w.carol.token).v1.accounts.$select(w.bob.accountId).unfollow();
    ws.close();
  });

  it('sends direct conversations on the direct stream', async () => {
    const streaming = createStreamingAPIClient({
      streamingApiUrl: w.streamingUrl,
      accessToken: w.bob.token,
      retry: false,
    } as never);
    const direct = collect(streaming.direct.subscribe());
    await subscribed(w.server, 1);
    const dm = await w.server.masto(w.alice.token).v1.statuses.create({ status: '@bob just us', visibility: 'direct' });
    await received([direct], 'conversation');
    const conversations = ofEvent(direct, 'conversation');
    expect(conversations).toHaveLength(1);
    const payload = conversations[0].payload as { lastStatus: { id: string }; unread: boolean };
    expect(payload.lastStatus.id).toBe(dm.id);
    expect(payload.unread).toBe(true);
    streaming.close();
  });
});
