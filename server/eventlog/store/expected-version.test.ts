import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { event, events, metadataEvent, openTestStore, type TestStore } from './testing/store.ts';
import {
  EVENT_NUMBER_DELETED,
  EVENT_NUMBER_INVALID,
  ExpectedVersion,
  StoreBadRequestError,
  type NewEvent,
} from './types.ts';

const { Any, NoStream, StreamExists } = ExpectedVersion;

let t: TestStore;
beforeEach(() => {
  t = openTestStore();
});
afterEach(async () => {
  await t.close();
});

function numbers(streamId: string): number[] {
  const r = t.store.readStreamForward(streamId, 0, 4096, false, null);
  return r.events.map((e) => e.event!.eventNumber);
}

describe('appends and expected versions', () => {
  it('numbers events from 0 and reports the write (p, p) position of the last event', async () => {
    const r = await t.store.appendToStream('order-1', NoStream, events(3), null);
    expect(r).toMatchObject({ result: 'Success', firstEventNumber: 0, lastEventNumber: 2 });
    expect(r.preparePosition).toBe(r.commitPosition);
    expect(r.commitPosition).toBeGreaterThan(0);
    const read = t.store.readStreamForward('order-1', 0, 10, false, null);
    expect(read.events.map((e) => e.event!.eventNumber)).toEqual([0, 1, 2]);
    expect(read.events[2].event!.commitPosition).toBe(r.commitPosition);
  });

  it('Any appends to new and existing streams', async () => {
    expect(await t.store.appendToStream('s', Any, events(2), null)).toMatchObject({
      result: 'Success',
      firstEventNumber: 0,
      lastEventNumber: 1,
    });
    expect(await t.store.appendToStream('s', Any, events(1), null)).toMatchObject({
      result: 'Success',
      firstEventNumber: 2,
      lastEventNumber: 2,
    });
    expect(numbers('s')).toEqual([0, 1, 2]);
  });

  it('an exact version must equal the last event number', async () => {
    await t.store.appendToStream('s', NoStream, events(2), null);
    expect(await t.store.appendToStream('s', 1, events(1), null)).toMatchObject({
      result: 'Success',
      firstEventNumber: 2,
      lastEventNumber: 2,
    });
    const tooHigh = await t.store.appendToStream('s', 5, events(1), null);
    expect(tooHigh).toEqual({
      result: 'WrongExpectedVersion',
      message: 'Wrong expected version.',
      firstEventNumber: EVENT_NUMBER_INVALID,
      lastEventNumber: EVENT_NUMBER_INVALID,
      preparePosition: EVENT_NUMBER_INVALID,
      commitPosition: EVENT_NUMBER_INVALID,
      currentVersion: 2,
    });
    const tooLow = await t.store.appendToStream('s', 0, events(1), null);
    expect(tooLow).toMatchObject({ result: 'WrongExpectedVersion', currentVersion: 2 });
    expect(numbers('s')).toEqual([0, 1, 2]);
  });

  it('NoStream fails on a stream with events; exact versions fail on a missing stream', async () => {
    await t.store.appendToStream('s', NoStream, events(1), null);
    expect(await t.store.appendToStream('s', NoStream, events(1), null)).toMatchObject({
      result: 'WrongExpectedVersion',
      currentVersion: 0,
    });
    expect(await t.store.appendToStream('missing', 0, events(1), null)).toMatchObject({
      result: 'WrongExpectedVersion',
      currentVersion: -1,
    });
  });

  it('StreamExists needs events or metadata, and reports deletion as StreamDeleted', async () => {
    expect(await t.store.appendToStream('s', StreamExists, events(1), null)).toMatchObject({
      result: 'WrongExpectedVersion',
      currentVersion: -1,
    });
    await t.store.appendToStream('$$meta-only', Any, [metadataEvent({ custom: 1 })], null);
    expect(await t.store.appendToStream('meta-only', StreamExists, events(1), null)).toMatchObject({
      result: 'Success',
      firstEventNumber: 0,
    });
    await t.store.appendToStream('s', NoStream, events(1), null);
    expect(await t.store.appendToStream('s', StreamExists, events(1), null)).toMatchObject({
      result: 'Success',
      firstEventNumber: 1,
    });
    await t.store.deleteStream('s', Any, false, null);
    expect(await t.store.appendToStream('s', StreamExists, events(1), null)).toMatchObject({ result: 'StreamDeleted' });
    await t.store.appendToStream('h', NoStream, events(1), null);
    await t.store.deleteStream('h', Any, true, null);
    expect(await t.store.appendToStream('h', StreamExists, events(1), null)).toMatchObject({
      result: 'StreamDeleted',
      currentVersion: EVENT_NUMBER_DELETED,
    });
  });

  it('zero-event writes check the version and write nothing', async () => {
    expect(await t.store.appendToStream('empty', NoStream, [], null)).toEqual({
      result: 'Success',
      firstEventNumber: 0,
      lastEventNumber: -1,
      preparePosition: -1,
      commitPosition: -1,
    });
    expect(t.store.readStreamForward('empty', 0, 10, false, null).result).toBe('NoStream');
    expect(t.store.lastCommitPosition()).toBe(0);
    await t.store.appendToStream('s', NoStream, events(2), null);
    expect(await t.store.appendToStream('s', Any, [], null)).toMatchObject({
      result: 'Success',
      firstEventNumber: 2,
      lastEventNumber: 1,
    });
    expect(await t.store.appendToStream('s', 1, [], null)).toMatchObject({
      result: 'Success',
      firstEventNumber: 2,
      lastEventNumber: 1,
    });
    expect(await t.store.appendToStream('s', 0, [], null)).toMatchObject({
      result: 'WrongExpectedVersion',
      currentVersion: 1,
    });
    expect(await t.store.appendToStream('s', 7, [], null)).toMatchObject({
      result: 'WrongExpectedVersion',
      currentVersion: 1,
    });
  });

  it('refuses writes to $all and rejects malformed requests without touching the log', async () => {
    expect(await t.store.appendToStream('$all', Any, events(1), null)).toMatchObject({ result: 'AccessDenied' });
    await expect(t.store.appendToStream('', Any, events(1), null)).rejects.toBeInstanceOf(StoreBadRequestError);
    await expect(t.store.appendToStream('s', Any, [{ ...event(), eventId: 'not-a-uuid' }], null)).rejects.toThrow(
      /not a UUID/,
    );
    await expect(t.store.appendToStream('s', 1.5, events(1), null)).rejects.toBeInstanceOf(StoreBadRequestError);
    await expect(
      t.store.appendToStream('s', Any, [{ ...event(), data: 'text' as unknown as Uint8Array }], null),
    ).rejects.toThrow(/data bytes/);
    await expect(t.store.deleteStream('', Any, false, null)).rejects.toBeInstanceOf(StoreBadRequestError);
    expect(t.store.lastCommitPosition()).toBe(0);
    expect(await t.store.appendToStream('s', Any, events(1), null)).toMatchObject({
      result: 'Success',
      firstEventNumber: 0,
    });
  });

  it('takes event ids as UUID text in either case and refuses any other shape', async () => {
    const id = 'A1b2C3d4-0e0F-4a5b-8c9D-aAbBcCdDeEfF';
    expect(await t.store.appendToStream('ids', Any, [{ ...event(), eventId: id }], null)).toMatchObject({
      firstEventNumber: 0,
    });
    // The same id in lower case is the same event: an idempotent retry, not a second write.
    expect(await t.store.appendToStream('ids', Any, [{ ...event(), eventId: id.toLowerCase() }], null)).toMatchObject({
      result: 'Success',
      firstEventNumber: 0,
      lastEventNumber: 0,
    });
    expect(t.store.readStreamForward('ids', 0, 10, false, null).events.map((e) => e.event!.eventId)).toEqual([
      id.toLowerCase(),
    ]);
    const refused = [
      '',
      'a1b2c3d4-0e0f-4a5b-8c9d-aabbccddeef', // one digit short
      'a1b2c3d4-0e0f-4a5b-8c9d-aabbccddeefff',
      'a1b2c3d40e0f-4a5b-8c9d-aabbccddeeff-',
      'a1b2c3d4-0e0f-4a5b-8c9d-aabbccddeefg',
      'a1b2c3d4-0e0f-4a5b-8c9d-aabbccddee\u00ff\u00ff',
      ' a1b2c3d4-0e0f-4a5b-8c9d-aabbccddeef',
    ];
    for (const eventId of refused)
      await expect(t.store.appendToStream('ids', Any, [{ ...event(), eventId }], null)).rejects.toThrow(/not a UUID/);
    expect(numbers('ids')).toEqual([0]);
  });

  it('keeps event data, metadata, type, JSON flag and id as written', async () => {
    const e: NewEvent = {
      eventId: 'A1B2C3D4-0000-4000-8000-00000000000F',
      eventType: 'Shipped',
      isJson: false,
      data: Buffer.from([0, 1, 2, 255]),
      metadata: Buffer.from('meta'),
    };
    await t.store.appendToStream('raw', Any, [e], null);
    const got = t.store.readEvent('raw', 0, false, null).event!.event!;
    expect(got).toMatchObject({
      streamId: 'raw',
      eventNumber: 0,
      eventId: 'a1b2c3d4-0000-4000-8000-00000000000f',
      eventType: 'Shipped',
      isJson: false,
    });
    expect(Buffer.from(got.data)).toEqual(Buffer.from([0, 1, 2, 255]));
    expect(Buffer.from(got.metadata).toString()).toBe('meta');
  });
});

