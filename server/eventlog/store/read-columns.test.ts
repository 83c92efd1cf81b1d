import crypto from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN, manualClock, openTestStore, type TestStore } from './testing/store.ts';
import { ExpectedVersion, type NewEvent, type RecordedEvent } from './types.ts';

/**
 * Reads take an event's data and metadata from SQLite as one blob and cut it in two (statements.ts): every byte
 * comes back as written, whatever the bytes (not UTF-8, zeros) and whichever part is empty, on every read path.
 */

let t: TestStore;
beforeEach(() => {
  t = openTestStore();
});
afterEach(async () => {
  await t.close();
});

const invalidUtf8 = Buffer.from([0xff, 0x00, 0xc3, 0x28, 0x00, 0xfe, 0x80]);
const written: NewEvent[] = [
  {
    eventId: crypto.randomUUID(),
    eventType: 'Binary',
    isJson: false,
    data: invalidUtf8,
    metadata: crypto.randomBytes(33),
  },
  {
    eventId: crypto.randomUUID(),
    eventType: 'NoMetadata',
    isJson: true,
    data: Buffer.from('{"a":1}'),
    metadata: Buffer.alloc(0),
  },
  {
    eventId: crypto.randomUUID(),
    eventType: 'NoData',
    isJson: false,
    data: Buffer.alloc(0),
    metadata: Buffer.from([0, 0, 1]),
  },
  { eventId: crypto.randomUUID(), eventType: 'Empty', isJson: false, data: Buffer.alloc(0), metadata: Buffer.alloc(0) },
  {
    eventId: crypto.randomUUID(),
    eventType: 'Big',
    isJson: false,
    data: crypto.randomBytes(300_000),
    metadata: invalidUtf8,
  },
];

function expectAsWritten(records: (RecordedEvent | undefined)[]): void {
  expect(records).toHaveLength(written.length);
  records.forEach((r, i) => {
    expect(r?.eventId).toBe(written[i].eventId);
    expect(r?.eventType).toBe(written[i].eventType);
    expect(r?.isJson).toBe(written[i].isJson);
    expect(Buffer.from(r!.data).equals(written[i].data as Buffer)).toBe(true);
    expect(Buffer.from(r!.metadata).equals(written[i].metadata as Buffer)).toBe(true);
  });
}

/** A stream's page, read forward and read backward, holds the written events byte for byte. */
function expectStreamAsWritten(stream: string): void {
  expectAsWritten(t.store.readStreamForward(stream, 0, 100, false, ADMIN).events.map((e) => e.event));
  expectAsWritten(
    t.store
      .readStreamBackward(stream, -1, 100, false, ADMIN)
      .events.map((e) => e.event)
      .reverse(),
  );
}

describe('event bytes on every read path', () => {
  it('come back as written: stream forward and backward, $all both ways, single events and link targets', async () => {
    const { store } = t;
    await store.appendToStream('bytes', ExpectedVersion.Any, written, ADMIN);
    await store.appendToStream(
      'links',
      ExpectedVersion.Any,
      written.map((_, n) => ({
        eventId: crypto.randomUUID(),
        eventType: '$>',
        isJson: false,
        data: Buffer.from(`${n}@bytes`),
        metadata: Buffer.alloc(0),
      })),
      ADMIN,
    );

    expectStreamAsWritten('bytes');
    const start = { commitPosition: 0, preparePosition: 0 };
    const all = store.readAllForward(start, 100, false, ADMIN).events.filter((e) => e.event?.streamId === 'bytes');
    expectAsWritten(all.map((e) => e.event));
    const head = { commitPosition: -1, preparePosition: -1 };
    const back = store.readAllBackward(head, 100, false, ADMIN).events.filter((e) => e.event?.streamId === 'bytes');
    expectAsWritten(back.map((e) => e.event).reverse());
    expectAsWritten(written.map((_, n) => store.readEvent('bytes', n, false, ADMIN).event?.event));
    const resolved = store.readStreamForward('links', 0, 100, true, ADMIN).events;
    expectAsWritten(resolved.map((e) => e.event));
    expect(resolved.every((e) => e.link?.eventType === '$>')).toBe(true);
  });
});

describe('stream pages loaded as one blob', () => {
  it('keep each event its own bytes past expired events and across a byte-budget cut, both ways', async () => {
    await t.close();
    const clock = manualClock();
    t = openTestStore({ clock: clock.now });
    const { store } = t;
    const older = written.slice(0, 2).map((e) => ({ ...e, eventId: crypto.randomUUID() }));
    await store.appendToStream('aged', ExpectedVersion.Any, older, ADMIN);
    clock.advance(100_000);
    await store.appendToStream('aged', ExpectedVersion.Any, written, ADMIN);
    await store.appendToStream(
      '$$aged',
      ExpectedVersion.Any,
      [
        {
          eventId: crypto.randomUUID(),
          eventType: '$metadata',
          isJson: true,
          data: Buffer.from('{"$maxAge":60}'),
          metadata: Buffer.alloc(0),
        },
      ],
      ADMIN,
    );
    // The two oldest have expired: every page holds the five written after them, byte for byte.
    expectStreamAsWritten('aged');
    // A budget that takes the first three (the fourth, 300 KB, does not fit) cuts the page after them.
    const cut = store.readStreamForward('aged', 0, 100, false, ADMIN, { maxBytes: 200_000 });
    expect(cut.events.map((e) => e.event?.eventNumber)).toEqual([2, 3, 4, 5]);
    expect(cut.nextEventNumber).toBe(6);
    cut.events.forEach((e, i) => {
      expect(Buffer.from(e.event!.data).equals(written[i].data as Buffer)).toBe(true);
      expect(Buffer.from(e.event!.metadata).equals(written[i].metadata as Buffer)).toBe(true);
      expect(e.event?.eventId).toBe(written[i].eventId);
    });
  });
});
