import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../testing/wait-for.ts';
import { forEachClient, connectClient, eventNumberOf, range, type ResolvedEvent } from './testing/tcp-clients.ts';

/** Persistent groups through the real node-eventstore-client, both published generations, against a running Homeport: ack, every nak action, timeouts, parking, each strategy with two consumers, restarts. */

forEachClient((t) => {
  describe('persistent', () => {
    it('creates (once), connects, delivers and acks', async () => {
      const stream = t.streamName('ps');
      await t.writeMany(stream, 5);
      await t.conn.createPersistentSubscription(stream, 'workers', t.groupSettings(), t.admin);
      await expect(t.conn.createPersistentSubscription(stream, 'workers', t.groupSettings(), t.admin)).rejects.toThrow(
        /already exists/,
      );
      await expect(t.conn.createPersistentSubscription(stream, 'anon', t.groupSettings())).rejects.toThrow(
        /access denied/i,
      );
      await expect(t.conn.connectToPersistentSubscription(stream, 'nope', () => {})).rejects.toThrow(/not found/i);

      const got: number[] = [];
      const sub = await t.conn.connectToPersistentSubscription(stream, 'workers', (_s: unknown, e: ResolvedEvent) => {
        got.push(eventNumberOf(e));
      });
      await t.writeMany(stream, 3);
      await waitFor(() => got.length === 8, 'eight events');
      expect(got).toEqual(range(8));
      await waitFor(() => t.hp.subscriptions.getGroup(stream, 'workers')?.totalItemsProcessed === 8, 'acks to arrive');
      const info = t.hp.subscriptions.getGroup(stream, 'workers')!;
      expect(info.connections[0].connectionName).toBe('subscriber');
      expect(info.totalInFlightMessages).toBe(0);
      sub.stop();
      await waitFor(() => t.hp.subscriptions.getGroup(stream, 'workers')?.connectionCount === 0, 'consumer to leave');

      await t.conn.updatePersistentSubscription(stream, 'workers', t.groupSettings({ maxRetryCount: 3 }), t.admin);
      expect(t.hp.subscriptions.getGroup(stream, 'workers')?.settings.maxRetryCount).toBe(3);
      await t.conn.deletePersistentSubscription(stream, 'workers', t.admin);
      // Deleting it again: the group does not exist (not just any error).
      await expect(t.conn.deletePersistentSubscription(stream, 'workers', t.admin)).rejects.toThrow(
        /^Subscription group workers on stream \S+ does not exist$/,
      );
    });

    it('handles every nak action: Park, Retry, Skip, Stop (redelivered after the message timeout)', async () => {
      const stream = t.streamName('nak');
      await t.createGroup(stream, { messageTimeout: 500, maxRetryCount: 5 });
      const Nak = t.es.PersistentSubscriptionNakEventAction;
      const deliveries: number[] = [];
      const actions: Record<number, number | null> = { 0: Nak.Park, 1: Nak.Retry, 2: Nak.Skip, 3: Nak.Stop, 4: null };
      const sub = await t.joinGroup(
        stream,
        (s, e) => {
          const n = eventNumberOf(e);
          const seenBefore = deliveries.includes(n);
          deliveries.push(n);
          const action = seenBefore ? null : actions[n];
          if (action === null) s.acknowledge(e);
          else s.fail(e, action, `nak ${n}`);
        },
        { window: 10, autoAck: false },
      );
      await t.writeMany(stream, 5, 5);
      // Retry (1) comes back at once; Stop (3) comes back only when its message timeout passes.
      await waitFor(
        () => deliveries.filter((n) => n === 1).length === 2 && deliveries.filter((n) => n === 3).length === 2,
        'redeliveries',
      );
      await waitFor(() => t.hp.subscriptions.getGroup(stream, 'g')?.parkedMessageCount === 1, 'the park');
      await waitFor(() => t.hp.subscriptions.getGroup(stream, 'g')?.totalInFlightMessages === 0, 'everything settled');
      expect(deliveries.filter((n) => n === 0)).toHaveLength(1); // parked, not redelivered
      expect(deliveries.filter((n) => n === 2)).toHaveLength(1); // skipped
      expect(deliveries.filter((n) => n === 4)).toHaveLength(1);
      const parked = t.hp.subscriptions.listParked(stream, 'g')!;
      expect(parked.messages.map((m) => m.eventNumber)).toEqual([0]);
      expect(parked.messages[0].reason).toContain('nak 0');

      // Replaying the parked message delivers it once more.
      expect(t.hp.subscriptions.replayParked(stream, 'g')).toBe(1);
      await waitFor(() => deliveries.filter((n) => n === 0).length === 2, 'the replayed message');
      sub.stop();
    });

    it('parks a message after max_retry_count redeliveries (timeouts count)', async () => {
      const stream = t.streamName('retry');
      await t.createGroup(stream, { messageTimeout: 20, maxRetryCount: 2 });
      let deliveries = 0;
      const sub = await t.joinGroup(
        stream,
        () => {
          deliveries++; // never acked: every delivery times out
        },
        { window: 10, autoAck: false },
      );
      await t.writeMany(stream, 1);
      await waitFor(
        () => t.hp.subscriptions.getGroup(stream, 'g')?.parkedMessageCount === 1,
        'the message to be parked',
      );
      expect(deliveries).toBe(3);
      const parked = t.hp.subscriptions.listParked(stream, 'g')!;
      expect(parked.messages[0].reason).toMatch(/Max retry count/);
      sub.stop();
    });

    it('refuses a second consumer past subscriber_max_count', async () => {
      const stream = t.streamName('max');
      await t.createGroup(stream, { maxSubscriberCount: 1 });
      const first = await t.conn.connectToPersistentSubscription(stream, 'g', () => {});
      await expect(t.conn.connectToPersistentSubscription(stream, 'g', () => {})).rejects.toThrow(
        /maximum subscribers/i,
      );
      first.stop();
    });

    async function twoConsumers(
      stream: string,
      strategy: string,
      bufferSize: number,
      extra: Record<string, unknown> = {},
    ) {
      await t.createGroup(stream, { namedConsumerStrategy: strategy, ...extra });
      const got = { a: [] as ResolvedEvent[], b: [] as ResolvedEvent[] };
      const other = await connectClient(t.es, t.hp.tcpPort, 'second-consumer');
      const join = (on: typeof other, into: ResolvedEvent[]) =>
        t.joinGroup(
          stream,
          (_s, e) => {
            into.push(e);
          },
          { window: bufferSize, on },
        );
      const a = await join(t.conn, got.a);
      const b = await join(other, got.b);
      await waitFor(() => t.hp.subscriptions.getGroup(stream, 'g')?.connectionCount === 2, 'two consumers');
      return {
        got,
        async close() {
          a.stop();
          b.stop();
          other.close();
        },
      };
    }

    it('RoundRobin shares the stream between two consumers, each event once', async () => {
      const stream = t.streamName('rr');
      const { got, close } = await twoConsumers(stream, 'RoundRobin', 10);
      await t.writeMany(stream, 40, 10);
      await waitFor(() => got.a.length + got.b.length === 40, 'forty events');
      const all = [...got.a, ...got.b].map(eventNumberOf).sort((x, y) => x - y);
      expect(all).toEqual(range(40));
      expect(got.a.length).toBeGreaterThan(0);
      expect(got.b.length).toBeGreaterThan(0);
      await close();
    });

    it('DispatchToSingle fills the first consumer before the second', async () => {
      const stream = t.streamName('single');
      const { got, close } = await twoConsumers(stream, 'DispatchToSingle', 5);
      await t.writeMany(stream, 10, 10);
      await waitFor(() => got.a.length + got.b.length === 10, 'ten events');
      // Both windows were empty when the batch landed: the first five fill the first consumer.
      expect(got.a.slice(0, 5).map(eventNumberOf)).toEqual(range(5));
      expect(got.b.slice(0, 5).map(eventNumberOf)).toEqual(range(5, 5));
      await close();
    });

    it('Pinned keeps each source stream with one consumer', async () => {
      const stream = t.streamName('pinned');
      const sources = range(8).map((i) => t.streamName(`src${i}`));
      for (const s of sources) await t.writeMany(s, 3, 3);
      const { got, close } = await twoConsumers(stream, 'Pinned', 50, { resolveLinkTos: true });
      for (let n = 0; n < 3; n++) {
        await t.writer.appendToStream(
          stream,
          t.es.expectedVersion.any,
          sources.map((s) => t.es.createEventData(crypto.randomUUID(), '$>', false, Buffer.from(`${n}@${s}`))),
        );
      }
      await waitFor(() => got.a.length + got.b.length === 24, 'twenty-four links');
      const owners = new Map<string, Set<string>>();
      for (const [who, list] of Object.entries(got)) {
        for (const e of list) {
          const set = owners.get(e.event.eventStreamId) ?? new Set<string>();
          set.add(who);
          owners.set(e.event.eventStreamId, set);
        }
      }
      expect([...owners.values()].every((set) => set.size === 1)).toBe(true);
      await close();
    });

    it('PinnedByCorrelation keeps each correlation id with one consumer', async () => {
      const stream = t.streamName('corr');
      const { got, close } = await twoConsumers(stream, 'PinnedByCorrelation', 50);
      for (let round = 0; round < 3; round++) {
        await t.writer.appendToStream(
          stream,
          t.es.expectedVersion.any,
          range(8).map((i) => t.json('E', { round }, { $correlationId: `c-${i}` })),
        );
      }
      await waitFor(() => got.a.length + got.b.length === 24, 'twenty-four events');
      const owners = new Map<string, Set<string>>();
      for (const [who, list] of Object.entries(got)) {
        for (const e of list) {
          const corr = JSON.parse(Buffer.from(e.event.metadata).toString()).$correlationId as string;
          const set = owners.get(corr) ?? new Set<string>();
          set.add(who);
          owners.set(corr, set);
        }
      }
      expect(owners.size).toBe(8);
      expect([...owners.values()].every((set) => set.size === 1)).toBe(true);
      await close();
    });

    it('survives a server restart mid-stream without losing an event', async () => {
      const stream = t.streamName('restart');
      await t.createGroup(stream, { maxCheckpointCount: 10, minCheckpointCount: 1 });
      const acked = new Set<number>();
      let sub = await t.joinGroup(
        stream,
        (s, e) => {
          const n = eventNumberOf(e);
          // Leave a few unacknowledged: they must come back after the restart.
          if (n % 17 === 5) return;
          s.acknowledge(e);
          acked.add(n);
        },
        { window: 20, autoAck: false },
      );
      const writing = t.writeMany(stream, 200, 4);
      await waitFor(() => acked.size >= 60, 'some progress before the restart');
      await writing;
      await waitFor(() => acked.size >= 150, 'most events before the restart');
      sub.stop();
      await t.stop();

      await t.start();
      const afterRestart: number[] = [];
      sub = await t.joinGroup(
        stream,
        (s, e) => {
          afterRestart.push(eventNumberOf(e));
          acked.add(eventNumberOf(e));
          s.acknowledge(e);
        },
        { window: 20, autoAck: false },
      );
      await t.writeMany(stream, 20, 5);
      await waitFor(() => acked.size === 220, 'every event acked at least once');
      expect([...acked].sort((x, y) => x - y)).toEqual(range(220));
      expect(afterRestart).toContain(5); // unacked before the restart, redelivered after it
      sub.stop();
    });
  });
});
