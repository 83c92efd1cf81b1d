import crypto from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { entryBytes } from './read-budget.ts';
import { ADMIN, linkEvent, openTestStore, type TestStore } from './testing/store.ts';
import {
  ExpectedVersion,
  type NewEvent,
  type Position,
  type ReadAllResult,
  type ResolvedIndexedEvent,
} from './types.ts';

/**
 * A read is bounded in bytes while it is built: links to one big event used to materialize a copy of it per
 * link before the reply was trimmed (one anonymous read of 4,095 links to an 8 MB event took gigabytes).
 */

const { Any } = ExpectedVersion;
const MB = 1024 * 1024;
const HEAD: Position = { commitPosition: -1, preparePosition: -1 };
const START: Position = { commitPosition: 0, preparePosition: 0 };

let t: TestStore;
beforeEach(() => {
  t = openTestStore({ limits: { maxReadBytes: 3 * MB } });
});
afterEach(async () => {
  await t.close();
});

function bigEvent(bytes: number): NewEvent {
  return {
    eventId: crypto.randomUUID(),
    eventType: 'Big',
    isJson: false,
    data: crypto.randomBytes(bytes),
    metadata: Buffer.alloc(0),
  };
}

/** One 1 MB event and `links` links to it, in stream `links`. */
async function linksToOneBigEvent(links: number): Promise<void> {
  expect((await t.store.appendToStream('big', Any, [bigEvent(MB)], null)).result).toBe('Success');
  const batch = Array.from({ length: links }, () => linkEvent('0@big'));
  expect((await t.store.appendToStream('links', Any, batch, null)).result).toBe('Success');
}

function pageBytes(events: readonly ResolvedIndexedEvent[]): number {
  return events.reduce((sum, e) => sum + entryBytes(e), 0);
}

describe('stream reads resolving links', () => {
  it('stop at the byte budget and page on by event number, forward and backward', async () => {
    await linksToOneBigEvent(200);
    const forward: number[] = [];
    let from = 0;
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(200);
      const r = t.store.readStreamForward('links', from, 4096, true, null, { maxBytes: 4 * MB });
      expect(r.result).toBe('Success');
      expect(r.events.length).toBeGreaterThan(0);
      expect(r.events.length).toBeLessThanOrEqual(4);
      expect(pageBytes(r.events)).toBeLessThanOrEqual(4 * MB);
      for (const e of r.events) {
        expect(e.event!.streamId).toBe('big');
        expect(e.event!.data.length).toBe(MB);
        forward.push(e.link!.eventNumber);
      }
      // The links of one page share one copy of their target.
      expect(new Set(r.events.map((e) => e.event)).size).toBe(1);
      if (r.isEndOfStream) break;
      expect(r.nextEventNumber).toBe(forward[forward.length - 1] + 1);
      from = r.nextEventNumber;
    }
    expect(forward).toEqual(Array.from({ length: 200 }, (_, i) => i));

    const backward: number[] = [];
    from = -1;
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(200);
      const r = t.store.readStreamBackward('links', from, 4096, true, null, { maxBytes: 4 * MB });
      expect(r.events.length).toBeLessThanOrEqual(4);
      backward.push(...r.events.map((e) => e.link!.eventNumber));
      if (r.isEndOfStream) break;
      expect(r.nextEventNumber).toBe(backward[backward.length - 1] - 1);
      from = r.nextEventNumber;
    }
    expect(backward).toEqual(Array.from({ length: 200 }, (_, i) => 199 - i));
  });

  it('use the store-wide default budget when the caller gives none', async () => {
    await linksToOneBigEvent(50);
    const r = t.store.readStreamForward('links', 0, 50, true, null);
    expect(r.events.length).toBe(2); // 3 MB budget, a little over 1 MB each
    expect(r).toMatchObject({ nextEventNumber: 2, isEndOfStream: false });
  });

  it('always return one entry, even one bigger than the budget', async () => {
    await linksToOneBigEvent(3);
    const r = t.store.readStreamForward('links', 0, 10, true, null, { maxBytes: 1000 });
    expect(r.events.length).toBe(1);
    expect(r).toMatchObject({ nextEventNumber: 1, isEndOfStream: false });
  });

  it('bound reads of big events that are not links the same way', async () => {
    for (let i = 0; i < 10; i++) await t.store.appendToStream('plain', Any, [bigEvent(MB / 2)], null);
    const r = t.store.readStreamForward('plain', 0, 100, false, null, { maxBytes: 2 * MB });
    expect(r.events.map((e) => e.event!.eventNumber)).toEqual([0, 1, 2]);
    expect(r).toMatchObject({ nextEventNumber: 3, isEndOfStream: false });
    const back = t.store.readStreamBackward('plain', -1, 100, false, null, { maxBytes: 2 * MB });
    expect(back.events.map((e) => e.event!.eventNumber)).toEqual([9, 8, 7]);
    expect(back).toMatchObject({ nextEventNumber: 6, isEndOfStream: false });
  });

  it('share one target between reads while it is in use', async () => {
    await linksToOneBigEvent(2);
    const a = t.store.readStreamForward('links', 0, 1, true, null);
    const b = t.store.readEvent('links', 1, true, null);
    expect(b.event!.event).toBe(a.events[0].event);
    const live = t.store.resolveLink(a.events[0].link!, null);
    expect(live.event).toBe(a.events[0].event);
  });
});

describe('$all reads resolving links', () => {
  /** Pages through $all from one end with the given read, returning the link numbers seen. */
  function pageThrough(read: (from: Position) => ReadAllResult, from: Position): number[] {
    const seen: number[] = [];
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(300);
      const r = read(from);
      expect(r.result).toBe('Success');
      expect(r.events.length).toBeLessThanOrEqual(4);
      expect(pageBytes(r.events)).toBeLessThanOrEqual(4 * MB);
      for (const e of r.events) if (e.link) seen.push(e.link.eventNumber);
      if (r.isEndOfStream) break;
      from = r.nextPosition;
    }
    return seen;
  }

  it('stop at the byte budget and page on by position, plain and filtered, both ways', async () => {
    await linksToOneBigEvent(60);
    const ascending = Array.from({ length: 60 }, (_, i) => i);
    const descending = [...ascending].reverse();
    const budget = { maxBytes: 4 * MB };
    expect(pageThrough((p) => t.store.readAllForward(p, 4096, true, ADMIN, budget), START)).toEqual(ascending);
    expect(pageThrough((p) => t.store.readAllBackward(p, 4096, true, ADMIN, budget), HEAD)).toEqual(descending);
    const links = { context: 'EventType' as const, type: 'Prefix' as const, data: ['$>'] };
    expect(
      pageThrough((p) => t.store.filteredReadAllForward(p, 4096, 4096, links, true, ADMIN, budget), START),
    ).toEqual(ascending);
    expect(
      pageThrough((p) => t.store.filteredReadAllBackward(p, 4096, 4096, links, true, ADMIN, budget), HEAD),
    ).toEqual(descending);
  });
});
