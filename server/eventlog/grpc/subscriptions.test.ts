import {
  END,
  eventTypeFilter,
  jsonEvent,
  START,
  StreamDeletedError,
  streamNameFilter,
  type AllStreamResolvedEvent,
  type ResolvedEvent,
} from '@kurrent/kurrentdb-client';
import { describe, expect, it } from 'vitest';
import { useGrpcTestServer } from './testing/homeport.ts';
import { record } from './testing/subscriptions.ts';

const shared = useGrpcTestServer();

function numbered(type: string, from: number, n: number) {
  return Array.from({ length: n }, (_, i) => jsonEvent({ type, data: { i: from + i } }));
}
const dataOf = (e: ResolvedEvent | AllStreamResolvedEvent) => (e.event!.data as { i: number }).i;

describe('subscribeToStream', () => {
  it('catches up, reports caughtUp exactly once, then delivers live events in order', async () => {
    await shared.client.appendToStream('sub-stream', numbered('n', 0, 600));
    const sub = shared.client.subscribeToStream('sub-stream', { fromRevision: START });
    const rec = record(sub);
    await rec.until(() => rec.caughtUp === 1 && rec.events.length === 600);
    await shared.client.appendToStream('sub-stream', numbered('n', 600, 5));
    await rec.until(() => rec.events.length === 605);
    expect(rec.events.map(dataOf)).toEqual(Array.from({ length: 605 }, (_, i) => i));
    expect(rec.events.map((e) => e.event!.revision)).toEqual(Array.from({ length: 605 }, (_, i) => BigInt(i)));
    expect(rec.caughtUp).toBe(1);
    await sub.unsubscribe();
  });

  it('starts after the given revision (exclusive) and from the end', async () => {
    await shared.client.appendToStream('sub-from', numbered('n', 0, 5));
    const fromTwo = record(shared.client.subscribeToStream('sub-from', { fromRevision: 2n }));
    const fromEnd = record(shared.client.subscribeToStream('sub-from', { fromRevision: END }));
    await fromTwo.until(() => fromTwo.caughtUp === 1);
    await fromEnd.until(() => fromEnd.caughtUp === 1);
    await shared.client.appendToStream('sub-from', numbered('n', 5, 1));
    await fromTwo.until(() => fromTwo.events.length === 3);
    await fromEnd.until(() => fromEnd.events.length === 1);
    expect(fromTwo.events.map(dataOf)).toEqual([3, 4, 5]);
    expect(fromEnd.events.map(dataOf)).toEqual([5]);
  });

  it('waits for a stream that does not exist yet', async () => {
    const rec = record(shared.client.subscribeToStream('sub-later', { fromRevision: START }));
    await rec.until(() => rec.caughtUp === 1);
    await shared.client.appendToStream('sub-later', numbered('n', 0, 2));
    await rec.until(() => rec.events.length === 2);
    expect(rec.events.map(dataOf)).toEqual([0, 1]);
  });

  it('ends with StreamDeletedError when the stream is tombstoned', async () => {
    await shared.client.appendToStream('sub-doomed', numbered('n', 0, 1));
    const rec = record(shared.client.subscribeToStream('sub-doomed'));
    await rec.until(() => rec.caughtUp === 1);
    await shared.client.tombstoneStream('sub-doomed');
    await expect(rec.until(() => false)).rejects.toBeInstanceOf(StreamDeletedError);
  });
});

describe('subscribeToAll', () => {
  it('catches up through $all and goes live, positions increasing, caughtUp once', async () => {
    await shared.client.appendToStream('all-a', numbered('n', 0, 3));
    const rec = record(shared.client.subscribeToAll({ fromPosition: START }));
    await rec.until(() => rec.caughtUp === 1);
    const before = rec.events.length;
    await shared.client.appendToStream('all-a', numbered('n', 3, 2));
    await rec.until(() => rec.events.filter((e) => e.event?.streamId === 'all-a').length === 5);
    expect(rec.events.length).toBeGreaterThanOrEqual(before + 2);
    const positions = rec.events.map((e) => e.event!.position.commit);
    for (let i = 1; i < positions.length; i++) expect(positions[i]).toBeGreaterThan(positions[i - 1]);
    expect(rec.caughtUp).toBe(1);
  });

  it('starts after the given position (exclusive)', async () => {
    const r = await shared.client.appendToStream('all-from', numbered('n', 0, 3));
    const read = [];
    for await (const e of shared.client.readAll({ fromPosition: START })) read.push(e);
    const second = read.filter((e) => e.event?.streamId === 'all-from')[1].event!.position;
    const rec = record(shared.client.subscribeToAll({ fromPosition: second }));
    await rec.until(() => rec.caughtUp === 1);
    expect(rec.events.filter((e) => e.event?.streamId === 'all-from').map(dataOf)).toEqual([2]);
    expect(rec.events[0].event!.position.commit).toBe(r.position!.commit);
  });

  it('filters by stream prefix and event type, with checkpoints during catch-up and live', async () => {
    await shared.client.appendToStream('noise', numbered('Noise', 0, 200));
    await shared.client.appendToStream('wanted-1', numbered('Wanted', 0, 2));
    const checkpoints: { commit: bigint; prepare: bigint }[] = [];
    const rec = record(
      shared.client.subscribeToAll({
        fromPosition: START,
        filter: streamNameFilter({
          prefixes: ['wanted-'],
          maxSearchWindow: 50,
          checkpointInterval: 1,
          checkpointReached: (_s, position) => {
            checkpoints.push(position);
          },
        }),
      }),
    );
    const byType = record(
      shared.client.subscribeToAll({ fromPosition: START, filter: eventTypeFilter({ regex: '^Want' }) }),
    );
    await rec.until(() => rec.caughtUp === 1 && rec.events.length === 2);
    await byType.until(() => byType.caughtUp === 1 && byType.events.length === 2);
    // 200+ events examined in windows of 50: several checkpoints while catching up, one on going live.
    expect(checkpoints.length).toBeGreaterThanOrEqual(4);
    const atLive = checkpoints.length;
    await shared.client.appendToStream('noise', numbered('Noise', 200, 50));
    await shared.client.appendToStream('wanted-2', numbered('Wanted', 2, 1));
    await rec.until(() => rec.events.length === 3);
    await byType.until(() => byType.events.length === 3);
    expect(rec.events.map((e) => e.event!.streamId)).toEqual(['wanted-1', 'wanted-1', 'wanted-2']);
    expect(byType.events.map((e) => e.event!.type)).toEqual(['Wanted', 'Wanted', 'Wanted']);
    await rec.until(() => checkpoints.length > atLive);
    for (let i = 1; i < checkpoints.length; i++)
      expect(checkpoints[i].commit).toBeGreaterThanOrEqual(checkpoints[i - 1].commit);
  });
});

describe('fan-out', () => {
  it('delivers every event, in order, to 100 live $all subscribers on one connection (bench:grpc fan-out row)', async () => {
    const live = Array.from({ length: 100 }, () =>
      shared.client.subscribeToAll({ fromPosition: END, filter: streamNameFilter({ prefixes: ['fan-'] }) }),
    );
    const subs = live.map((sub) => record(sub));
    for (const s of subs) await s.until(() => s.caughtUp === 1);
    for (let n = 0; n < 200; n += 100) await shared.client.appendToStream('fan-out', numbered('f', n, 100));
    for (const s of subs) await s.until(() => s.events.length === 200, 60_000);
    for (const s of subs) expect(s.events.map(dataOf)).toEqual(Array.from({ length: 200 }, (_, i) => i));
    await Promise.all(live.map((sub) => sub.unsubscribe()));
  });
});
