import {
  ANY,
  BACKWARDS,
  END,
  eventTypeFilter,
  excludeSystemEvents,
  FORWARDS,
  jsonEvent,
  binaryEvent,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamDeletedError,
  StreamNotFoundError,
  streamNameFilter,
  WrongExpectedVersionError,
} from '@kurrent/kurrentdb-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { useGrpcTestServer } from './testing/homeport.ts';

const shared = useGrpcTestServer();

async function all<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

function numbered(type: string, n: number) {
  return Array.from({ length: n }, (_, i) => jsonEvent({ type, data: { i } }));
}

describe('Streams.Append', () => {
  it('honours every expected-revision form and reports the revision and position', async () => {
    const first = await shared.client.appendToStream('append-forms', numbered('e', 2), { streamState: NO_STREAM });
    expect(first.nextExpectedRevision).toBe(1n);
    expect(first.position!.commit).toBeGreaterThan(0n);
    const second = await shared.client.appendToStream('append-forms', numbered('e', 1), { streamState: 1n });
    expect(second.nextExpectedRevision).toBe(2n);
    expect(second.position!.commit).toBeGreaterThan(first.position!.commit);
    expect(
      (await shared.client.appendToStream('append-forms', numbered('e', 1), { streamState: ANY })).nextExpectedRevision,
    ).toBe(3n);
    expect(
      (await shared.client.appendToStream('append-forms', numbered('e', 1), { streamState: STREAM_EXISTS }))
        .nextExpectedRevision,
    ).toBe(4n);
  });

  it('raises WrongExpectedVersionError with the actual and expected versions', async () => {
    await shared.client.appendToStream('append-wev', numbered('e', 3));
    const err = await shared.client.appendToStream('append-wev', numbered('e', 1), { streamState: 0n }).catch((e) => e);
    expect(err).toBeInstanceOf(WrongExpectedVersionError);
    expect(err.actualState).toBe(2n);
    expect(err.expectedState).toBe(0n);
    const noStream = await shared.client
      .appendToStream('append-wev', numbered('e', 1), { streamState: NO_STREAM })
      .catch((e) => e);
    expect(noStream).toBeInstanceOf(WrongExpectedVersionError);
    const missing = await shared.client
      .appendToStream('append-wev-missing', numbered('e', 1), { streamState: STREAM_EXISTS })
      .catch((e) => e);
    expect(missing).toBeInstanceOf(WrongExpectedVersionError);
  });

  it('keeps ids, types, binary data and metadata byte for byte', async () => {
    const bin = binaryEvent({ type: 'blob', data: Uint8Array.from([0, 1, 2, 255]), metadata: Uint8Array.from([9, 8]) });
    const json = jsonEvent({ type: 'doc', data: { a: 1 }, metadata: { corr: 'x' } });
    await shared.client.appendToStream('append-bytes', [bin, json]);
    const [b, j] = await all(shared.client.readStream('append-bytes'));
    expect(b.event!.id).toBe(bin.id);
    expect(b.event!.isJson).toBe(false);
    expect(Buffer.from(b.event!.data as Uint8Array)).toEqual(Buffer.from([0, 1, 2, 255]));
    expect(Buffer.from(b.event!.metadata as Uint8Array)).toEqual(Buffer.from([9, 8]));
    expect(j.event!.id).toBe(json.id);
    expect(j.event!.isJson).toBe(true);
    expect(j.event!.data).toEqual({ a: 1 });
    expect(j.event!.metadata).toEqual({ corr: 'x' });
    // `created` travels as .NET ticks since the Unix epoch; the client turns it into a Date.
    const created = (j.event!.created as unknown as Date).getTime();
    expect(created).toBeGreaterThan(Date.now() - 60_000);
    expect(created).toBeLessThanOrEqual(Date.now() + 1000);
  });
});

describe('Streams.Read of a stream', () => {
  beforeAll(async () => {
    await shared.client.appendToStream('read-10', numbered('n', 10));
  });

  it('reads forwards and backwards, from a revision, with a count', async () => {
    const forwards = await all(shared.client.readStream('read-10'));
    expect(forwards.map((e) => e.event!.revision)).toEqual([0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n]);
    const backwards = await all(
      shared.client.readStream('read-10', { direction: BACKWARDS, fromRevision: END, maxCount: 3 }),
    );
    expect(backwards.map((e) => e.event!.revision)).toEqual([9n, 8n, 7n]);
    const fromFour = await all(
      shared.client.readStream('read-10', { direction: FORWARDS, fromRevision: 4n, maxCount: 2 }),
    );
    expect(fromFour.map((e) => e.event!.revision)).toEqual([4n, 5n]);
    const backFromFour = await all(shared.client.readStream('read-10', { direction: BACKWARDS, fromRevision: 4n }));
    expect(backFromFour.map((e) => e.event!.revision)).toEqual([4n, 3n, 2n, 1n, 0n]);
  });

  it('gives each event its log position, the append result position for the last one', async () => {
    const result = await shared.client.appendToStream('read-position', numbered('p', 3));
    const events = await all(shared.client.readStream('read-position'));
    expect(events[2].event!.position!.commit).toBe(result.position!.commit);
    expect(events[0].event!.position!.commit).toBeLessThan(events[2].event!.position!.commit);
  });

  it('raises StreamNotFoundError for a stream that never existed', async () => {
    await expect(all(shared.client.readStream('never-written'))).rejects.toBeInstanceOf(StreamNotFoundError);
  });

  it('resolves links when asked, and not otherwise', async () => {
    await shared.client.appendToStream('link-target', numbered('t', 2));
    await shared.client.appendToStream(
      'links',
      [jsonEvent({ type: 'unused', data: {} })].map(() => ({
        ...binaryEvent({ type: '$>', data: Buffer.from('1@link-target') }),
      })),
    );
    const [unresolved] = await all(shared.client.readStream('links'));
    expect(unresolved.event!.type).toBe('$>');
    expect(unresolved.link).toBeUndefined();
    const [resolved] = await all(shared.client.readStream('links', { resolveLinkTos: true }));
    expect(resolved.event!.streamId).toBe('link-target');
    expect(resolved.event!.revision).toBe(1n);
    expect(resolved.link!.streamId).toBe('links');
  });

  it('reads and writes stream metadata through $$streams', async () => {
    await shared.client.appendToStream('with-meta', numbered('m', 5));
    await shared.client.setStreamMetadata('with-meta', { maxCount: 2, custom: 'kept' } as never);
    const meta = await shared.client.getStreamMetadata('with-meta');
    expect(meta.metadata).toMatchObject({ maxCount: 2 });
    const events = await all(shared.client.readStream('with-meta'));
    expect(events.map((e) => e.event!.revision)).toEqual([3n, 4n]);
  });
});

