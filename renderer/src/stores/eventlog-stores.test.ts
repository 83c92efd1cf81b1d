import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ExpectedVersion, type NewEvent } from '../../../server/eventlog/index.ts';
import { startHomeport, type Homeport } from '../../../server/index.ts';
import { setApiBase, setApiToken } from '../api/client.ts';
import { allMoves, ALL_NEWEST, DEFAULT_FILTERS, useAll } from './all.ts';
import { useEvent } from './event.ts';
import { cursorFromQuery, cursorQuery, NEWEST, pageMoves, useStream } from './stream.ts';
import { effectiveMode, useStreams } from './streams.ts';

// The stores run against a real Homeport over HTTP and WebSocket, exactly as in the page.
const ADMIN = { name: 'admin', groups: ['$admins'] };
let hp: Homeport;
let dataDir: string;

const ev = (type: string, data: unknown): NewEvent => ({
  eventId: crypto.randomUUID(),
  eventType: type,
  isJson: true,
  data: Buffer.from(JSON.stringify(data)),
  metadata: new Uint8Array(),
});
async function append(stream: string, events: NewEvent[]) {
  expect((await hp.eventLog.store.appendToStream(stream, ExpectedVersion.Any, events, ADMIN)).result).toBe('Success');
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-stores-'));
  hp = await startHomeport({
    dataDir,
    httpPort: 0,
    tcpPort: 0,
    tcpTlsPort: null,
    logToConsole: false,
    rendererDir: null,
  });
  setApiBase(hp.httpUrl);
  setApiToken(hp.uiToken);
  await append(
    'store-big',
    Array.from({ length: 1000 }, (_, i) => ev('Tick', { i })),
  );
  await append('store-order-1', [ev('Placed', { n: 1 })]);
  await append('store-order-2', [ev('Placed', { n: 2 }), ev('Paid', { n: 2 })]);
});
afterAll(async () => {
  useStream.getState().close();
  useAll.getState().close();
  await hp.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('stream store', () => {
  it('opens on the newest page and every paging button leads where it says', async () => {
    const s = useStream.getState();
    await s.setCount(100);
    await s.open('store-big', NEWEST);
    let st = useStream.getState();
    expect(st.page!.events.map((e) => e.eventNumber)).toEqual(Array.from({ length: 100 }, (_, i) => 900 + i));
    let moves = pageMoves(st.page, st.cursor);
    expect(moves.next).toBeNull();
    expect(moves.last).toBeNull();
    expect(moves.first).toEqual({ from: 0, direction: 'forward' });

    await s.open('store-big', moves.previous!);
    st = useStream.getState();
    expect(st.page!.events[0].eventNumber).toBe(800);
    expect(st.page!.events.at(-1)!.eventNumber).toBe(899);

    await s.open('store-big', pageMoves(st.page, st.cursor).first!);
    st = useStream.getState();
    expect(st.page!.events[0].eventNumber).toBe(0);
    moves = pageMoves(st.page, st.cursor);
    expect(moves.first).toBeNull();
    expect(moves.previous).toBeNull();

    await s.open('store-big', moves.next!);
    expect(useStream.getState().page!.events[0].eventNumber).toBe(100);
    await s.open('store-big', pageMoves(useStream.getState().page, useStream.getState().cursor).last!);
    expect(useStream.getState().page!.events.at(-1)!.eventNumber).toBe(999);
  });

  it('round-trips its cursor through the address bar', () => {
    expect(cursorFromQuery({})).toEqual(NEWEST);
    expect(cursorFromQuery(cursorQuery({ from: 40, direction: 'forward' }) as Record<string, string>)).toEqual({
      from: 40,
      direction: 'forward',
    });
    expect(cursorFromQuery({ from: 'abc' })).toEqual(NEWEST);
    expect(cursorFromQuery({ from: '-1', dir: 'forward' })).toEqual(NEWEST);
  });

  it('expands and collapses every row of the page', async () => {
    const s = useStream.getState();
    await s.open('store-order-2', NEWEST);
    s.expandAll();
    expect(Object.keys(useStream.getState().expanded).sort()).toEqual(['0', '1']);
    s.toggleRow(0);
    expect(useStream.getState().expanded).toEqual({ 1: true });
    s.collapseAll();
    expect(useStream.getState().expanded).toEqual({});
  });

  it('appends live events to the newest page, counts them while paused, and catches up on resume', async () => {
    const s = useStream.getState();
    await s.setCount(20);
    await s.open('store-live', NEWEST);
    await vi.waitFor(() => expect(useStream.getState().live).toBe('live'));
    expect(useStream.getState().page!.exists).toBe(false);

    await append('store-live', [ev('Hello', { n: 0 }), ev('Hello', { n: 1 })]);
    await vi.waitFor(() => expect(useStream.getState().page!.events.map((e) => e.eventNumber)).toEqual([0, 1]));
    expect(useStream.getState().page!.lastEventNumber).toBe(1);

    // More than a page arrives: the window slides and older events become reachable.
    await append(
      'store-live',
      Array.from({ length: 25 }, (_, i) => ev('Hello', { n: i + 2 })),
    );
    await vi.waitFor(() => expect(useStream.getState().page!.events.at(-1)!.eventNumber).toBe(26));
    expect(useStream.getState().page!.events).toHaveLength(20);
    expect(useStream.getState().page!.hasOlder).toBe(true);

    useStream.getState().pause();
    await append('store-live', [ev('Hello', { n: 27 }), ev('Hello', { n: 28 })]);
    await vi.waitFor(() => expect(useStream.getState().arrived).toBe(2));
    expect(useStream.getState().page!.events.at(-1)!.eventNumber).toBe(26);
    expect(pageMoves(useStream.getState().page, useStream.getState().cursor).next).not.toBeNull();

    await useStream.getState().resume();
    expect(useStream.getState().page!.events.at(-1)!.eventNumber).toBe(28);
    expect(useStream.getState().arrived).toBe(0);
  });

  it('on an older page, counts new events instead of moving the page', async () => {
    const s = useStream.getState();
    await s.open('store-live', { from: 0, direction: 'forward' });
    const firstBefore = useStream.getState().page!.events[0].eventNumber;
    await append('store-live', [ev('Hello', { n: 29 })]);
    await vi.waitFor(() => expect(useStream.getState().arrived).toBe(1));
    expect(useStream.getState().page!.events[0].eventNumber).toBe(firstBefore);
    expect(useStream.getState().page!.hasNewer).toBe(true);
  });

  it('saves metadata and reloads the page so truncation shows at once', async () => {
    const s = useStream.getState();
    await s.open('store-order-2', NEWEST);
    await vi.waitFor(() => expect(useStream.getState().metadata).not.toBeNull());
    await useStream.getState().saveMetadata({ $tb: 1 });
    const st = useStream.getState();
    expect(st.metadata!.metadata).toEqual({ $tb: 1 });
    expect(st.page!.events.map((e) => e.eventNumber)).toEqual([1]);
    await expect(useStream.getState().saveMetadata({ $maxCount: 0 })).rejects.toThrow(/\$maxCount/);
  });

  it('shows the server message when a read fails', async () => {
    await hp.eventLog.store.appendToStream('store-gone', ExpectedVersion.Any, [ev('E', {})], ADMIN);
    await hp.eventLog.store.deleteStream('store-gone', ExpectedVersion.Any, true, ADMIN);
    await useStream.getState().open('store-gone', NEWEST);
    expect(useStream.getState().error).toMatch(/has been deleted/);
    expect(useStream.getState().page).toBeNull();
  });
});

describe('event store', () => {
  it('loads one event with its neighbours', async () => {
    await useEvent.getState().open('store-big', 500);
    const d = useEvent.getState().detail!;
    expect(d.event.eventNumber).toBe(500);
    expect(d.event.data.text).toBe('{"i":500}');
    expect([d.previous, d.next]).toEqual([499, 501]);
    await useEvent.getState().open('store-big', 5000);
    expect(useEvent.getState().error).toMatch(/Event 5000/);
  });
});

describe('streams store', () => {
  it('searches by prefix, exact name and wildcard', async () => {
    const s = useStreams.getState();
    s.setQuery('store-order-', 'prefix');
    await useStreams.getState().search();
    expect(useStreams.getState().results!.map((r) => r.streamId)).toEqual(['store-order-1', 'store-order-2']);
    s.setQuery('store-order-2', 'exact');
    await useStreams.getState().search();
    expect(useStreams.getState().results!.map((r) => r.streamId)).toEqual(['store-order-2']);
    s.setQuery('store-*-1', 'prefix');
    expect(effectiveMode('store-*-1', 'prefix')).toBe('wildcard');
    await useStreams.getState().search();
    expect(useStreams.getState().results!.map((r) => r.streamId)).toEqual(['store-order-1']);
    s.clearSearch();
    expect(useStreams.getState().results).toBeNull();
  });

  it('loads recent streams and categories', async () => {
    await useStreams.getState().loadOverview();
    const st = useStreams.getState();
    expect(st.error).toBeNull();
    expect(st.recent!.created.map((r) => r.streamId)).toContain('store-order-2');
    expect(st.categories).toContainEqual({ category: 'store', streams: expect.any(Number) });
  });
});

describe('$all store', () => {
  it('pages the log with filters and follows it live', async () => {
    const a = useAll.getState();
    await a.setCount(5);
    await a.open(ALL_NEWEST, { ...DEFAULT_FILTERS, streamPrefix: 'store-order-' });
    let st = useAll.getState();
    expect(st.page!.events.map((e) => `${e.streamId}/${e.eventNumber}`)).toEqual([
      'store-order-1/0',
      'store-order-2/0',
      'store-order-2/1',
    ]);
    expect(allMoves(st.page).previous).toBeNull();
    await vi.waitFor(() => expect(useAll.getState().live).toBe('live'));

    await append('store-order-3', [ev('Placed', { n: 3 })]);
    await append('elsewhere', [ev('Placed', { n: 0 })]);
    await vi.waitFor(() => expect(useAll.getState().page!.events.at(-1)!.streamId).toBe('store-order-3'));
    st = useAll.getState();
    expect(st.page!.events.some((e) => e.streamId === 'elsewhere')).toBe(false);
    expect(st.page!.events).toHaveLength(4);

    // Unfiltered, backward then forward again lands on the same events.
    await a.open(ALL_NEWEST, DEFAULT_FILTERS);
    const newest = useAll.getState().page!;
    await a.open(allMoves(newest).previous!, DEFAULT_FILTERS);
    const older = useAll.getState().page!;
    expect(older.events.at(-1)!.position!.commitPosition).toBeLessThan(newest.events[0].position!.commitPosition);
    await a.open(allMoves(older).next!, DEFAULT_FILTERS);
    expect(useAll.getState().page!.events.map((e) => e.eventId)).toEqual(newest.events.map((e) => e.eventId));
  });
});