describe('idempotent writes (same event ids)', () => {
  it('a retry with the same exact version returns the original numbers and position', async () => {
    const batch = events(3);
    const first = await t.store.appendToStream('s', NoStream, batch, null);
    const retry = await t.store.appendToStream('s', NoStream, batch, null);
    expect(retry).toEqual({ ...first });
    expect(numbers('s')).toEqual([0, 1, 2]);
  });

  it('a retry of a later batch with its exact version is idempotent', async () => {
    await t.store.appendToStream('s', NoStream, events(3), null);
    const second = events(2);
    await t.store.appendToStream('s', 2, second, null);
    await t.store.appendToStream('s', 4, events(1), null);
    expect(await t.store.appendToStream('s', 2, second, null)).toMatchObject({
      result: 'Success',
      firstEventNumber: 3,
      lastEventNumber: 4,
    });
    expect(numbers('s')).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('a retry with Any or StreamExists finds the events by id', async () => {
    await t.store.appendToStream('s', NoStream, events(1), null);
    const batch = events(2);
    const first = await t.store.appendToStream('s', Any, batch, null);
    await t.store.appendToStream('s', Any, events(1), null);
    expect(await t.store.appendToStream('s', Any, batch, null)).toEqual(first);
    expect(await t.store.appendToStream('s', StreamExists, batch, null)).toMatchObject({
      firstEventNumber: 1,
      lastEventNumber: 2,
    });
    expect(numbers('s')).toEqual([0, 1, 2, 3]);
  });

  it('a retry with Any inside the same group commit finds the events the commit under way wrote', async () => {
    const batch = events(2);
    // Neither awaited before the other: both queue for one commit, the retry's ids are found in the commit's batch.
    const [first, retry] = await Promise.all([
      t.store.appendToStream('fresh', Any, batch, null),
      t.store.appendToStream('fresh', Any, batch, null),
    ]);
    expect(first).toMatchObject({ result: 'Success', firstEventNumber: 0, lastEventNumber: 1 });
    expect(retry).toEqual(first);
    expect(numbers('fresh')).toEqual([0, 1]);
  });

  it('partly known ids are "corrupted idempotency": WrongExpectedVersion, nothing written', async () => {
    const [a, b] = events(2);
    await t.store.appendToStream('s', NoStream, [a, b], null);
    const [c] = events(1);
    expect(await t.store.appendToStream('s', Any, [a, c], null)).toMatchObject({
      result: 'WrongExpectedVersion',
      currentVersion: 1,
    });
    expect(await t.store.appendToStream('s', NoStream, [a, c], null)).toMatchObject({
      result: 'WrongExpectedVersion',
      currentVersion: 1,
    });
    expect(numbers('s')).toEqual([0, 1]);
  });

  it('an exact-version retry whose first id differs is a plain wrong expected version', async () => {
    await t.store.appendToStream('s', NoStream, events(2), null);
    expect(await t.store.appendToStream('s', NoStream, events(2), null)).toMatchObject({
      result: 'WrongExpectedVersion',
      currentVersion: 1,
    });
  });

  it('ids known only in another stream make a new write', async () => {
    const batch = events(2);
    await t.store.appendToStream('a', Any, batch, null);
    expect(await t.store.appendToStream('b', Any, batch, null)).toMatchObject({
      result: 'Success',
      firstEventNumber: 0,
      lastEventNumber: 1,
    });
    expect(numbers('b')).toEqual([0, 1]);
  });

  it('duplicate ids inside one batch are separate events (EventStoreDB multiple_idempotent_writes cases)', async () => {
    const one = event();
    const six = Array.from({ length: 6 }, () => one);
    expect(await t.store.appendToStream('dup', NoStream, six, null)).toMatchObject({
      result: 'Success',
      firstEventNumber: 0,
      lastEventNumber: 5,
    });
    // "in_wtf_multiple_case": Any finds the id's first occurrence for every copy.
    expect(await t.store.appendToStream('dup', Any, six, null)).toMatchObject({
      result: 'Success',
      firstEventNumber: 0,
      lastEventNumber: 0,
    });
    // "in_slightly_reasonable_multiple_case": with the exact version every copy matches its number.
    expect(await t.store.appendToStream('dup', NoStream, six, null)).toMatchObject({
      result: 'Success',
      firstEventNumber: 0,
      lastEventNumber: 5,
    });
    expect(numbers('dup')).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('idempotency holds across a restart (recent ids are loaded from the log)', async () => {
    const batch = events(2);
    const first = await t.store.appendToStream('s', Any, batch, null);
    await t.store.close();
    const store = t.reopen();
    expect(await store.appendToStream('s', Any, batch, null)).toEqual(first);
    expect(store.lastEventNumber('s')).toBe(1);
  });

  it('an Any retry older than the idempotency window is a new write, as in EventStoreDB', async () => {
    await t.close();
    t = openTestStore({ limits: { idempotencyWindow: 3 } });
    const old = events(1);
    await t.store.appendToStream('s', Any, old, null);
    await t.store.appendToStream('s', Any, events(2), null);
    // Still inside the window (3 ids): idempotent.
    expect(await t.store.appendToStream('s', Any, old, null)).toMatchObject({
      firstEventNumber: 0,
      lastEventNumber: 0,
    });
    await t.store.appendToStream('s', Any, events(1), null);
    expect(await t.store.appendToStream('s', Any, old, null)).toMatchObject({
      result: 'Success',
      firstEventNumber: 4,
      lastEventNumber: 4,
    });
    // An exact-version retry compares the stored ids, whatever the window.
    expect(await t.store.appendToStream('s', -1, old, null)).toMatchObject({
      result: 'Success',
      firstEventNumber: 0,
      lastEventNumber: 0,
    });
    expect(numbers('s')).toEqual([0, 1, 2, 3, 4]);
  });

  it('the window after a restart holds the newest ids of the log', async () => {
    await t.close();
    t = openTestStore({ limits: { idempotencyWindow: 2 } });
    const [a, b, c] = [events(1), events(1), events(1)];
    for (const e of [a, b, c]) await t.store.appendToStream('s', Any, e, null);
    await t.store.close();
    const store = t.reopen();
    expect(await store.appendToStream('s', Any, c, null)).toMatchObject({ firstEventNumber: 2, lastEventNumber: 2 });
    expect(await store.appendToStream('s', Any, b, null)).toMatchObject({ firstEventNumber: 1, lastEventNumber: 1 });
    expect(await store.appendToStream('s', Any, a, null)).toMatchObject({ firstEventNumber: 3, lastEventNumber: 3 });
  });
});
