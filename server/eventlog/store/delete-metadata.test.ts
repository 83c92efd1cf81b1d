import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN, events, json, manualClock, metadataEvent, openTestStore, type TestStore } from './testing/store.ts';
import { EVENT_NUMBER_DELETED, ExpectedVersion } from './types.ts';

const { Any, NoStream, StreamExists } = ExpectedVersion;

let t: TestStore;
afterEach(async () => {
  await t.close();
});

function open(clock?: () => number): TestStore {
  t = openTestStore({ clock });
  return t;
}

function metadataDoc(streamId: string): unknown {
  const r = t.store.readEvent(`$$${streamId}`, -1, false, null);
  expect(r.result).toBe('Success');
  return json(r.event?.event?.data);
}

function streamNumbers(streamId: string): number[] {
  return t.store.readStreamForward(streamId, 0, 4096, false, null).events.map((e) => e.event!.eventNumber);
}

describe('soft delete', () => {
  it('hides the stream (NoStream with the old last number) but keeps its events in $all', async () => {
    open();
    await t.store.appendToStream('s', NoStream, events(2), null);
    const del = await t.store.deleteStream('s', 1, false, null);
    expect(del.result).toBe('Success');
    expect(del.commitPosition).toBeGreaterThan(0);
    expect(t.store.readStreamForward('s', 0, 10, false, null)).toMatchObject({
      result: 'NoStream',
      lastEventNumber: 1,
      nextEventNumber: -1,
      isEndOfStream: true,
      events: [],
    });
    expect(t.store.readStreamBackward('s', -1, 10, false, null)).toMatchObject({
      result: 'NoStream',
      lastEventNumber: 1,
    });
    expect(t.store.readEvent('s', 0, false, null).result).toBe('NoStream');
    const meta = t.store.readEvent('$$s', -1, false, null);
    expect(meta.result).toBe('Success');
    expect(meta.event!.event!.eventType).toBe('$metadata');
    expect(Buffer.from(meta.event!.event!.data).toString()).toBe('{"$tb":9223372036854775807}');
    expect(t.store.getStreamMetadata('s').truncateBefore).toBe(EVENT_NUMBER_DELETED);
    const all = t.store
      .readAllForward({ commitPosition: 0, preparePosition: 0 }, 100, false, ADMIN)
      .events.map((e) => `${e.event!.streamId}#${e.event!.eventNumber}`);
    expect(all).toEqual(['s#0', 's#1', '$$s#0']);
    expect(t.store.listStreams({ orderBy: 'name', limit: 10, includeSystem: false })).toMatchObject([
      { streamId: 's', deleted: 'soft', lastEventNumber: 1 },
    ]);
  });

  it('recreates on the next write and continues numbering; $tb marks the new start (EventStoreDB soft_delete.cs)', async () => {
    open();
    await t.store.appendToStream('s', NoStream, events(2), null);
    await t.store.deleteStream('s', 1, false, null);
    expect(await t.store.appendToStream('s', Any, events(3), null)).toMatchObject({
      result: 'Success',
      firstEventNumber: 2,
      lastEventNumber: 4,
    });
    expect(streamNumbers('s')).toEqual([2, 3, 4]);
    expect(metadataDoc('s')).toEqual({ $tb: 2 });
    expect(t.store.lastEventNumber('$$s')).toBe(1);
    expect(t.store.readEvent('s', 1, false, null).result).toBe('NotFound');
    expect(t.store.listStreams({ orderBy: 'name', limit: 10, includeSystem: false })[0].deleted).toBe('no');
  });

  it('NoStream recreates only once; the previous last number recreates too', async () => {
    open();
    await t.store.appendToStream('a', NoStream, events(2), null);
    await t.store.deleteStream('a', Any, false, null);
    expect(await t.store.appendToStream('a', NoStream, events(1), null)).toMatchObject({
      result: 'Success',
      firstEventNumber: 2,
    });
    expect(await t.store.appendToStream('a', NoStream, events(1), null)).toMatchObject({
      result: 'WrongExpectedVersion',
      currentVersion: 2,
    });

    await t.store.appendToStream('b', NoStream, events(2), null);
    await t.store.deleteStream('b', 1, false, null);
    expect(await t.store.appendToStream('b', 1, events(1), null)).toMatchObject({
      result: 'Success',
      firstEventNumber: 2,
    });
    expect(await t.store.appendToStream('b', StreamExists, events(1), null)).toMatchObject({
      result: 'Success',
      firstEventNumber: 3,
    });
  });

  it('keeps other metadata keys when recreating a stream whose $tb was set by hand', async () => {
    open();
    await t.store.appendToStream('s', NoStream, events(2), null);
    await t.store.appendToStream(
      '$$s',
      Any,
      [metadataEvent({ $tb: EVENT_NUMBER_DELETED, $maxCount: 100, custom: 'kept' })],
      null,
    );
    expect(t.store.readStreamForward('s', 0, 10, false, null).result).toBe('NoStream');
    await t.store.appendToStream('s', Any, events(1), null);
    expect(metadataDoc('s')).toEqual({ $tb: 2, $maxCount: 100, custom: 'kept' });
    expect(t.store.getStreamMetadata('s')).toMatchObject({ maxCount: 100, truncateBefore: 2, raw: { custom: 'kept' } });
  });

  it('setting metadata on a soft-deleted stream recreates it from the next number', async () => {
    open();
    await t.store.appendToStream('s', NoStream, events(2), null);
    await t.store.deleteStream('s', Any, false, null);
    await t.store.appendToStream('$$s', Any, [metadataEvent({ $maxCount: 10 })], null);
    expect(metadataDoc('s')).toEqual({ $maxCount: 10, $tb: 2 });
    expect(t.store.readStreamForward('s', 0, 10, false, null)).toMatchObject({
      result: 'Success',
      events: [],
      lastEventNumber: 1,
    });
    expect(await t.store.appendToStream('s', 1, events(1), null)).toMatchObject({
      result: 'Success',
      firstEventNumber: 2,
    });
    expect(streamNumbers('s')).toEqual([2]);
  });

  it('follows EventStoreDB 20+: soft-deleting a stream that never existed is a wrong expected version', async () => {
    open();
    expect(await t.store.deleteStream('never', NoStream, false, null)).toMatchObject({
      result: 'WrongExpectedVersion',
      currentVersion: -1,
    });
    expect(await t.store.deleteStream('never', Any, false, null)).toMatchObject({ result: 'WrongExpectedVersion' });
  });

  it('can be repeated, and a soft-deleted stream can be hard-deleted', async () => {
    open();
    await t.store.appendToStream('s', NoStream, events(2), null);
    expect((await t.store.deleteStream('s', Any, false, null)).result).toBe('Success');
    expect((await t.store.deleteStream('s', 1, false, null)).result).toBe('Success');
    expect((await t.store.deleteStream('s', 1, true, null)).result).toBe('Success');
    expect(t.store.readStreamForward('s', 0, 10, false, null).result).toBe('StreamDeleted');
  });
});

