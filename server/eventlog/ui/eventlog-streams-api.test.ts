import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { StreamPage } from './events.ts';
import { ADMIN, event, useEventLogUiApi } from './testing/ui-api.ts';

/** The event-log UI API's stream pages: finding streams, paging one, an event with its neighbours, adding an event, metadata, deletion. */

const ui = useEventLogUiApi();
const { call, append } = ui;
const enc = encodeURIComponent;

describe('event-log UI API: streams', () => {
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
    expect(ui.hp.eventLog.store.lastEventNumber('added-1')).toBe(-1);

    const eventId = crypto.randomUUID();
    const ok = await call<{ eventId: string; eventNumber: number }>('/eventlog/streams/added-1/events', {
      method: 'POST',
      body: { eventType: 'Placed', data: '{"total": 12}', metadata: '{"by":"ui"}', eventId },
    });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ eventId, eventNumber: 0 });
    const read = ui.hp.eventLog.store.readEvent('added-1', 0, false, ADMIN);
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
});
