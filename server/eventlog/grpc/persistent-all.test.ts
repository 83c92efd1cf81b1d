import {
  END,
  jsonEvent,
  PARK,
  persistentSubscriptionToAllSettingsFromDefaults,
  PersistentSubscriptionDoesNotExistError,
  PersistentSubscriptionExistsError,
  START,
  streamNameFilter,
  eventTypeFilter,
  type PersistentSubscriptionToAllResolvedEvent,
} from '@kurrent/kurrentdb-client';
import { describe, expect, it } from 'vitest';
import { useGrpcTestServer } from './testing/homeport.ts';
import { record } from './testing/subscriptions.ts';

/** Persistent subscriptions to `$all` (KurrentDB 21.10+) through the official client. */
const shared = useGrpcTestServer();
const settings = (changes = {}) => persistentSubscriptionToAllSettingsFromDefaults({ startFrom: START, ...changes });
const numbered = (n: number, type = 'job') => Array.from({ length: n }, (_, i) => jsonEvent({ type, data: { i } }));
const label = (e: PersistentSubscriptionToAllResolvedEvent) =>
  `${e.event!.streamId}/${(e.event!.data as { i: number }).i}`;

async function waitForInfo<T>(read: () => Promise<T>, holds: (info: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const info = await read();
    if (holds(info)) return info;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}

describe('persistent subscriptions to $all', () => {
  it('delivers the filtered log from the start, then live, with positions, and checkpoints acks', async () => {
    const { client } = shared;
    await client.appendToStream('psall-a-1', numbered(2));
    await client.appendToStream('other-1', numbered(2));
    await client.createPersistentSubscriptionToAll(
      'filtered',
      settings({ checkPointLowerBound: 1, checkPointUpperBound: 1 }),
      { filter: streamNameFilter({ prefixes: ['psall-a-'] }) },
    );
    const sub = client.subscribeToPersistentSubscriptionToAll('filtered');
    const rec = record(sub);
    await rec.until(() => rec.events.length === 2);
    await client.appendToStream('other-1', numbered(1));
    const live = await client.appendToStream('psall-a-2', numbered(1));
    await rec.until(() => rec.events.length === 3);
    expect(rec.events.map(label)).toEqual(['psall-a-1/0', 'psall-a-1/1', 'psall-a-2/0']);
    expect(rec.events[2].event!.position).toEqual(live.position);
    await sub.ack(...rec.events);

    const info = await waitForInfo(
      () => client.getPersistentSubscriptionToAllInfo('filtered'),
      (i) => i.stats.lastCheckpointedEventPosition?.commit === live.position!.commit,
      'the checkpoint at the last acked event',
    );
    expect(info.settings.startFrom).toBe(START);
    expect(info.eventSource).toBe('$all');
    expect(info.connections).toHaveLength(1);
    expect((await client.listPersistentSubscriptionsToAll()).map((g) => g.groupName)).toEqual(['filtered']);
    expect((await client.listAllPersistentSubscriptions()).map((g) => g.groupName)).toContain('filtered');
    await sub.unsubscribe();

    // A new consumer resumes after the checkpoint: only what came since.
    await client.appendToStream('psall-a-1', numbered(1, 'later'));
    const again = record(client.subscribeToPersistentSubscriptionToAll('filtered'));
    await again.until(() => again.events.length === 1);
    expect(again.events[0].event!.type).toBe('later');
    await client.deletePersistentSubscriptionToAll('filtered');
    await expect(client.getPersistentSubscriptionToAllInfo('filtered')).rejects.toBeInstanceOf(
      PersistentSubscriptionDoesNotExistError,
    );
  });

  it('starts from the end or a position, filters by event type, and keeps the filter across an update', async () => {
    const { client } = shared;
    const first = await client.appendToStream('psall-b', numbered(1, 'b-type'));
    await client.appendToStream('psall-b', numbered(1, 'b-type'));
    await client.createPersistentSubscriptionToAll('from-position', settings({ startFrom: first.position }), {
      filter: eventTypeFilter({ regex: '^b-type$' }),
    });
    await client.createPersistentSubscriptionToAll('from-end', settings({ startFrom: END }), {
      filter: eventTypeFilter({ prefixes: ['b-'] }),
    });
    const fromPosition = record(client.subscribeToPersistentSubscriptionToAll('from-position'));
    await fromPosition.until(() => fromPosition.events.length === 2);
    expect(fromPosition.events[0].event!.position).toEqual(first.position);

    await client.updatePersistentSubscriptionToAll('from-end', settings({ startFrom: END, maxRetryCount: 3 }));
    const info = await client.getPersistentSubscriptionToAllInfo('from-end');
    expect(info.settings.startFrom).toBe(END);
    expect(info.settings.maxRetryCount).toBe(3);
    const fromEnd = record(client.subscribeToPersistentSubscriptionToAll('from-end'));
    await client.appendToStream('psall-b', [...numbered(1, 'not-b'), ...numbered(1, 'b-type')]);
    await fromEnd.until(() => fromEnd.events.length === 1);
    expect(fromEnd.events[0].event!.type).toBe('b-type');
    await fromPosition.until(() => fromPosition.events.length === 3);
  });

  it('crosses a long run of events its filter leaves out without waiting page by page', async () => {
    const { client } = shared;
    await client.appendToStream('psall-noise', numbered(10_000, 'noise'));
    await client.appendToStream('psall-signal', numbered(1, 'signal'));
    await client.createPersistentSubscriptionToAll('sparse', settings(), {
      filter: eventTypeFilter({ prefixes: ['signal'] }),
    });
    const rec = record(client.subscribeToPersistentSubscriptionToAll('sparse'));
    await rec.until(() => rec.events.length === 1);
    expect(rec.events[0].event!.streamId).toBe('psall-signal');
  });

  it('parks nacked messages and replays them; typed errors for existing and missing groups', async () => {
    const { client } = shared;
    await client.createPersistentSubscriptionToAll('parking', settings(), {
      filter: streamNameFilter({ prefixes: ['psall-park'] }),
    });
    await expect(client.createPersistentSubscriptionToAll('parking', settings())).rejects.toBeInstanceOf(
      PersistentSubscriptionExistsError,
    );
    await expect(client.updatePersistentSubscriptionToAll('missing', settings())).rejects.toBeInstanceOf(
      PersistentSubscriptionDoesNotExistError,
    );
    await client.appendToStream('psall-park', numbered(2));
    const sub = client.subscribeToPersistentSubscriptionToAll('parking');
    const rec = record(sub);
    await rec.until(() => rec.events.length === 2);
    await sub.ack(rec.events[0]);
    await sub.nack(PARK, 'cannot handle', rec.events[1]);
    await waitForInfo(
      () => client.getPersistentSubscriptionToAllInfo('parking'),
      (i) => i.stats.parkedMessageCount === 1n,
      'one parked message',
    );
    await client.replayParkedMessagesToAll('parking');
    await rec.until(() => rec.events.length === 3);
    expect(label(rec.events[2])).toBe('psall-park/1');
    await sub.unsubscribe();
  });
});
