import { afterEach, describe, expect, it } from 'vitest';
import {
  ADMIN,
  events,
  json,
  manualClock,
  metadataEvent,
  OPS,
  openTestStore,
  type TestStore,
} from './testing/store.ts';
import { ExpectedVersion, type Principal } from './types.ts';

const { Any, NoStream } = ExpectedVersion;
const START = { commitPosition: 0, preparePosition: 0 };

let t: TestStore;
afterEach(async () => {
  await t.close();
});

function rowsOf(streamId: string): number[] {
  return (
    t.store.db
      .prepare(
        'SELECT e.event_number FROM events e JOIN streams s ON s.stream_key = e.stream_key WHERE s.stream_id = ? ORDER BY e.event_number',
      )
      .all(streamId) as { event_number: number }[]
  ).map((r) => r.event_number);
}

/** Starts a scavenge and waits for its `$scavengeCompleted` record. */
async function scavenge(caller: Principal = ADMIN): Promise<Record<string, unknown>> {
  const started = t.store.scavenge(caller);
  expect(started.result).toBe('Started');
  return completion(started.scavengeId!);
}

async function completion(scavengeId: string): Promise<Record<string, unknown>> {
  for (;;) {
    const done = t.store
      .readStreamForward('$scavenges', 0, 4096, false, ADMIN)
      .events.map((e) => ({ type: e.event!.eventType, body: json(e.event!.data) as Record<string, unknown> }))
      .find((e) => e.type === '$scavengeCompleted' && e.body.scavengeId === scavengeId);
    if (done) return done.body;
    await new Promise((r) => setImmediate(r));
  }
}