describe('hard delete', () => {
  it('leaves a tombstone: StreamDeleted for every read and write, forever', async () => {
    open();
    await t.store.appendToStream('h', NoStream, events(2), null);
    const del = await t.store.deleteStream('h', 1, true, null);
    expect(del).toMatchObject({ result: 'Success' });
    expect(t.store.readStreamForward('h', 0, 10, false, null)).toMatchObject({
      result: 'StreamDeleted',
      lastEventNumber: EVENT_NUMBER_DELETED,
      nextEventNumber: -1,
      isEndOfStream: true,
    });
    expect(t.store.readStreamBackward('h', -1, 10, false, null).result).toBe('StreamDeleted');
    expect(t.store.readEvent('h', 0, false, null).result).toBe('StreamDeleted');
    expect(t.store.readEvent('$$h', -1, false, null).result).toBe('StreamDeleted');
    expect(t.store.readStreamForward('$$h', 0, 10, false, null).result).toBe('StreamDeleted');
    for (const v of [Any, NoStream, StreamExists, 1, 5]) {
      expect((await t.store.appendToStream('h', v, events(1), null)).result).toBe('StreamDeleted');
    }
    expect((await t.store.appendToStream('$$h', Any, [metadataEvent({ $maxCount: 1 })], null)).result).toBe(
      'StreamDeleted',
    );
    expect((await t.store.deleteStream('h', Any, true, null)).result).toBe('StreamDeleted');
    expect((await t.store.deleteStream('h', Any, false, null)).result).toBe('StreamDeleted');
    expect((await t.store.startTransaction('h', Any, null)).result).toBe('Success');
    expect(t.store.lastEventNumber('h')).toBe(EVENT_NUMBER_DELETED);
    const all = t.store
      .readAllForward({ commitPosition: 0, preparePosition: 0 }, 100, false, ADMIN)
      .events.map((e) => e.event!);
    expect(all.map((e) => e.eventNumber)).toEqual([0, 1, EVENT_NUMBER_DELETED]);
    expect(all[2]).toMatchObject({ streamId: 'h', eventType: '$streamDeleted', isJson: false });
    expect(all[2].data.byteLength).toBe(0);
    expect(t.store.listStreams({ orderBy: 'name', limit: 10, includeSystem: false })[0]).toMatchObject({
      streamId: 'h',
      deleted: 'hard',
    });
  });

  it('succeeds on a stream that never existed with NoStream or Any', async () => {
    open();
    expect((await t.store.deleteStream('n1', NoStream, true, null)).result).toBe('Success');
    expect((await t.store.deleteStream('n2', Any, true, null)).result).toBe('Success');
    expect((await t.store.appendToStream('n1', Any, events(1), null)).result).toBe('StreamDeleted');
  });

  it('checks the expected version', async () => {
    open();
    await t.store.appendToStream('s', NoStream, events(2), null);
    expect(await t.store.deleteStream('s', 10, true, null)).toMatchObject({
      result: 'WrongExpectedVersion',
      currentVersion: 1,
    });
    expect(await t.store.deleteStream('s', NoStream, false, null)).toMatchObject({
      result: 'WrongExpectedVersion',
      currentVersion: 1,
    });
    expect(t.store.lastEventNumber('s')).toBe(1);
  });
});

