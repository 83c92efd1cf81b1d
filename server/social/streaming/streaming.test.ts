// Over 400 lines on purpose: one subject, the streaming API through its real clients (masto.js, megalodon, server-sent events); its cases share one set-up.
import { createStreamingAPIClient, type mastodon } from 'masto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startSocialTestServer, type SocialTestServer, type TestUser } from '../testing/harness.ts';
import { validateResponse } from '../testing/openapi.ts';

/*
 * The streaming API through real clients: masto.js's streaming client (token as subprotocol, multiplexed
 * subscriptions), megalodon's WebSocket client (stream in the URL, token in the query), raw `ws` for the
 * protocol's edges. Each event must arrive once, on the right streams only, shaped as the OpenAPI document
 * says, and only to subscribers the REST API would show it to.
 */

let server: SocialTestServer;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let dave: TestUser;
let streamingUrl: string;

beforeAll(async () => {
  server = await startSocialTestServer();
  [alice, bob, carol, dave] = await Promise.all(
    ['alice', 'bob', 'carol', 'dave'].map((name) => server.createUser(name)),
  );
  await server.masto(bob.token).v1.accounts.$select(alice.accountId).follow();
  streamingUrl = (await server.masto(bob.token).v2.instance.fetch()).configuration.urls.streaming;
});

afterAll(async () => {
  await server?.close();
});

// Each test starts with no streaming connection left from the one before (closing is asynchronous).
afterEach(async () => {
  await until(() => server.social.streaming.stats().connections === 0, 'the connections of the test to close');
});

interface Received {
  stream: string[];
  event: string;
  payload: unknown;
}

