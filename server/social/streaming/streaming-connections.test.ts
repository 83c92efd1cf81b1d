import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { subscribed, until, useStreamingWorld } from '../testing/streaming.ts';

/*
 * The streaming API's other ways in and their upkeep: megalodon's WebSocket client (stream in the URL, token in the
 * query), server-sent events, dropping silent peers and revoked tokens, and a separate streaming host.
 */

const w = useStreamingWorld();

describe('megalodon streaming client', () => {
  it('receives updates on the local stream and notifications on the user stream', async () => {
    const client = w.server.megalodon(w.bob.token);
    const local = await client.localStreaming();
    const user = await client.userStreaming();
    const updates: { id: string }[] = [];
    const notifications: { type: string }[] = [];
    local.on('update', (s: { id: string }) => updates.push(s));
    user.on('notification', (n: { type: string }) => notifications.push(n));
    await subscribed(w.server, 2);
    const post = await w.server.masto(w.alice.token).v1.statuses.create({ status: 'megalodon hears this' });
    await w.server.masto(w.dave.token).v1.statuses.create({ status: '@bob megalodon too', visibility: 'unlisted' });
    await until(() => updates.length > 0 && notifications.length > 0, 'the update and the notification');
    expect(updates.map((s) => s.id)).toEqual([post.id]);
    expect(notifications.map((n) => n.type)).toEqual(['mention']);
    local.stop();
    user.stop();
  });
});

describe('server-sent events', () => {
  it('streams the public local timeline as text/event-stream, and answers health', async () => {
    const health = await fetch(`${w.server.url}/api/v1/streaming/health`);
    expect(health.status).toBe(200);
    expect(await health.text()).toBe('OK');
    const controller = new AbortController();
    const res = await fetch(`${w.server.url}/api/v1/streaming/public/local`, {
      headers: { Authorization: `Bearer ${w.bob.token}` },
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    await subscribed(w.server, 1);
    const post = await w.server.masto(w.alice.token).v1.statuses.create({ status: 'over SSE' });
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    expect(text.startsWith(':)\n')).toBe(true);
    const m = /event: update\ndata: (.*)\n\n/.exec(text);
    expect(m).not.toBeNull();
    expect(JSON.parse(m![1]).id).toBe(post.id);
    controller.abort();
    await until(() => w.server.social.streaming.stats().subscriptions === 0, 'the SSE subscriber to leave');
  });

  it('needs a token and a known stream', async () => {
    expect((await fetch(`${w.server.url}/api/v1/streaming/public`)).status).toBe(401);
    expect(
      (await fetch(`${w.server.url}/api/v1/streaming/hashtag`, { headers: { Authorization: `Bearer ${w.bob.token}` } }))
        .status,
    ).toBe(400);
    expect(
      (await fetch(`${w.server.url}/api/v1/streaming/nowhere`, { headers: { Authorization: `Bearer ${w.bob.token}` } }))
        .status,
    ).toBe(404);
  });
});

describe('connection upkeep', () => {
  it('drops a peer that stops answering pings, and a socket whose token was revoked', async () => {
    w.server.social.streaming.limits.heartbeatMs = 100;
    try {
      const silent = new WebSocket(`${w.streamingUrl}/api/v1/streaming?stream=public`, [w.bob.token], {
        autoPong: false,
      });
      const silentClosed = new Promise((r) => silent.on('close', r));
      const { token } = w.server.social.admin.createToken('bob', 'read');
      const revoked = new WebSocket(`${w.streamingUrl}/api/v1/streaming?stream=public`, [token]);
      const revokedClosed = new Promise<number>((r) => revoked.on('close', (code) => r(code)));
      await new Promise((r) => revoked.on('open', r));
      w.server.social.context.store.oauth.revokeToken(w.server.social.context.store.oauth.tokenBySecret(token)!.id);
      expect(await revokedClosed).toBe(1008);
      await silentClosed;
    } finally {
      w.server.social.streaming.limits.heartbeatMs = 30_000;
    }
  });
});

describe('event stream upkeep', () => {
  it('ends an event stream whose token was revoked, at its next heartbeat', async () => {
    w.server.social.streaming.limits.sseHeartbeatMs = 100;
    try {
      const { token } = w.server.social.admin.createToken('bob', 'read');
      const res = await fetch(`${w.streamingUrl.replace(/^ws/, 'http')}/api/v1/streaming/public`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      expect(res.status).toBe(200);
      const ended = res.text();
      const oauth = w.server.social.context.store.oauth;
      oauth.revokeToken(oauth.tokenBySecret(token)!.id);
      expect(await ended).toMatch(/^:\)/);
    } finally {
      w.server.social.streaming.limits.sseHeartbeatMs = 15_000;
    }
  });
});

describe('a separate streaming host', () => {
  it('is reported by both instance documents, and streaming requests to the main host are redirected there', async () => {
    const port = new URL(w.server.url).port;
    const urls = w.server.social.context.urls;
    urls.separateStreaming = `ws://127.0.0.2:${port}`;
    try {
      expect((await w.server.masto(w.bob.token).v2.instance.fetch()).configuration.urls.streaming).toBe(
        `ws://127.0.0.2:${port}`,
      );
      expect((await w.server.masto(w.bob.token).v1.instance.fetch()).urls.streamingApi).toBe(`ws://127.0.0.2:${port}`);
      const res = await fetch(`${w.server.url}/api/v1/streaming/public?only_media=1`, {
        headers: { Authorization: `Bearer ${w.bob.token}` },
        redirect: 'manual',
      });
      expect(res.status).toBe(301);
      expect(res.headers.get('location')).toBe(`http://127.0.0.2:${port}/api/v1/streaming/public?only_media=1`);
    } finally {
      urls.separateStreaming = null;
    }
  });
});