describe('Streams.Read of $all', () => {
  let positions: bigint[];
  beforeAll(async () => {
    await shared.client.appendToStream('alpha-1', [jsonEvent({ type: 'AlphaHappened', data: {} })]);
    await shared.client.appendToStream('beta-1', [jsonEvent({ type: 'BetaHappened', data: {} })]);
    await shared.client.appendToStream('alpha-2', [jsonEvent({ type: 'AlphaHappened', data: {} })]);
    positions = (await all(shared.client.readAll())).map((e) => e.event!.position.commit);
  });

  it('reads forwards and backwards in log order, from a position, with a count', async () => {
    const forwards = await all(shared.client.readAll());
    expect(forwards.length).toBeGreaterThan(3);
    const sorted = [...positions].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(positions).toEqual(sorted);
    const backwards = await all(shared.client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 3 }));
    expect(backwards.map((e) => e.event!.streamId)).toEqual(['alpha-2', 'beta-1', 'alpha-1']);
    const from = forwards[forwards.length - 2].event!.position;
    const tail = await all(shared.client.readAll({ fromPosition: from }));
    expect(tail.map((e) => e.event!.streamId)).toEqual(['beta-1', 'alpha-2']);
    const before = await all(shared.client.readAll({ direction: BACKWARDS, fromPosition: from, maxCount: 1 }));
    expect(before.map((e) => e.event!.streamId)).toEqual(['alpha-1']);
  });

  it('filters by stream name prefix or regex, and by event type', async () => {
    const byPrefix = await all(shared.client.readAll({ filter: streamNameFilter({ prefixes: ['alpha-'] }) }));
    expect(byPrefix.map((e) => e.event!.streamId)).toEqual(['alpha-1', 'alpha-2']);
    const byRegex = await all(shared.client.readAll({ filter: streamNameFilter({ regex: '^beta' }) }));
    expect(byRegex.map((e) => e.event!.streamId)).toEqual(['beta-1']);
    const userEvents = await all(shared.client.readAll({ filter: excludeSystemEvents() }));
    expect(userEvents.length).toBeGreaterThan(0);
    expect(userEvents.every((e) => !e.event!.type.startsWith('$'))).toBe(true);
    const byType = await all(shared.client.readAll({ filter: eventTypeFilter({ prefixes: ['Alpha'] }), maxCount: 1 }));
    expect(byType.map((e) => e.event!.streamId)).toEqual(['alpha-1']);
  });
});

describe('Streams.Delete and Streams.Tombstone', () => {
  it('soft-deletes: reads find nothing, the stream can be written again after its last revision', async () => {
    await shared.client.appendToStream('soft', numbered('s', 2));
    const deleted = await shared.client.deleteStream('soft', { expectedRevision: 1n });
    expect(deleted.position!.commit).toBeGreaterThan(0n);
    await expect(all(shared.client.readStream('soft'))).rejects.toBeInstanceOf(StreamNotFoundError);
    await shared.client.appendToStream('soft', numbered('s', 1));
    expect((await all(shared.client.readStream('soft'))).map((e) => e.event!.revision)).toEqual([2n]);
  });

  it('raises WrongExpectedVersionError from Delete with a wrong revision', async () => {
    await shared.client.appendToStream('soft-wev', numbered('s', 2));
    const err = await shared.client.deleteStream('soft-wev', { expectedRevision: 5n }).catch((e) => e);
    expect(err).toBeInstanceOf(WrongExpectedVersionError);
  });

  it('tombstones: reads and appends raise StreamDeletedError for good', async () => {
    await shared.client.appendToStream('hard', numbered('h', 1));
    await shared.client.tombstoneStream('hard');
    await expect(all(shared.client.readStream('hard'))).rejects.toBeInstanceOf(StreamDeletedError);
    await expect(shared.client.appendToStream('hard', numbered('h', 1))).rejects.toBeInstanceOf(StreamDeletedError);
    await expect(shared.client.tombstoneStream('hard')).rejects.toBeInstanceOf(StreamDeletedError);
  });
});