/** Collects the events of a masto.js subscription in the background. */
function collect(subscription: mastodon.streaming.Subscription): Received[] {
  const received: Received[] = [];
  void (async () => {
    try {
      for await (const e of subscription) received.push(e as unknown as Received);
    } catch {
      // closed
    }
  })();
  return received;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Waits until the server holds `n` subscriptions (clients connect and subscribe asynchronously). */
async function subscribed(n: number): Promise<void> {
  await until(() => server.social.streaming.stats().subscriptions >= n, `${n} subscriptions`);
}

const ofEvent = (list: Received[], event: string) => list.filter((e) => e.event === event);

/**
 * Waits until each list holds an `event` (with payload id `id`, when given). What a test then says is absent
 * relies on order: a socket gets the events of one change in one go, and later changes after them.
 */
async function received(lists: Received[][], event: string, id?: string): Promise<void> {
  await until(
    () =>
      lists.every((list) =>
        ofEvent(list, event).some((e) => id === undefined || (e.payload as { id: string }).id === id),
      ),
    `${event}${id ? ` ${id}` : ''} on ${lists.length} stream(s)`,
  );
}

/** A raw WebSocket subscription: payloads exactly as sent (masto.js hands them over camel-cased). */
async function rawSubscription(
  token: string,
  stream: string,
): Promise<{ frames: { stream: string[]; event: string; payload?: string }[]; close(): void }> {
  const ws = new WebSocket(`${streamingUrl}/api/v1/streaming?stream=${encodeURIComponent(stream)}`, [token]);
  const frames: { stream: string[]; event: string; payload?: string }[] = [];
  ws.on('message', (data) => frames.push(JSON.parse(data.toString())));
  await new Promise((r) => ws.on('open', r));
  return { frames, close: () => ws.close() };
}

/** Every payload of `event` validated against its entity schema in the OpenAPI document. */
function expectShapes(
  frames: { event: string; payload?: string }[],
  event: string,
  path: (json: { id: string }) => string,
): number {
  const payloads = frames.filter((f) => f.event === event).map((f) => JSON.parse(f.payload!) as { id: string });
  for (const json of payloads) expect(validateResponse('GET', path(json), 200, json).checked).toBe(true);
  return payloads.length;
}

describe('masto.js streaming client', () => {
  it('delivers posts, edits, notifications and deletions once each, on the streams they belong to', async () => {
    const streaming = createStreamingAPIClient({
      streamingApiUrl: streamingUrl,
      accessToken: bob.token,
      retry: false,
    } as never);
    const user = collect(streaming.user.subscribe());
    const local = collect(streaming.public.local.subscribe());
    const tag = collect(streaming.hashtag.subscribe({ tag: 'Homeport' }));
    const remote = collect(streaming.public.remote.subscribe());
    const raw = await rawSubscription(bob.token, 'user');
    await subscribed(5);

    const post = await server.masto(alice.token).v1.statuses.create({ status: 'first light #homeport' });
    await received([user, local, tag], 'update', post.id);
    for (const list of [user, local, tag]) {
      expect(ofEvent(list, 'update').map((e) => (e.payload as { id: string }).id)).toEqual([post.id]);
    }
    expect(remote).toEqual([]);
    expect(ofEvent(tag, 'update')[0].stream).toEqual(['hashtag', 'Homeport']);
    expect(ofEvent(local, 'update')[0].stream).toEqual(['public:local']);

    await server.masto(alice.token).v1.statuses.$select(post.id).update({ status: 'first light, edited #homeport' });
    await received([user, local, tag], 'status.update', post.id);
    for (const list of [user, local, tag]) {
      const edits = ofEvent(list, 'status.update');
      expect(edits).toHaveLength(1);
      expect((edits[0].payload as { editedAt: string | null }).editedAt).not.toBeNull();
    }

    // A favourite and a mention of bob's: notifications on bob's user stream only.
    const own = await server.masto(bob.token).v1.statuses.create({ status: 'bob speaking', visibility: 'unlisted' });
    await server.masto(carol.token).v1.statuses.$select(own.id).favourite();
    await server.masto(carol.token).v1.statuses.create({ status: '@bob hello there', visibility: 'unlisted' });
    await until(() => ofEvent(user, 'notification').length >= 2, 'two notifications');
    const notifications = ofEvent(user, 'notification').map(
      (e) => e.payload as { type: string; account: { id: string } },
    );
    expect(notifications.map((n) => n.type).sort()).toEqual(['favourite', 'mention']);
    expect(ofEvent(local, 'notification')).toEqual([]);
    // bob's own unlisted post reaches his home (his user stream), not the public ones.
    expect(ofEvent(user, 'update').map((e) => (e.payload as { id: string }).id)).toContain(own.id);
    expect(ofEvent(local, 'update').map((e) => (e.payload as { id: string }).id)).not.toContain(own.id);

    await server.masto(alice.token).v1.statuses.$select(post.id).remove();
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
      streamingApiUrl: streamingUrl,
      accessToken: bob.token,
      retry: false,
    } as never);
    const tagSubscription = streaming.hashtag.subscribe({ tag: 'quiet' });
    const tag = collect(tagSubscription);
    const local = collect(streaming.public.local.subscribe());
    await subscribed(2);
    const one = await server.masto(alice.token).v1.statuses.create({ status: 'one #quiet' });
    await received([tag, local], 'update', one.id);
    tagSubscription.unsubscribe();
    await until(() => server.social.streaming.stats().subscriptions === 1, 'the unsubscribe');
    const two = await server.masto(alice.token).v1.statuses.create({ status: 'two #quiet' });
    // The local subscription shares the socket: once it has the second post, the tag's copy would be there.
    await received([local], 'update', two.id);
    expect(ofEvent(tag, 'update')).toHaveLength(1);
    expect(ofEvent(local, 'update')).toHaveLength(2);
    streaming.close();
  });

  it('shows each subscriber only what the REST API shows it: private posts, blocks, mutes', async () => {
    const bobStream = createStreamingAPIClient({
      streamingApiUrl: streamingUrl,
      accessToken: bob.token,
      retry: false,
    } as never);
    const daveStream = createStreamingAPIClient({
      streamingApiUrl: streamingUrl,
      accessToken: dave.token,
      retry: false,
    } as never);
    const carolStream = createStreamingAPIClient({
      streamingApiUrl: streamingUrl,
      accessToken: carol.token,
      retry: false,
    } as never);
    await server.masto(dave.token).v1.accounts.$select(alice.accountId).block();
    await server.masto(carol.token).v1.accounts.$select(alice.accountId).mute();
    const bobUser = collect(bobStream.user.subscribe());
    const bobLocal = collect(bobStream.public.local.subscribe());
    const daveLocal = collect(daveStream.public.local.subscribe());
    const carolLocal = collect(carolStream.public.local.subscribe());
    await subscribed(4);

    const privatePost = await server
      .masto(alice.token)
      .v1.statuses.create({ status: 'followers only', visibility: 'private' });
    const publicPost = await server.masto(alice.token).v1.statuses.create({ status: 'for everyone' });
    const fromBob = await server.masto(bob.token).v1.statuses.create({ status: 'bob in public' });
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
    // dave blocks alice, carol mutes her: both see bob's post only.
    expect(ofEvent(daveLocal, 'update').map((e) => (e.payload as { id: string }).id)).toEqual([fromBob.id]);
    expect(ofEvent(carolLocal, 'update').map((e) => (e.payload as { id: string }).id)).toEqual([fromBob.id]);

    await server.masto(dave.token).v1.accounts.$select(alice.accountId).unblock();
    await server.masto(carol.token).v1.accounts.$select(alice.accountId).unmute();
    for (const s of [bobStream, daveStream, carolStream]) s.close();
  });

  it('renders per viewer: the author and those who interacted get their own flags', async () => {
    const post = await server.masto(alice.token).v1.statuses.create({ status: 'flags' });
    const bobStream = createStreamingAPIClient({
      streamingApiUrl: streamingUrl,
      accessToken: bob.token,
      retry: false,
    } as never);
    const aliceStream = createStreamingAPIClient({
      streamingApiUrl: streamingUrl,
      accessToken: alice.token,
      retry: false,
    } as never);
    const bobLocal = collect(bobStream.public.local.subscribe());
    const aliceLocal = collect(aliceStream.public.local.subscribe());
    await subscribed(2);
    await server.masto(bob.token).v1.statuses.$select(post.id).favourite();
    await server.masto(alice.token).v1.statuses.$select(post.id).update({ status: 'flags, edited' });
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
    const writeOnly = server.social.admin.createToken('bob', 'write').token;
    const refused = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`${streamingUrl}/api/v1/streaming`, [writeOnly]);
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(101));
      ws.on('error', () => {});
    });
    expect(refused).toBe(403);
    const badToken = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`${streamingUrl}/api/v1/streaming?access_token=nonsense`);
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(101));
      ws.on('error', () => {});
    });
    expect(badToken).toBe(401);

    const notificationsOnly = server.social.admin.createToken('bob', 'read:notifications').token;
    const ws = new WebSocket(`${streamingUrl}/api/v1/streaming`, {
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
    await server.masto(carol.token).v1.accounts.$select(bob.accountId).follow();
    await until(() => frames.some((f) => f.event === 'notification'), 'the follow notification');
    expect(frames.filter((f) => f.event === 'notification')).toHaveLength(1);
    await server.masto(carol.token).v1.accounts.$select(bob.accountId).unfollow();
    ws.close();
  });

  it('sends direct conversations on the direct stream', async () => {
    const streaming = createStreamingAPIClient({
      streamingApiUrl: streamingUrl,
      accessToken: bob.token,
      retry: false,
    } as never);
    const direct = collect(streaming.direct.subscribe());
    await subscribed(1);
    const dm = await server.masto(alice.token).v1.statuses.create({ status: '@bob just us', visibility: 'direct' });
    await received([direct], 'conversation');
    const conversations = ofEvent(direct, 'conversation');
    expect(conversations).toHaveLength(1);
    const payload = conversations[0].payload as { lastStatus: { id: string }; unread: boolean };
    expect(payload.lastStatus.id).toBe(dm.id);
    expect(payload.unread).toBe(true);
    streaming.close();
  });
});