describe('scavenge', () => {
  it('is for $admins and $ops; a second request while one runs gets InProgress with the same id', async () => {
    t = openTestStore();
    expect(t.store.scavenge(null)).toEqual({ result: 'Unauthorized' });
    expect(t.store.scavenge({ name: 'alice', groups: ['devs'] })).toEqual({ result: 'Unauthorized' });
    const first = t.store.scavenge(OPS);
    expect(first.result).toBe('Started');
    expect(first.scavengeId).toMatch(/^[0-9a-f-]{36}$/);
    expect(t.store.scavenge(ADMIN)).toEqual({ result: 'InProgress', scavengeId: first.scavengeId });
    await t.store.whenIdle();
    while (t.store.scavenge(ADMIN).result === 'InProgress') await new Promise((r) => setImmediate(r));
  });

  it('deletes rows hidden by $maxCount, $tb and $maxAge, and keeps only the newest metadata event', async () => {
    const clock = manualClock();
    t = openTestStore({ clock: clock.now });
    await t.store.appendToStream('counted', NoStream, events(10), null);
    await t.store.appendToStream('$$counted', Any, [metadataEvent({ $maxCount: 5 })], null);
    await t.store.appendToStream('$$counted', Any, [metadataEvent({ $maxCount: 3 })], null);
    await t.store.appendToStream('truncated', NoStream, events(6), null);
    await t.store.appendToStream('$$truncated', Any, [metadataEvent({ $tb: 4 })], null);
    await t.store.appendToStream('aged', NoStream, events(4), null);
    clock.advance(120_000);
    await t.store.appendToStream('aged', Any, events(2), null);
    await t.store.appendToStream('$$aged', Any, [metadataEvent({ $maxAge: 60 })], null);
    await t.store.appendToStream('untouched', NoStream, events(3), null);
    const readsBefore = ['counted', 'truncated', 'aged', 'untouched'].map((s) =>
      t.store.readStreamForward(s, 0, 100, false, null).events.map((e) => e.event!.eventId),
    );

    const done = await scavenge();
    expect(done).toMatchObject({ result: 'Success', eventsRemoved: 7 + 1 + 4 + 4 });
    expect(rowsOf('counted')).toEqual([7, 8, 9]);
    expect(rowsOf('$$counted')).toEqual([1]);
    expect(rowsOf('truncated')).toEqual([4, 5]);
    expect(rowsOf('aged')).toEqual([4, 5]);
    expect(rowsOf('untouched')).toEqual([0, 1, 2]);
    const readsAfter = ['counted', 'truncated', 'aged', 'untouched'].map((s) =>
      t.store.readStreamForward(s, 0, 100, false, null).events.map((e) => e.event!.eventId),
    );
    expect(readsAfter).toEqual(readsBefore);
    const all = t.store
      .readAllForward(START, 4096, false, ADMIN)
      .events.map((e) => `${e.event!.streamId}#${e.event!.eventNumber}`);
    expect(all).not.toContain('counted#0');
    expect(all).toContain('counted#9');
    expect(
      t.store.listStreams({ orderBy: 'name', limit: 10, includeSystem: false }).find((s) => s.streamId === 'counted'),
    ).toMatchObject({ eventCount: 3, lastEventNumber: 9 });
  });

  it('removes everything of a soft-deleted stream and all but the tombstone of a hard-deleted one', async () => {
    t = openTestStore();
    await t.store.appendToStream('soft', NoStream, events(4), null);
    await t.store.deleteStream('soft', Any, false, null);
    await t.store.appendToStream('recreated', NoStream, events(3), null);
    await t.store.deleteStream('recreated', Any, false, null);
    await t.store.appendToStream('recreated', Any, events(2), null);
    await t.store.appendToStream('hard', NoStream, events(4), null);
    await t.store.appendToStream('$$hard', Any, [metadataEvent({ custom: 1 })], null);
    await t.store.deleteStream('hard', Any, true, null);

    await scavenge();
    expect(rowsOf('soft')).toEqual([]);
    expect(rowsOf('$$soft')).toEqual([0]);
    expect(rowsOf('recreated')).toEqual([3, 4]);
    expect(rowsOf('$$recreated')).toEqual([1]);
    expect(rowsOf('hard')).toEqual([Number.MAX_SAFE_INTEGER]);
    expect(rowsOf('$$hard')).toEqual([]);
    // Semantics are unchanged.
    expect(t.store.readStreamForward('soft', 0, 10, false, null)).toMatchObject({
      result: 'NoStream',
      lastEventNumber: 3,
    });
    expect(await t.store.appendToStream('soft', Any, events(1), null)).toMatchObject({ firstEventNumber: 4 });
    expect(t.store.readStreamForward('hard', 0, 10, false, null).result).toBe('StreamDeleted');
    expect(t.store.readStreamForward('recreated', 0, 10, false, null).events.map((e) => e.event!.eventNumber)).toEqual([
      3, 4,
    ]);
  });

  it('records $scavengeStarted and $scavengeCompleted with one id in $scavenges', async () => {
    t = openTestStore();
    await t.store.appendToStream('s', NoStream, events(3), null);
    await t.store.appendToStream('$$s', Any, [metadataEvent({ $maxCount: 1 })], null);
    const done = await scavenge(OPS);
    const records = t.store
      .readStreamForward('$scavenges', 0, 10, false, ADMIN)
      .events.map((e) => ({ type: e.event!.eventType, body: json(e.event!.data) as Record<string, unknown> }));
    expect(records.map((r) => r.type)).toEqual(['$scavengeStarted', '$scavengeCompleted']);
    expect(records[0].body.scavengeId).toBe(done.scavengeId);
    expect(done).toMatchObject({ result: 'Success', error: '', eventsRemoved: 2 });
    expect(t.store.readStreamForward('$scavenges', 0, 10, false, null).result).toBe('AccessDenied');
  });

  it('works in small steps: writes issued meanwhile are not held up until it finishes', async () => {
    t = openTestStore({ limits: { scavengeChunkRows: 10 } });
    for (let i = 0; i < 4; i++) await t.store.appendToStream('big', Any, events(100), null);
    await t.store.appendToStream('$$big', Any, [metadataEvent({ $maxCount: 1 })], null);
    const started = t.store.scavenge(ADMIN);
    const write = await t.store.appendToStream('meanwhile', Any, events(1), null);
    await completion(started.scavengeId!);
    const records = t.store.readStreamForward('$scavenges', 0, 10, false, ADMIN).events.map((e) => e.event!);
    const completed = records.find((e) => e.eventType === '$scavengeCompleted')!;
    expect((json(completed.data) as { scavengeId: string; eventsRemoved: number }).scavengeId).toBe(started.scavengeId);
    expect((json(completed.data) as { eventsRemoved: number }).eventsRemoved).toBe(399);
    expect(write.commitPosition).toBeLessThan(completed.commitPosition);
    expect(rowsOf('big')).toEqual([399]);
  });

  it('leaves forward cursors able to reach the head when the newest rows were scavenged', async () => {
    t = openTestStore();
    await t.store.appendToStream('keep', NoStream, events(2), null);
    const keepEnd = t.store.readAllForward(START, 2, false, ADMIN).nextPosition;
    await t.store.appendToStream('tail', NoStream, events(5), null);
    await t.store.appendToStream('$$tail', Any, [metadataEvent({ $tb: 5 })], null);
    await t.store.appendToStream('$$tail', Any, [metadataEvent({ $tb: 5, note: 'x' })], null);
    await scavenge();
    const last = t.store.lastCommitPosition();
    // Everything after `keep` except $$tail#1 and $scavenges is gone; a catch-up from keepEnd must terminate.
    let cursor = keepEnd;
    const seen: string[] = [];
    for (let guard = 0; guard < 100; guard++) {
      const r = t.store.readAllForward(cursor, 1, false, ADMIN);
      seen.push(...r.events.map((e) => `${e.event!.streamId}#${e.event!.eventNumber}`));
      cursor = r.nextPosition;
      if (cursor.commitPosition > last || (cursor.commitPosition === last && cursor.preparePosition >= last)) break;
    }
    expect(cursor.commitPosition).toBe(last + 1);
    expect(seen.filter((s) => s.startsWith('tail'))).toEqual([]);
  });

  it('stops cleanly when the store closes mid-way and records the stop', async () => {
    t = openTestStore({ limits: { scavengeChunkRows: 5 } });
    await t.store.appendToStream('big', Any, events(500), null);
    await t.store.appendToStream('$$big', Any, [metadataEvent({ $maxCount: 1 })], null);
    const started = t.store.scavenge(ADMIN);
    await t.store.close();
    const store = t.reopen();
    const completed = store
      .readStreamForward('$scavenges', 0, 10, false, ADMIN)
      .events.map((e) => json(e.event!.data) as { scavengeId: string; result: string })
      .find((b) => b.scavengeId === started.scavengeId && b.result);
    expect(completed?.result).toBe('Stopped');
    expect(store.readStreamBackward('big', -1, 10, false, null).events.map((e) => e.event!.eventNumber)).toEqual([499]);
  });
  it('reports its progress: streams visited of those counted at the start, as a percentage', async () => {
    t = openTestStore();
    const truncated = 200;
    // Written together, so they share group commits.
    await Promise.all(
      Array.from({ length: truncated }, (_, i) =>
        Promise.all([
          t.store.appendToStream(`progress-${i}`, NoStream, events(3), null),
          t.store.appendToStream(`$$progress-${i}`, Any, [metadataEvent({ $tb: 2 })], null),
        ]),
      ),
    );
    await t.store.appendToStream('gone', NoStream, events(2), null);
    await t.store.deleteStream('gone', Any, true, null);
    expect(t.store.scavengeProgress()).toBeNull();
    // What the progress says as each step begins (the scavenger's steps are the store's internal writes).
    const seen: (ReturnType<typeof t.store.scavengeProgress> & {})[] = [];
    const runSystemWrite = t.store.runSystemWrite.bind(t.store);
    t.store.runSystemWrite = (fn, options) => {
      const progress = t.store.scavengeProgress();
      if (progress) seen.push(progress);
      return runSystemWrite(fn, options);
    };
    const done = await scavenge();
    expect(t.store.scavengeProgress()).toBeNull();
    expect(done.eventsRemoved).toBe(truncated * 2 + 2);
    // 200 metadata streams and one hard-deleted stream, 64 streams a step.
    expect(seen[0]).toMatchObject({ percent: 0, streamsDone: 0, streamsTotal: truncated + 1, phase: 'metastreams' });
    const percents = seen.map((p) => p.percent);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    expect(percents.some((p) => p > 0 && p < 100)).toBe(true);
    // 100 only once it has finished (as it writes $scavengeCompleted), never while streams are left.
    expect(seen.at(-1)).toMatchObject({ phase: 'tombstones', streamsDone: truncated + 1, percent: 100 });
    expect(seen.filter((p) => p.percent === 100)).toHaveLength(1);
    expect(seen.at(-1)!.eventsRemoved).toBe(truncated * 2 + 2);
  });
});
