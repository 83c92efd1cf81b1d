// Over 400 lines on purpose: one subject, the event-log UI's HTTP API, route by route; its cases share one set-up.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { ExpectedVersion, type NewEvent, type Principal } from '../index.ts';
import { startHomeport, type Homeport } from '../../index.ts';
import { createHttpServer } from '../../http/server.ts';
import { registerUiApi, UI_API_PREFIX, UiSessions } from '../../http/index.ts';
import type { AllPage } from './all.ts';
import { eventLogUiRoutes } from './eventlog-api.ts';
import { eventLogUiDeps } from './eventlog-sources.ts';
import type { StreamPage } from './events.ts';
import type { LiveMessage } from './live.ts';

const ADMIN: Principal = { name: 'admin', groups: ['$admins'] };

let hp: Homeport;
let dataDir: string;
let token: string;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-ui-eventlog-'));
  hp = await startHomeport({
    dataDir,
    httpPort: 0,
    tcpPort: 0,
    tcpTlsPort: null,
    logToConsole: false,
    rendererDir: null,
  });
  // A session signed in with the default password may only change it; these tests act as a real administrator.
  await hp.eventLog.users.changePassword('admin', 'admin-test-password');
  const res = await fetch(`${hp.httpUrl}${UI_API_PREFIX}/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: 'admin-test-password' }),
  });
  token = ((await res.json()) as { token: string }).token;
});
afterAll(async () => {
  await hp.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function event(type: string, data: unknown, metadata: unknown = {}): NewEvent {
  return {
    eventId: crypto.randomUUID(),
    eventType: type,
    isJson: true,
    data: Buffer.from(JSON.stringify(data)),
    metadata: Buffer.from(JSON.stringify(metadata)),
  };
}
async function append(stream: string, events: NewEvent[]) {
  const r = await hp.eventLog.store.appendToStream(stream, ExpectedVersion.Any, events, ADMIN);
  expect(r.result).toBe('Success');
  return r;
}

async function call<T = unknown>(
  p: string,
  init: { method?: string; body?: unknown; auth?: boolean } = {},
): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = {};
  if (init.auth !== false) headers.authorization = `Bearer ${token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${hp.httpUrl}${UI_API_PREFIX}${p}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}
const enc = encodeURIComponent;

describe('event-log UI API', () => {
  it('answers 401 to every route without a token, WebSockets included', async () => {
    const routes: [string, string][] = [
      ['GET', '/eventlog/streams'],
      ['GET', '/eventlog/recent-streams'],
      ['GET', '/eventlog/categories'],
      ['GET', '/eventlog/streams/x'],
      ['DELETE', '/eventlog/streams/x'],
      ['GET', '/eventlog/streams/x/events'],
      ['POST', '/eventlog/streams/x/events'],
      ['GET', '/eventlog/streams/x/events/0'],
      ['GET', '/eventlog/streams/x/metadata'],
      ['PUT', '/eventlog/streams/x/metadata'],
      ['GET', '/eventlog/all'],
      ['GET', '/eventlog/connections'],
      ['GET', '/eventlog/activity'],
      ['GET', '/eventlog/subscriptions'],
      ['GET', '/eventlog/persistent-groups'],
      ['GET', '/eventlog/persistent-groups/s/g'],
      ['POST', '/eventlog/persistent-groups/s/g'],
      ['PUT', '/eventlog/persistent-groups/s/g'],
      ['DELETE', '/eventlog/persistent-groups/s/g'],
      ['GET', '/eventlog/persistent-groups/s/g/parked'],
      ['POST', '/eventlog/persistent-groups/s/g/parked/replay'],
      ['GET', '/eventlog/users'],
      ['POST', '/eventlog/users'],
      ['PUT', '/eventlog/users/ops/password'],
      ['DELETE', '/eventlog/users/ops'],
      ['GET', '/eventlog/tokens'],
      ['POST', '/eventlog/tokens'],
      ['DELETE', '/eventlog/tokens/x'],
    ];
    for (const [method, p] of routes) {
      const { status } = await call(p, {
        method,
        auth: false,
        body: method === 'GET' || method === 'DELETE' ? undefined : {},
      });
      expect({ method, p, status }).toEqual({ method, p, status: 401 });
    }
    const wsUrl = `${hp.httpUrl.replace('http', 'ws')}${UI_API_PREFIX}/eventlog/live?stream=x`;
    const status = await new Promise<number>((resolve) => {
      const ws = new WebSocket(wsUrl);
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(101));
    });
    expect(status).toBe(401);
  });

  it('finds streams by exact name, prefix and wildcard, and lists categories and recent streams', async () => {
    await append('shop_order-1', [event('Placed', { n: 1 })]);
    await append('shop_order-2', [event('Placed', { n: 2 })]);
    await append('shop_order-10', [event('Placed', { n: 10 })]);
    await append('shop_cart-1', [event('Opened', {})]);

    const exact = await call<{ streams: { streamId: string; eventCount: number }[] }>(
      `/eventlog/streams?mode=exact&q=shop_order-1`,
    );
    expect(exact.body.streams.map((s) => s.streamId)).toEqual(['shop_order-1']);
    expect(exact.body.streams[0].eventCount).toBe(1);
    expect((await call<{ streams: unknown[] }>(`/eventlog/streams?mode=exact&q=shop_order-3`)).body.streams).toEqual(
      [],
    );

    const prefix = await call<{ streams: { streamId: string }[] }>(
      `/eventlog/streams?mode=prefix&order=name&q=shop_order-`,
    );
    expect(prefix.body.streams.map((s) => s.streamId)).toEqual(['shop_order-1', 'shop_order-10', 'shop_order-2']);

    const wild = await call<{ streams: { streamId: string }[] }>(
      `/eventlog/streams?mode=wildcard&order=name&q=${enc('shop_*-1')}`,
    );
    expect(wild.body.streams.map((s) => s.streamId)).toEqual(['shop_cart-1', 'shop_order-1']);

    const cats = await call<{ categories: { category: string; streams: number }[] }>('/eventlog/categories');
    expect(cats.body.categories).toContainEqual({ category: 'shop_order', streams: 3 });
    expect(cats.body.categories).toContainEqual({ category: 'shop_cart', streams: 1 });

    const recent = await call<{ created: { streamId: string }[]; changed: { streamId: string }[] }>(
      '/eventlog/recent-streams?limit=2',
    );
    expect(recent.body.created.map((s) => s.streamId)).toEqual(['shop_cart-1', 'shop_order-10']);
    expect(recent.body.changed[0].streamId).toBe('shop_cart-1');
    // System streams ($user-admin…) stay out unless asked for.
    const sys = await call<{ created: { streamId: string }[] }>('/eventlog/recent-streams?limit=100&system=true');
    expect(sys.body.created.some((s) => s.streamId.startsWith('$'))).toBe(true);
    const plain = await call<{ created: { streamId: string }[] }>('/eventlog/recent-streams?limit=100');
    expect(plain.body.created.some((s) => s.streamId.startsWith('$'))).toBe(false);
  });

  it('pages a 1,000-event stream both ways by keyset, with event 0 reachable and edges reported', async () => {
    const events = Array.from({ length: 1000 }, (_, i) => event('Tick', { i }));
    await append('paging-1', events);
    const page = (q: string) => call<StreamPage>(`/eventlog/streams/paging-1/events?${q}`);

    const newest = await page('count=100');
    expect(newest.status).toBe(200);
    expect(newest.body.events.map((e) => e.eventNumber)).toEqual(Array.from({ length: 100 }, (_, i) => 900 + i));
    expect(newest.body).toMatchObject({ lastEventNumber: 999, hasOlder: true, hasNewer: false });

    // Walk back to the start page by page (each "previous" reads backward from the first number shown - 1).
    let current = newest.body;
    const seen: number[] = [...current.events.map((e) => e.eventNumber)];
    while (current.hasOlder) {
      const next = await page(`count=100&direction=backward&from=${current.events[0].eventNumber - 1}`);
      current = next.body;
      seen.unshift(...current.events.map((e) => e.eventNumber));
    }
    expect(seen).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    expect(current.events[0].eventNumber).toBe(0);

    // Forward from event 0 ("first"), then "next" until the end.
    const first = await page('count=300&direction=forward&from=0');
    expect(first.body).toMatchObject({ hasOlder: false, hasNewer: true });
    expect(first.body.events[0].data.text).toBe('{"i":0}');
    const second = await page(`count=300&direction=forward&from=${first.body.events.at(-1)!.eventNumber + 1}`);
    expect(second.body.events[0].eventNumber).toBe(300);
    const last = await page('count=300&direction=forward&from=900');
    expect(last.body.events.map((e) => e.eventNumber)).toEqual(Array.from({ length: 100 }, (_, i) => 900 + i));
    expect(last.body).toMatchObject({ hasOlder: true, hasNewer: false });

    // Beyond the end: empty, with the way back open.
    const beyond = await page('count=10&direction=forward&from=5000');
    expect(beyond.body).toMatchObject({ events: [], hasOlder: true, hasNewer: false });

    expect((await page('count=4097')).status).toBe(400);
    expect((await page('count=0')).status).toBe(400);
    expect((await page('direction=forward&from=-1')).status).toBe(400);
    const missing = await call<StreamPage>('/eventlog/streams/never-written/events');
    expect(missing.body).toMatchObject({ exists: false, events: [], hasOlder: false, hasNewer: false });
  });

  it('shows one event with its neighbours, and resolves link events to their target', async () => {
    await append('detail-1', [event('A', { a: 1 }, { m: 1 }), event('B', { b: 2 }), event('C', { c: 3 })]);
    const { body, status } = await call<{
      event: { eventNumber: number; eventType: string; data: { text: string }; metadata: { text: string } };
      previous: number | null;
      next: number | null;
    }>('/eventlog/streams/detail-1/events/0');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      event: { eventNumber: 0, eventType: 'A', data: { text: '{"a":1}' }, metadata: { text: '{"m":1}' } },
      previous: null,
      next: 1,
    });
    const middle = await call<{ previous: number | null; next: number | null }>('/eventlog/streams/detail-1/events/1');
    expect(middle.body).toMatchObject({ previous: 0, next: 2 });
    const notThere = await call<{ error: string }>('/eventlog/streams/detail-1/events/7');
    expect(notThere.status).toBe(404);
    expect(notThere.body.error).toContain('Event 7');

    await append('links-of-detail', [
      {
        eventId: crypto.randomUUID(),
        eventType: '$>',
        isJson: false,
        data: Buffer.from('2@detail-1'),
        metadata: new Uint8Array(),
      },
    ]);
    const links = await call<StreamPage>('/eventlog/streams/links-of-detail/events');
    const link = links.body.events[0];
    expect(link.linkTo).toEqual({ streamId: 'detail-1', eventNumber: 2 });
    expect(link.target).toMatchObject({ streamId: 'detail-1', eventNumber: 2, eventType: 'C' });
  });

  it('adds an event after validating it, and loses nothing on bad input', async () => {
    const bad = await call<{ error: string }>('/eventlog/streams/added-1/events', {
      method: 'POST',
      body: { eventType: 'Placed', data: '{"x": ' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^Data is not valid JSON/);
    const badMeta = await call<{ error: string }>('/eventlog/streams/added-1/events', {
      method: 'POST',
      body: { eventType: 'Placed', data: '{}', metadata: 'nope' },
    });
    expect(badMeta.body.error).toMatch(/^Metadata is not valid JSON/);
    const badId = await call<{ error: string }>('/eventlog/streams/added-1/events', {
      method: 'POST',
      body: { eventType: 'Placed', data: '{}', eventId: 'x' },
    });
    expect(badId.status).toBe(400);
    expect(hp.eventLog.store.lastEventNumber('added-1')).toBe(-1);

    const eventId = crypto.randomUUID();
    const ok = await call<{ eventId: string; eventNumber: number }>('/eventlog/streams/added-1/events', {
      method: 'POST',
      body: { eventType: 'Placed', data: '{"total": 12}', metadata: '{"by":"ui"}', eventId },
    });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ eventId, eventNumber: 0 });
    const read = hp.eventLog.store.readEvent('added-1', 0, false, ADMIN);
    expect(read.event?.event?.eventId).toBe(eventId);
    expect(Buffer.from(read.event!.event!.data).toString()).toBe('{"total": 12}');

    const toAll = await call('/eventlog/streams/%24all/events', {
      method: 'POST',
      body: { eventType: 'X', data: '{}' },
    });
    expect(toAll.status).toBe(400);
  });

  it('edits stream metadata and the truncation shows in the next page', async () => {
    await append(
      'meta-1',
      Array.from({ length: 10 }, (_, i) => event('E', { i })),
    );
    const before = await call<{ metadata: unknown; version: number }>('/eventlog/streams/meta-1/metadata');
    expect(before.body).toMatchObject({ metadata: null, version: -1 });

    const invalid = await call<{ error: string }>('/eventlog/streams/meta-1/metadata', {
      method: 'PUT',
      body: { metadata: { $maxCount: -3 } },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toContain('$maxCount');
    const badAcl = await call<{ error: string }>('/eventlog/streams/meta-1/metadata', {
      method: 'PUT',
      body: { metadata: { $acl: { $x: 'a' } } },
    });
    expect(badAcl.status).toBe(400);

    const saved = await call<{ version: number; effective: { truncateBefore?: number } }>(
      '/eventlog/streams/meta-1/metadata',
      {
        method: 'PUT',
        body: { metadata: { $tb: 6, $acl: { $r: ['$admins', 'ops'] }, owner: 'billing' }, expectedVersion: -1 },
      },
    );
    expect(saved.status).toBe(200);
    expect(saved.body.effective.truncateBefore).toBe(6);
    const stale = await call('/eventlog/streams/meta-1/metadata', {
      method: 'PUT',
      body: { metadata: { $tb: 2 }, expectedVersion: -1 },
    });
    expect(stale.status).toBe(409);

    const after = await call<{ metadata: Record<string, unknown> }>('/eventlog/streams/meta-1/metadata');
    expect(after.body.metadata).toEqual({ $tb: 6, $acl: { $r: ['$admins', 'ops'] }, owner: 'billing' });
    const newest = await call<StreamPage>('/eventlog/streams/meta-1/events?count=20');
    expect(newest.body.events.map((e) => e.eventNumber)).toEqual([6, 7, 8, 9]);
    expect(newest.body.hasOlder).toBe(false);
    // "First" starts where the readable events begin.
    const first = await call<StreamPage>('/eventlog/streams/meta-1/events?count=2&direction=forward&from=0');
    expect(first.body.events.map((e) => e.eventNumber)).toEqual([6, 7]);
    expect(first.body).toMatchObject({ hasOlder: false, hasNewer: true });
  });

  it('soft and hard deletes a stream', async () => {
    await append('gone-soft', [event('E', {})]);
    await append('gone-hard', [event('E', {})]);
    expect((await call('/eventlog/streams/gone-soft', { method: 'DELETE' })).status).toBe(200);
    expect((await call<StreamPage>('/eventlog/streams/gone-soft/events')).body.exists).toBe(false);
    expect((await call('/eventlog/streams/gone-hard?hard=true', { method: 'DELETE' })).status).toBe(200);
    const hard = await call<{ error: string }>('/eventlog/streams/gone-hard/events');
    expect(hard.status).toBe(410);
    expect(hard.body.error).toContain('deleted');
    const again = await call<{ error: string }>('/eventlog/streams/gone-hard/events', {
      method: 'POST',
      body: { eventType: 'E', data: '{}' },
    });
    expect(again.status).toBe(410);
  });

  it('pages $all both ways by position without gaps or repeats, hides system events, and filters', async () => {
    await append(
      'allpage-a',
      Array.from({ length: 30 }, (_, i) => event('Alpha', { i })),
    );
    await append(
      'allpage-b',
      Array.from({ length: 30 }, (_, i) => event('Beta', { i })),
    );
    const get = (q: string) => call<AllPage>(`/eventlog/all?${q}`);

    const newest = await get('count=25');
    expect(newest.status).toBe(200);
    expect(newest.body.events.every((e) => !e.streamId.startsWith('$') && !e.eventType.startsWith('$'))).toBe(true);
    expect(newest.body.events.at(-1)).toMatchObject({ streamId: 'allpage-b', eventNumber: 29 });
    expect(newest.body.hasNewer).toBe(false);

    // Walk backward over the whole log, then forward again; both walks see the same events once each.
    const backward: string[] = [];
    let page = newest.body;
    backward.unshift(...page.events.map((e) => `${e.streamId}/${e.eventNumber}`));
    while (page.hasOlder) {
      page = (
        await get(
          `count=25&direction=backward&commit=${page.older!.commitPosition}&prepare=${page.older!.preparePosition}`,
        )
      ).body;
      backward.unshift(...page.events.map((e) => `${e.streamId}/${e.eventNumber}`));
    }
    const forward: string[] = [];
    page = (await get('count=25&direction=forward')).body;
    forward.push(...page.events.map((e) => `${e.streamId}/${e.eventNumber}`));
    while (page.hasNewer) {
      page = (
        await get(
          `count=25&direction=forward&commit=${page.newer!.commitPosition}&prepare=${page.newer!.preparePosition}&exclusive=${page.newer!.exclusive}`,
        )
      ).body;
      forward.push(...page.events.map((e) => `${e.streamId}/${e.eventNumber}`));
    }
    expect(forward).toEqual(backward);
    expect(new Set(forward).size).toBe(forward.length);
    expect(forward.filter((k) => k.startsWith('allpage-a/'))).toEqual(
      Array.from({ length: 30 }, (_, i) => `allpage-a/${i}`),
    );

    const withSystem = await get('count=4096&hideSystem=false');
    expect(withSystem.body.events.some((e) => e.streamId.startsWith('$'))).toBe(true);

    const byStream = await get('count=100&streamPrefix=allpage-b');
    expect(byStream.body.events).toHaveLength(30);
    expect(byStream.body.events.every((e) => e.streamId === 'allpage-b')).toBe(true);
    const byType = await get('count=100&eventType=Alph');
    expect(byType.body.events).toHaveLength(30);
    expect(byType.body.events.every((e) => e.eventType === 'Alpha')).toBe(true);
    expect(byType.body.hasOlder).toBe(false);

    expect((await get('direction=forward&commit=-1&prepare=-1')).status).toBe(400);
  });

  it('tails a stream and $all live over WebSocket', async () => {
    const url = `${hp.httpUrl.replace('http', 'ws')}${UI_API_PREFIX}/eventlog/live`;
    const stream = await openLive(`${url}?stream=live-1&access_token=${token}`);
    const all = await openLive(`${url}?streamPrefix=live-&access_token=${token}`);
    expect(stream.messages[0]).toMatchObject({ type: 'subscribed', lastEventNumber: -1 });
    await append('live-other', [event('Other', {})]);
    await append('live-1', [event('Hello', { n: 1 }), event('Hello', { n: 2 })]);
    const got = await stream.next((m) => m.type === 'events');
    expect(got.type === 'events' && got.events.map((e) => [e.eventNumber, e.data.text])).toEqual([
      [0, '{"n":1}'],
      [1, '{"n":2}'],
    ]);
    const fromAll = await all.until((events) => events.length >= 3);
    expect(fromAll.map((e) => e.streamId)).toEqual(['live-other', 'live-1', 'live-1']);
    expect(fromAll[0].position).toBeDefined();
    // Each tail is a volatile subscription like a TCP client's: the subscription monitor lists it.
    const listed = await call<{ subscriptions: { stream: string; connectionName: string; user: string | null }[] }>(
      '/eventlog/subscriptions',
    );
    const tails = listed.body.subscriptions.filter((v) => v.connectionName === 'Homeport UI (live tail)');
    expect(tails.map((v) => v.stream).sort()).toEqual(['$all', 'live-1']);
    stream.close();
    all.close();
    await vi.waitFor(async () => {
      const after = await call<{ subscriptions: { connectionName: string }[] }>('/eventlog/subscriptions');
      expect(after.body.subscriptions.filter((v) => v.connectionName === 'Homeport UI (live tail)')).toEqual([]);
    });
  });

  it('drops and counts events for a live tail that cannot keep up, instead of holding up writers', async () => {
    // A second HTTP server on the same event log, with a tiny live buffer, so overflow is certain.
    const sessions = new UiSessions();
    const app: FastifyInstance = await createHttpServer({
      logger: hp.logger.child({ test: 'live-limits' }),
      rendererDir: null,
      plugins: [
        {
          name: 'ui-api',
          prefix: UI_API_PREFIX,
          plugin: registerUiApi({
            sessions,
            checkCredentials: async () => null,
            changePassword: async () => 'unsupported',
            serverInfo: () => {
              throw new Error('unused');
            },
            logs: hp.logs,
            dataDir: hp.config.dataDir,
            extraRoutes: [
              eventLogUiRoutes(
                eventLogUiDeps({ eventLog: hp.eventLog, subscriptions: hp.subscriptions, connections: () => [] }),
                { live: { maxBuffered: 5, maxBatch: 2, highWaterBytes: 1 << 20 } },
              ),
            ],
          }),
        },
      ],
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const port = (app.server.address() as { port: number }).port;
      const t = sessions.mint({ name: 'owner', via: 'app-token' });
      const live = await openLive(
        `ws://127.0.0.1:${port}${UI_API_PREFIX}/eventlog/live?stream=flood-1&access_token=${t}`,
      );
      // One commit of 50 events reaches the tail as one batch: 5 fit, 45 are dropped and reported.
      const write = await hp.eventLog.store.appendToStream(
        'flood-1',
        ExpectedVersion.Any,
        Array.from({ length: 50 }, (_, i) => event('Flood', { i })),
        ADMIN,
      );
      expect(write.result).toBe('Success');
      const skipped = await live.next((m) => m.type === 'skipped');
      expect(skipped).toEqual({ type: 'skipped', count: 45 });
      const events = await live.until((evs) => evs.length >= 5);
      expect(events.map((e) => e.eventNumber)).toEqual([0, 1, 2, 3, 4]);
      live.close();
    } finally {
      await app.close();
    }
  });

  it('creates, reads, updates and deletes a persistent group, and pages its parked messages', async () => {
    await append('pg-orders', [event('Placed', { n: 1 })]);
    const created = await call<{ group: { stream: string; group: string; settings: { maxRetryCount: number } } }>(
      '/eventlog/persistent-groups/pg-orders/billing',
      {
        method: 'POST',
        body: { startFrom: 0, maxRetryCount: 3, consumerStrategy: 'RoundRobin' },
      },
    );
    expect(created.status).toBe(201);
    expect(created.body.group).toMatchObject({ stream: 'pg-orders', group: 'billing', settings: { maxRetryCount: 3 } });
    expect((await call('/eventlog/persistent-groups/pg-orders/billing', { method: 'POST', body: {} })).status).toBe(
      409,
    );
    const invalid = await call<{ error: string }>('/eventlog/persistent-groups/pg-orders/other', {
      method: 'POST',
      body: { readBatchSize: 50, historyBufferSize: 10 },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toContain('Read batch size');
    expect(
      (
        await call('/eventlog/persistent-groups/pg-orders/other', {
          method: 'POST',
          body: { consumerStrategy: 'Random' },
        })
      ).status,
    ).toBe(400);

    const list = await call<{ groups: { stream: string; group: string; lastKnownEventNumber: number | null }[] }>(
      '/eventlog/persistent-groups',
    );
    expect(list.body.groups).toContainEqual(
      expect.objectContaining({ stream: 'pg-orders', group: 'billing', lastKnownEventNumber: 0 }),
    );

    const updated = await call<{ group: { settings: { maxRetryCount: number; messageTimeoutMs: number } } }>(
      '/eventlog/persistent-groups/pg-orders/billing',
      {
        method: 'PUT',
        body: { startFrom: 0, maxRetryCount: 7, messageTimeoutMs: 5000 },
      },
    );
    expect(updated.status).toBe(200);
    expect(updated.body.group.settings).toMatchObject({ maxRetryCount: 7, messageTimeoutMs: 5000 });

    const parked = await call<StreamPage>('/eventlog/persistent-groups/pg-orders/billing/parked');
    expect(parked.status).toBe(200);
    expect(parked.body.events).toEqual([]);
    const replay = await call<{ replayed: number }>('/eventlog/persistent-groups/pg-orders/billing/parked/replay', {
      method: 'POST',
      body: {},
    });
    expect(replay.body.replayed).toBe(0);

    expect((await call('/eventlog/persistent-groups/pg-orders/billing', { method: 'DELETE' })).status).toBe(200);
    expect((await call('/eventlog/persistent-groups/pg-orders/billing')).status).toBe(404);
    expect((await call('/eventlog/persistent-groups/pg-orders/billing', { method: 'DELETE' })).status).toBe(404);
    expect(
      (await call('/eventlog/persistent-groups/pg-orders/billing/parked/replay', { method: 'POST', body: {} })).status,
    ).toBe(404);
  });

  it('manages event-log users', async () => {
    type Listed = { users: { name: string; defaultPassword: boolean }[] };
    const list = await call<Listed>('/eventlog/users');
    expect(list.body.users.map((u) => u.name)).toEqual(expect.arrayContaining(['admin', 'ops']));
    // ops keeps the public default password until someone changes it: the list says so, for the Server view's warning.
    const opsHasDefault = async () => (await call<Listed>('/eventlog/users')).body.users.find((u) => u.name === 'ops');
    expect(await opsHasDefault()).toMatchObject({ defaultPassword: true });
    expect(
      (await call('/eventlog/users/ops/password', { method: 'PUT', body: { password: 'ops-own-pass' } })).status,
    ).toBe(200);
    expect(await opsHasDefault()).toMatchObject({ defaultPassword: false });
    const added = await call('/eventlog/users', {
      method: 'POST',
      body: { name: 'reporter', password: 'first-pass', groups: ['readers'] },
    });
    expect(added.status).toBe(201);
    expect(await hp.eventLog.users.authenticate('reporter', 'first-pass')).toMatchObject({
      name: 'reporter',
      groups: expect.arrayContaining(['readers']),
    });
    expect((await call('/eventlog/users', { method: 'POST', body: { name: 'reporter', password: 'x' } })).status).toBe(
      409,
    );
    expect((await call('/eventlog/users', { method: 'POST', body: { name: 'bad name', password: 'x' } })).status).toBe(
      400,
    );

    expect(
      (await call('/eventlog/users/reporter/password', { method: 'PUT', body: { password: 'second-pass' } })).status,
    ).toBe(200);
    expect(await hp.eventLog.users.authenticate('reporter', 'second-pass')).not.toBeNull();
    expect(await hp.eventLog.users.authenticate('reporter', 'first-pass')).toBeNull();
    expect((await call('/eventlog/users/nobody/password', { method: 'PUT', body: { password: 'x' } })).status).toBe(
      404,
    );

    expect((await call('/eventlog/users/admin', { method: 'DELETE' })).status).toBe(400);
    expect((await call('/eventlog/users/reporter', { method: 'DELETE' })).status).toBe(200);
    expect(hp.eventLog.users.get('reporter')).toBeUndefined();
  });

  it('issues, lists and revokes bearer tokens; the secret is shown once', async () => {
    type Info = { id: string; user: string; name: string; expiresAt: number | null };
    const own = await call<{ token: string; info: Info }>('/eventlog/tokens', {
      method: 'POST',
      body: { name: 'laptop', expiresInDays: 30 },
    });
    expect(own.status).toBe(201);
    expect(own.body.info).toMatchObject({ user: 'admin', name: 'laptop', expiresAt: expect.any(Number) });
    expect(hp.eventLog.tokens.authenticate(own.body.token)).toMatchObject({ name: 'admin' });
    await hp.eventLog.users.add({ name: 'pipeline', password: 'pipeline-pass' });
    const theirs = await call<{ token: string; info: Info }>('/eventlog/tokens', {
      method: 'POST',
      body: { user: 'pipeline' },
    });
    expect(theirs.body.info).toMatchObject({ user: 'pipeline', expiresAt: null });

    const listed = await call<{ tokens: Info[] }>('/eventlog/tokens');
    expect(listed.body.tokens.map((t) => t.id).sort()).toEqual([own.body.info.id, theirs.body.info.id].sort());
    expect(JSON.stringify(listed.body)).not.toContain(own.body.token);
    expect((await call<{ tokens: Info[] }>('/eventlog/tokens?user=pipeline')).body.tokens).toHaveLength(1);

    for (const body of [{ user: 'nobody' }, { expiresInDays: 0 }, { name: 'x'.repeat(201) }])
      expect((await call('/eventlog/tokens', { method: 'POST', body })).status).toBeGreaterThanOrEqual(400);
    expect((await call(`/eventlog/tokens/${theirs.body.info.id}`, { method: 'DELETE' })).status).toBe(200);
    expect(hp.eventLog.tokens.authenticate(theirs.body.token)).toBeNull();
    expect((await call(`/eventlog/tokens/${theirs.body.info.id}`, { method: 'DELETE' })).status).toBe(404);
  });
});

interface LiveClient {
  messages: LiveMessage[];
  next(pred: (m: LiveMessage) => boolean): Promise<LiveMessage>;
  /** Resolves with every event received so far once `done` says so. */
  until(done: (events: import('./ui-payloads.ts').UiEvent[]) => boolean): Promise<import('./ui-payloads.ts').UiEvent[]>;
  close(): void;
}

/** A WebSocket client that keeps every message, resolved once the server confirmed the subscription. */
function openLive(url: string): Promise<LiveClient> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const messages: LiveMessage[] = [];
    const waiters: (() => void)[] = [];
    ws.on('message', (raw) => {
      messages.push(JSON.parse(String(raw)) as LiveMessage);
      for (const w of waiters.splice(0)) w();
      if (messages.length === 1) resolve(client);
    });
    ws.on('error', reject);
    ws.on('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    const waitFor = <T>(check: () => T | undefined): Promise<T> =>
      new Promise((res) => {
        const attempt = () => {
          const v = check();
          if (v !== undefined) res(v);
          else waiters.push(attempt);
        };
        attempt();
      });
    const client: LiveClient = {
      messages,
      next: (pred) => waitFor(() => messages.find(pred)),
      until: (done) =>
        waitFor(() => {
          const events = messages.flatMap((m) => (m.type === 'events' ? m.events : []));
          return done(events) ? events : undefined;
        }),
      close: () => ws.close(),
    };
  });
}