describe('megalodon streaming client', () => {
  it('receives updates on the local stream and notifications on the user stream', async () => {
    const client = server.megalodon(bob.token);
    const local = await client.localStreaming();
    const user = await client.userStreaming();
    const updates: { id: string }[] = [];
    const notifications: { type: string }[] = [];
    local.on('update', (s: { id: string }) => updates.push(s));
    user.on('notification', (n: { type: string }) => notifications.push(n));
    await subscribed(2);
    const post = await server.masto(alice.token).v1.statuses.create({ status: 'megalodon hears this' });
    await server.masto(dave.token).v1.statuses.create({ status: '@bob megalodon too', visibility: 'unlisted' });
    await until(() => updates.length > 0 && notifications.length > 0, 'the update and the notification');
    expect(updates.map((s) => s.id)).toEqual([post.id]);
    expect(notifications.map((n) => n.type)).toEqual(['mention']);
    local.stop();
    user.stop();
  });
});

describe('server-sent events', () => {
  it('streams the public local timeline as text/event-stream, and answers health', async () => {
    const health = await fetch(`${server.url}/api/v1/streaming/health`);
    expect(health.status).toBe(200);
    expect(await health.text()).toBe('OK');
    const controller = new AbortController();
    const res = await fetch(`${server.url}/api/v1/streaming/public/local`, {
      headers: { Authorization: `Bearer ${bob.token}` },
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    await subscribed(1);
    const post = await server.masto(alice.token).v1.statuses.create({ status: 'over SSE' });
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    expect(text.startsWith(':)\n')).toBe(true);
    const m = /event: update\ndata: (.*)\n\n/.exec(text);
    expect(m).not.toBeNull();
    expect(JSON.parse(m![1]).id).toBe(post.id);
    controller.abort();
    await until(() => server.social.streaming.stats().subscriptions === 0, 'the SSE subscriber to leave');
  });

  it('needs a token and a known stream', async () => {
    expect((await fetch(`${server.url}/api/v1/streaming/public`)).status).toBe(401);
    expect(
      (await fetch(`${server.url}/api/v1/streaming/hashtag`, { headers: { Authorization: `Bearer ${bob.token}` } }))
        .status,
    ).toBe(400);
    expect(
      (await fetch(`${server.url}/api/v1/streaming/nowhere`, { headers: { Authorization: `Bearer ${bob.token}` } }))
        .status,
    ).toBe(404);
  });
});

describe('connection upkeep', () => {
  it('drops a peer that stops answering pings, and a socket whose token was revoked', async () => {
    server.social.streaming.limits.heartbeatMs = 100;
    try {
      const silent = new WebSocket(`${streamingUrl}/api/v1/streaming?stream=public`, [bob.token], { autoPong: false });
      const silentClosed = new Promise((r) => silent.on('close', r));
      const { token } = server.social.admin.createToken('bob', 'read');
      const revoked = new WebSocket(`${streamingUrl}/api/v1/streaming?stream=public`, [token]);
      const revokedClosed = new Promise<number>((r) => revoked.on('close', (code) => r(code)));
      await new Promise((r) => revoked.on('open', r));
      server.social.context.store.oauth.revokeToken(server.social.context.store.oauth.tokenBySecret(token)!.id);
      expect(await revokedClosed).toBe(1008);
      await silentClosed;
    } finally {
      server.social.streaming.limits.heartbeatMs = 30_000;
    }
  });
});

describe('event stream upkeep', () => {
  it('ends an event stream whose token was revoked, at its next heartbeat', async () => {
    server.social.streaming.limits.sseHeartbeatMs = 100;
    try {
      const { token } = server.social.admin.createToken('bob', 'read');
      const res = await fetch(`${streamingUrl.replace(/^ws/, 'http')}/api/v1/streaming/public`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      expect(res.status).toBe(200);
      const ended = res.text();
      const oauth = server.social.context.store.oauth;
      oauth.revokeToken(oauth.tokenBySecret(token)!.id);
      expect(await ended).toMatch(/^:\)/);
    } finally {
      server.social.streaming.limits.sseHeartbeatMs = 15_000;
    }
  });
});

describe('a separate streaming host', () => {
  it('is reported by both instance documents, and streaming requests to the main host are redirected there', async () => {
    const port = new URL(server.url).port;
    const urls = server.social.context.urls;
    urls.separateStreaming = `ws://127.0.0.2:${port}`;
    try {
      expect((await server.masto(bob.token).v2.instance.fetch()).configuration.urls.streaming).toBe(
        `ws://127.0.0.2:${port}`,
      );
      expect((await server.masto(bob.token).v1.instance.fetch()).urls.streamingApi).toBe(`ws://127.0.0.2:${port}`);
      const res = await fetch(`${server.url}/api/v1/streaming/public?only_media=1`, {
        headers: { Authorization: `Bearer ${bob.token}` },
        redirect: 'manual',
      });
      expect(res.status).toBe(301);
      expect(res.headers.get('location')).toBe(`http://127.0.0.2:${port}/api/v1/streaming/public?only_media=1`);
    } finally {
      urls.separateStreaming = null;
    }
  });
});