describe('stream metadata in reads', () => {
  it('$maxCount keeps only the newest N events readable', async () => {
    open();
    await t.store.appendToStream('s', NoStream, events(5), null);
    await t.store.appendToStream('$$s', Any, [metadataEvent({ $maxCount: 2 })], null);
    expect(streamNumbers('s')).toEqual([3, 4]);
    expect(t.store.readStreamForward('s', 0, 2, false, null)).toMatchObject({
      result: 'Success',
      events: [],
      nextEventNumber: 3,
      isEndOfStream: false,
    });
    const back = t.store.readStreamBackward('s', -1, 10, false, null);
    expect(back.events.map((e) => e.event!.eventNumber)).toEqual([4, 3]);
    expect(back).toMatchObject({ isEndOfStream: true, nextEventNumber: -1 });
    expect(t.store.readStreamBackward('s', 1, 10, false, null)).toMatchObject({
      events: [],
      nextEventNumber: -1,
      isEndOfStream: true,
    });
    expect(t.store.readEvent('s', 2, false, null).result).toBe('NotFound');
    expect(t.store.readEvent('s', 3, false, null).result).toBe('Success');
    // Hidden events stay in $all until scavenge.
    expect(t.store.readAllForward({ commitPosition: 0, preparePosition: 0 }, 100, false, ADMIN).events).toHaveLength(6);
  });

  it('$tb hides events below it', async () => {
    open();
    await t.store.appendToStream('s', NoStream, events(5), null);
    await t.store.appendToStream('$$s', Any, [metadataEvent({ $tb: 3 })], null);
    expect(streamNumbers('s')).toEqual([3, 4]);
    expect(t.store.readEvent('s', 2, false, null).result).toBe('NotFound');
    expect(t.store.readEvent('s', -1, false, null).event!.event!.eventNumber).toBe(4);
  });

  it('$maxAge hides events older than the age (injected clock)', async () => {
    const clock = manualClock();
    open(clock.now);
    await t.store.appendToStream('s', NoStream, events(3), null);
    clock.advance(100_000);
    await t.store.appendToStream('s', Any, events(2), null);
    await t.store.appendToStream('$$s', Any, [metadataEvent({ $maxAge: 60 })], null);
    expect(streamNumbers('s')).toEqual([3, 4]);
    expect(t.store.readEvent('s', 1, false, null).result).toBe('NotFound');
    expect(t.store.readEvent('s', 4, false, null).result).toBe('Success');
    // A page entirely of expired events points the reader at the first fresh one.
    expect(t.store.readStreamForward('s', 0, 2, false, null)).toMatchObject({
      events: [],
      nextEventNumber: 3,
      isEndOfStream: false,
    });
    expect(t.store.readStreamBackward('s', -1, 10, false, null).events.map((e) => e.event!.eventNumber)).toEqual([
      4, 3,
    ]);
    clock.advance(100_000);
    expect(t.store.readStreamForward('s', 0, 10, false, null)).toMatchObject({
      events: [],
      nextEventNumber: 5,
      isEndOfStream: true,
    });
  });

  it('metadata streams show only their newest document', async () => {
    open();
    await t.store.appendToStream('s', NoStream, events(1), null);
    for (const n of [1, 2, 3]) await t.store.appendToStream('$$s', Any, [metadataEvent({ $maxCount: n })], null);
    const r = t.store.readStreamForward('$$s', 0, 10, false, null);
    expect(r.events.map((e) => json(e.event!.data))).toEqual([{ $maxCount: 3 }]);
    expect(r.lastEventNumber).toBe(2);
    expect(t.store.getStreamMetadata('s').maxCount).toBe(3);
    expect(t.store.getStreamMetadata('$$s').maxCount).toBe(1);
  });

  it('ReadEvent($$s, -1) is an empty success when s exists without metadata, NoStream when s does not exist', async () => {
    open();
    await t.store.appendToStream('s', NoStream, events(1), null);
    expect(t.store.readEvent('$$s', -1, false, null)).toEqual({ result: 'Success', event: {} });
    expect(t.store.readEvent('$$nothing', -1, false, null)).toEqual({ result: 'NoStream' });
    expect(t.store.readEvent('$$s', 0, false, null)).toEqual({ result: 'NoStream' });
  });

  it('parses ACLs and keeps custom keys; malformed reserved keys or non-JSON metadata count as none', async () => {
    open();
    await t.store.appendToStream('s', NoStream, events(3), null);
    await t.store.appendToStream(
      '$$s',
      Any,
      [metadataEvent({ $acl: { $r: 'alice', $w: ['bob', '$admins'] }, $cacheControl: 30, custom: { x: 1 } })],
      null,
    );
    expect(t.store.getStreamMetadata('s')).toEqual({
      cacheControl: 30,
      acl: { readRoles: ['alice'], writeRoles: ['bob', '$admins'] },
      raw: { $acl: { $r: 'alice', $w: ['bob', '$admins'] }, $cacheControl: 30, custom: { x: 1 } },
    });
    await t.store.appendToStream('$$s', Any, [metadataEvent({ $maxCount: 'two', custom: true })], null);
    expect(t.store.getStreamMetadata('s')).toEqual({ raw: { $maxCount: 'two', custom: true } });
    expect(streamNumbers('s')).toEqual([0, 1, 2]);
    await t.store.appendToStream('$$s', Any, [{ ...metadataEvent({ $maxCount: 1 }), isJson: false }], null);
    expect(t.store.getStreamMetadata('s').maxCount).toBeUndefined();
    await t.store.appendToStream('$$s', Any, [metadataEvent({ $maxCount: 0, $maxAge: -5, $tb: -1 })], null);
    expect(t.store.getStreamMetadata('s')).toMatchObject({ raw: { $maxCount: 0 } });
    expect(t.store.getStreamMetadata('s').maxCount).toBeUndefined();
    expect(streamNumbers('s')).toEqual([0, 1, 2]);
  });
});

