import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, manualClock, metadataEvent, openTestStore } from '../store/testing/store.ts';
import { ExpectedVersion, type NewEvent, type Position, type ReadStreamResultCode } from '../store/types.ts';
import { type ReadOptions } from '../store/store-contract.ts';
import { eventNumberToWire, resolvedEventToWire, resolvedIndexedEventToWire } from './codec.ts';
import { encodeMessage, enumTable } from './messages.ts';
import { encodeReadAllRowsCompleted, encodeReadStreamRowsCompleted } from './row-encoder.ts';

/**
 * Pages read without link resolution are encoded from SQLite's rows (row-encoder.ts, no entry objects): every `$all`
 * and stream page, cut by count or by the byte budget, both ways, must be the same bytes protobufjs makes of the
 * entries the store's ordinary read returns for the same request.
 */

const clock = manualClock(Date.UTC(1999, 0, 1));
const t = openTestStore({ clock: clock.now });
afterAll(() => t.close());
beforeAll(() => seed());

const bytes = (data: Buffer | string, metadata: Buffer | string, eventType = 'Kind', isJson = false): NewEvent => ({
  eventId: crypto.randomUUID(),
  eventType,
  isJson,
  data: Buffer.from(data),
  metadata: Buffer.from(metadata),
});

const invalidUtf8 = Buffer.from([0xff, 0x00, 0xc3, 0x28, 0x00, 0xfe, 0x80]);

async function seed(): Promise<void> {
  const { store } = t;
  await store.appendToStream('plain', ExpectedVersion.Any, [bytes('{"a":1}', '{"m":2}', 'Json', true)], ADMIN);
  clock.advance(31 * 24 * 3600 * 1000 * 12 * 27);
  await store.appendToStream(
    'straße-🚢',
    ExpectedVersion.Any,
    [bytes(invalidUtf8, crypto.randomBytes(33), 'Événement'), bytes('', '', 'Empty'), bytes('', invalidUtf8)],
    ADMIN,
  );
  // An explicit transaction: its events' commit position (the commit's) differs from their prepare positions.
  const tx = await store.startTransaction('in-transaction', ExpectedVersion.Any, ADMIN);
  await store.transactionWrite(tx.transactionId, [bytes('{"t":1}', '', 'Tx', true)], ADMIN);
  await store.appendToStream('between', ExpectedVersion.Any, [bytes('x', 'y')], ADMIN);
  await store.transactionWrite(tx.transactionId, [bytes('{"t":2}', '', 'Tx', true)], ADMIN);
  await store.commitTransaction(tx.transactionId, ADMIN);
  await store.appendToStream('big', ExpectedVersion.Any, [bytes(crypto.randomBytes(70_000), invalidUtf8)], ADMIN);
  await store.appendToStream('$>-links', ExpectedVersion.Any, [bytes('0@plain', '', '$>'), bytes('1@big', '')], ADMIN);
  // A stream whose first events expire ($maxAge): the reads skip them.
  await store.appendToStream('$$aging', ExpectedVersion.Any, [metadataEvent({ $maxAge: 60 })], ADMIN);
  await store.appendToStream('aging', ExpectedVersion.Any, [bytes('old', ''), bytes('older', '')], ADMIN);
  clock.advance(120_000);
  await store.appendToStream('aging', ExpectedVersion.Any, [bytes('new', 'm'), bytes('newer', '')], ADMIN);
  await store.appendToStream('gone', ExpectedVersion.Any, [bytes('x', '')], ADMIN);
  await store.deleteStream('gone', ExpectedVersion.Any, true, ADMIN);
  // Events 0..149 of one stream: event numbers and positions past one byte of varint, many rows to a page.
  for (let n = 0; n < 2; n++)
    await t.store.appendToStream(
      'many',
      ExpectedVersion.Any,
      Array.from({ length: 75 }, (_, i) => bytes(`{"i":${i}}`, '', 'Many', true)),
      ADMIN,
    );
}

/** The same request through the rows and through the entries: same page, same positions, same bytes. */
function expectSamePage(forward: boolean, from: Position, maxCount: number, options: ReadOptions): Position | null {
  const { store } = t;
  const entries = (forward ? store.readAllForward : store.readAllBackward)(from, maxCount, false, ADMIN, options);
  const rows = (forward ? store.readAllRowsForward : store.readAllRowsBackward)(from, maxCount, ADMIN, options);
  const frame = {
    commitPosition: rows.position.commitPosition,
    preparePosition: rows.position.preparePosition,
    nextCommitPosition: rows.nextPosition.commitPosition,
    nextPreparePosition: rows.nextPosition.preparePosition,
    result: 0,
  };
  expect(rows.rows).toHaveLength(entries.events.length);
  expect({ ...rows, rows: undefined }).toEqual({ ...entries, events: undefined });
  const expected = encodeMessage('ReadAllEventsCompleted', {
    ...frame,
    events: entries.events.map(resolvedEventToWire),
  });
  expect(Buffer.from(encodeReadAllRowsCompleted({ ...frame, rows: rows.rows }))).toEqual(Buffer.from(expected));
  return entries.events.length === 0 ? null : rows.nextPosition;
}

