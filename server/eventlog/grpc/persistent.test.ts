import {
  AccessDeniedError,
  DISPATCH_TO_SINGLE,
  END,
  jsonEvent,
  PARK,
  persistentSubscriptionToStreamSettingsFromDefaults,
  PersistentSubscriptionDoesNotExistError,
  PersistentSubscriptionExistsError,
  START,
  type PersistentSubscriptionToStreamResolvedEvent,
} from '@kurrent/kurrentdb-client';
import { describe, expect, it } from 'vitest';
import { useGrpcTestServer } from './testing/homeport.ts';
import { record } from './testing/subscriptions.ts';

const shared = useGrpcTestServer();
const settings = (changes = {}) => persistentSubscriptionToStreamSettingsFromDefaults({ startFrom: START, ...changes });
const numbered = (n: number) => Array.from({ length: n }, (_, i) => jsonEvent({ type: 'job', data: { i } }));
const dataOf = (e: PersistentSubscriptionToStreamResolvedEvent) => (e.event!.data as { i: number }).i;

describe('persistent subscriptions to a stream', () => {
  it('creates a group, delivers to a consumer, records acks as a checkpoint in GetInfo', async () => {
    const { client } = shared;
    await client.appendToStream('ps-basic', numbered(5));
    await client.createPersistentSubscriptionToStream(
      'ps-basic',
      'workers',
      settings({ checkPointLowerBound: 1, checkPointUpperBound: 1 }),
    );
    const sub = client.subscribeToPersistentSubscriptionToStream('ps-basic', 'workers');
    const rec = record(sub);
    await rec.until(() => rec.events.length === 5);
    expect(rec.events.map(dataOf)).toEqual([0, 1, 2, 3, 4]);
    await sub.ack(...rec.events);
    const deadline = Date.now() + 15_000;
    let info = await client.getPersistentSubscriptionToStreamInfo('ps-basic', 'workers');
    while (info.stats.lastCheckpointedEventRevision !== 4n && Date.now() < deadline) {
      await new Promise((r) => setImmediate(r));
      info = await client.getPersistentSubscriptionToStreamInfo('ps-basic', 'workers');
    }
    expect(info.stats.lastCheckpointedEventRevision).toBe(4n);
    expect(info.settings.startFrom).toBe(START);
    expect(info.connections).toHaveLength(1);
    expect(info.connections[0].username).toBe('admin');
    const listed = await client.listPersistentSubscriptionsToStream('ps-basic');
    expect(listed.map((g) => g.groupName)).toEqual(['workers']);
    expect((await client.listAllPersistentSubscriptions()).map((g) => g.groupName)).toContain('workers');
    await sub.unsubscribe();
  });

  it('reports ack latencies per connection with extra statistics; keeps DispatchToSingle (proto3 0)', async () => {
    const { client } = shared;
    await client.appendToStream('ps-stats', numbered(3));
    await client.createPersistentSubscriptionToStream(
      'ps-stats',
      'g',
      settings({ extraStatistics: true, consumerStrategyName: DISPATCH_TO_SINGLE }),
    );
    const sub = client.subscribeToPersistentSubscriptionToStream('ps-stats', 'g');
    const rec = record(sub);
    await rec.until(() => rec.events.length === 3);
    await sub.ack(...rec.events);
    let info = await client.getPersistentSubscriptionToStreamInfo('ps-stats', 'g');
    const deadline = Date.now() + 15_000;
    while (info.stats.totalItems !== 3n && Date.now() < deadline) {
      await new Promise((r) => setImmediate(r));
      info = await client.getPersistentSubscriptionToStreamInfo('ps-stats', 'g');
    }
    expect(info.settings.consumerStrategyName).toBe(DISPATCH_TO_SINGLE);
    const statistics = info.connections[0].extraStatistics;
    for (const key of ['mean', 'median', 'fastest', 'quintile 3', '99%', 'highest'] as const)
      expect(typeof statistics?.get(key)).toBe('bigint');
    await sub.unsubscribe();
  });

  it('parks nacked messages and replays them', async () => {
    const { client } = shared;
    await client.appendToStream('ps-park', numbered(2));
    await client.createPersistentSubscriptionToStream('ps-park', 'g', settings());
    const sub = client.subscribeToPersistentSubscriptionToStream('ps-park', 'g');
    const rec = record(sub);
    await rec.until(() => rec.events.length === 2);
    await sub.ack(rec.events[0]);
    await sub.nack(PARK, 'cannot handle', rec.events[1]);
    const waitParked = async (count: bigint) => {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const info = await client.getPersistentSubscriptionToStreamInfo('ps-park', 'g');
        if (info.stats.parkedMessageCount === count) return;
        if (Date.now() > deadline) throw new Error(`parked count stayed ${info.stats.parkedMessageCount}`);
        await new Promise((r) => setImmediate(r));
      }
    };
    await waitParked(1n);
    await client.replayParkedMessagesToStream('ps-park', 'g');
    await rec.until(() => rec.events.length === 3);
    expect(dataOf(rec.events[2])).toBe(1);
    await sub.unsubscribe();
  });

  it('reports the typed errors: exists, does not exist, access denied', async () => {
    const { client, server } = shared;
    await client.createPersistentSubscriptionToStream('ps-errors', 'g', settings());
    await expect(client.createPersistentSubscriptionToStream('ps-errors', 'g', settings())).rejects.toBeInstanceOf(
      PersistentSubscriptionExistsError,
    );
    await expect(client.updatePersistentSubscriptionToStream('ps-errors', 'nope', settings())).rejects.toBeInstanceOf(
      PersistentSubscriptionDoesNotExistError,
    );
    await expect(client.getPersistentSubscriptionToStreamInfo('ps-errors', 'nope')).rejects.toBeInstanceOf(
      PersistentSubscriptionDoesNotExistError,
    );
    const missing = record(client.subscribeToPersistentSubscriptionToStream('ps-errors', 'nope'));
    await expect(missing.until(() => false)).rejects.toBeInstanceOf(PersistentSubscriptionDoesNotExistError);
    const anonymous = server.client(null);
    await expect(anonymous.createPersistentSubscriptionToStream('ps-errors', 'x', settings())).rejects.toBeInstanceOf(
      AccessDeniedError,
    );
    await expect(anonymous.replayParkedMessagesToStream('ps-errors', 'g')).rejects.toBeInstanceOf(AccessDeniedError);
    await client.deletePersistentSubscriptionToStream('ps-errors', 'g');
    await expect(client.deletePersistentSubscriptionToStream('ps-errors', 'g')).rejects.toBeInstanceOf(
      PersistentSubscriptionDoesNotExistError,
    );
  });

  it('updates a group (consumers are dropped and may reconnect) and starts from the end when asked', async () => {
    const { client } = shared;
    await client.appendToStream('ps-update', numbered(3));
    await client.createPersistentSubscriptionToStream('ps-update', 'g', settings({ startFrom: END }));
    const before = await client.getPersistentSubscriptionToStreamInfo('ps-update', 'g');
    expect(before.settings.startFrom).toBe(END);
    const first = record(client.subscribeToPersistentSubscriptionToStream('ps-update', 'g'));
    await client.appendToStream('ps-update', numbered(1));
    await first.until(() => first.events.length === 1);
    await client.updatePersistentSubscriptionToStream('ps-update', 'g', settings({ maxRetryCount: 3 }));
    await expect(first.until(() => false)).rejects.toThrow();
    const after = await client.getPersistentSubscriptionToStreamInfo('ps-update', 'g');
    expect(after.settings.maxRetryCount).toBe(3);
  });

  it('restarts the subsystem: consumers are dropped, groups resume from their checkpoints', async () => {
    const { client, server } = shared;
    await client.appendToStream('ps-restart', numbered(3));
    await client.createPersistentSubscriptionToStream('ps-restart', 'g', settings());
    const before = record(client.subscribeToPersistentSubscriptionToStream('ps-restart', 'g'));
    await before.until(() => before.events.length === 3);
    await expect(server.client(null).restartPersistentSubscriptionSubsystem()).rejects.toBeInstanceOf(
      AccessDeniedError,
    );
    await client.restartPersistentSubscriptionSubsystem();
    await expect(before.until(() => false)).rejects.toThrow();
    // nothing was acknowledged: a new consumer gets all three again
    const after = record(client.subscribeToPersistentSubscriptionToStream('ps-restart', 'g'));
    await after.until(() => after.events.length === 3);
    expect(after.events.map(dataOf)).toEqual([0, 1, 2]);
  });
});