describe('stream reads', () => {
  it('pages forward and backward as EventStoreDB does (stream of 100)', async () => {
    open();
    await t.store.appendToStream('s', NoStream, events(100), null);
    expect(t.store.readStreamForward('s', 0, 100, false, null)).toMatchObject({
      nextEventNumber: 100,
      lastEventNumber: 99,
      isEndOfStream: true,
    });
    const first = t.store.readStreamForward('s', 0, 30, false, null);
    expect(first).toMatchObject({ nextEventNumber: 30, isEndOfStream: false });
    expect(first.events).toHaveLength(30);
    expect(t.store.readStreamForward('s', 200, 10, false, null)).toMatchObject({
      result: 'Success',
      events: [],
      nextEventNumber: 100,
      isEndOfStream: true,
    });
    const back = t.store.readStreamBackward('s', 99, 100, false, null);
    expect(back.events.map((e) => e.event!.eventNumber)).toEqual(Array.from({ length: 100 }, (_, i) => 99 - i));
    expect(back).toMatchObject({ nextEventNumber: -1, isEndOfStream: true });
    expect(t.store.readStreamBackward('s', -1, 10, false, null)).toMatchObject({
      nextEventNumber: 89,
      isEndOfStream: false,
    });
    expect(t.store.readStreamBackward('s', 200, 10, false, null)).toMatchObject({
      result: 'Success',
      events: [],
      nextEventNumber: 99,
      isEndOfStream: false,
    });
    expect(t.store.readStreamForward('s', 0, 10, false, null).lastCommitPosition).toBe(t.store.lastCommitPosition());
  });

  it('answers Error for too-big, non-positive or negative reads', async () => {
    open();
    await t.store.appendToStream('s', NoStream, events(1), null);
    expect(t.store.readStreamForward('s', 0, 4097, false, null)).toMatchObject({
      result: 'Error',
      error: 'Read size too big, should be less than 4096 items',
      nextEventNumber: -1,
      lastEventNumber: -1,
      isEndOfStream: true,
    });
    expect(t.store.readStreamForward('s', 0, 4096, false, null).result).toBe('Success');
    expect(t.store.readStreamBackward('s', -1, 5000, false, null).result).toBe('Error');
    expect(t.store.readStreamForward('s', 0, 0, false, null).result).toBe('Error');
    expect(t.store.readStreamForward('s', -1, 10, false, null).result).toBe('Error');
    expect(t.store.readEvent('s', -2, false, null).result).toBe('Error');
    expect(t.store.readEvent('', 0, false, null).result).toBe('Error');
    expect(t.store.readAllForward({ commitPosition: 0, preparePosition: 0 }, 4097, false, ADMIN).result).toBe('Error');
  });

  it('ReadEvent: -1 is the last event, beyond the end is NotFound, a missing stream NoStream', async () => {
    open();
    await t.store.appendToStream('s', NoStream, events(1), null);
    expect(t.store.readEvent('s', -1, false, null).event!.event!.eventNumber).toBe(0);
    expect(t.store.readEvent('s', 1, false, null)).toEqual({ result: 'NotFound' });
    expect(t.store.readEvent('nope', 0, false, null)).toEqual({ result: 'NoStream' });
  });

  it('pages a large stream by index (keyset), the last page as fast to find as the first', async () => {
    open();
    const batch = 2000;
    for (let i = 0; i < 5; i++) await t.store.appendToStream('big', Any, events(batch), null);
    const last = t.store.readStreamForward('big', 9_990, 100, false, null);
    expect(last.events.map((e) => e.event!.eventNumber)).toEqual(Array.from({ length: 10 }, (_, i) => 9_990 + i));
    expect(last.isEndOfStream).toBe(true);
    const plan = t.store.db
      .prepare(
        'EXPLAIN QUERY PLAN SELECT * FROM events WHERE stream_key = ? AND event_number >= ? AND event_number <= ? ORDER BY event_number LIMIT ?',
      )
      .all(1, 0, 10, 10) as { detail: string }[];
    expect(plan.map((p) => p.detail).join(' ')).toMatch(/USING INDEX events_by_stream/);
  });
});