const ReadStreamResultWire = enumTable<ReadStreamResultCode>('ReadStreamEventsCompleted.ReadStreamResult');

/** A stream page through the rows and through the entries: same result, same bytes; the next page's number. */
function expectSameStreamPage(
  stream: string,
  forward: boolean,
  from: number,
  maxCount: number,
  options: ReadOptions,
): number | null {
  const { store } = t;
  const entries = (forward ? store.readStreamForward : store.readStreamBackward)(
    stream,
    from,
    maxCount,
    false,
    ADMIN,
    options,
  );
  const rows = (forward ? store.readStreamRowsForward : store.readStreamRowsBackward)(
    stream,
    from,
    maxCount,
    ADMIN,
    options,
  );
  expect(rows.rows).toHaveLength(entries.events.length);
  expect({ ...rows, rows: undefined, streamId: undefined }).toEqual({ ...entries, events: undefined });
  const { events, result, ...fields } = entries;
  const expected = encodeMessage('ReadStreamEventsCompleted', {
    ...fields,
    // A deleted stream's last event number goes out as long.MaxValue, as the TCP codec sends it.
    nextEventNumber: eventNumberToWire(fields.nextEventNumber),
    lastEventNumber: eventNumberToWire(fields.lastEventNumber),
    result: ReadStreamResultWire[result],
    events: events.map(resolvedIndexedEventToWire),
  });
  const encoded = encodeReadStreamRowsCompleted({ ...rows, result: ReadStreamResultWire[rows.result] });
  expect(Buffer.from(encoded)).toEqual(Buffer.from(expected));
  return entries.isEndOfStream ? null : entries.nextEventNumber;
}

describe('stream pages encoded from rows', () => {
  it('are the bytes of the entries, page by page, by count and by byte budget, both ways, past expired events', () => {
    let pages = 0;
    for (const stream of ['many', 'straße-🚢', 'big', '$>-links', 'in-transaction', 'aging', 'gone', 'never'])
      for (const forward of [true, false])
        for (const maxCount of [1, 7, 4096])
          for (const maxBytes of [undefined, 300, 600, 1300]) {
            let from: number | null = forward ? 0 : -1;
            for (let page = 0; from !== null && page < 200; page++) {
              from = expectSameStreamPage(stream, forward, from, maxCount, maxBytes === undefined ? {} : { maxBytes });
              pages++;
            }
            expect(from, `${stream} read to its end`).toBeNull();
          }
    expect(pages).toBeGreaterThan(300);
  });
});

describe('$all pages encoded from rows', () => {
  it('are the bytes of the entries, page by page, by count and by byte budget, forward and backward', () => {
    const all = t.store.readAllForward({ commitPosition: 0, preparePosition: 0 }, 4096, false, ADMIN).events;
    expect(all.some((e) => e.commitPosition !== e.preparePosition)).toBe(true);
    let pages = 0;
    for (const forward of [true, false])
      for (const maxCount of [1, 7, 4096])
        for (const maxBytes of [undefined, 600, 80_000]) {
          let from: Position | null = forward
            ? { commitPosition: 0, preparePosition: 0 }
            : { commitPosition: -1, preparePosition: -1 };
          let read = 0;
          while (from && read < 400) {
            from = expectSamePage(forward, from, maxCount, maxBytes === undefined ? {} : { maxBytes });
            read += maxCount;
            pages++;
            // A backward read's next position past the first event is where it stands: stop there.
            if (!forward && from && from.preparePosition <= 0) break;
          }
        }
    expect(pages).toBeGreaterThan(200);
  });

  it('fail as the entries do: a caller $all refuses, a bad position', () => {
    const { store } = t;
    const start = { commitPosition: 0, preparePosition: 0 };
    const denied = store.readAllRowsForward(start, 10, null);
    expect(denied.result).toBe('AccessDenied');
    expect(denied.rows).toEqual([]);
    const bad = store.readAllRowsBackward({ commitPosition: -5, preparePosition: 3 }, 10, ADMIN);
    expect({ ...bad, rows: undefined }).toEqual({
      ...store.readAllBackward({ commitPosition: -5, preparePosition: 3 }, 10, false, ADMIN),
      events: undefined,
    });
    expect(bad.rows).toEqual([]);
  });
});
