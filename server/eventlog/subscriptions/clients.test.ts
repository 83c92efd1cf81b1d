// Over 400 lines on purpose: one subject, subscriptions as the real TCP client (node-eventstore-client) sees them; its cases share one set-up.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHomeport, type Homeport } from '../../index.ts';
import { connectClient as connectWith } from '../tcp/testing/client-connection.ts';
import { waitFor } from '../testing/wait-for.ts';

/**
 * Subscriptions through the real node-eventstore-client, both published generations, against a
 * running Homeport: volatile and catch-up subscriptions across the live boundary, and persistent
 * groups (ack, every nak action, timeouts, parking, each strategy with two consumers, restarts).
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Es = any;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Connection = any;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ResolvedEvent = any;

const clients: { label: string; load: () => Promise<Es> }[] = [
  { label: 'node-eventstore-client 23.10.1', load: async () => (await import('node-eventstore-client')).default },
  { label: 'node-eventstore-client 0.2.19', load: async () => (await import('node-eventstore-client-0.2')).default },
];

/** A connection to `port` that gives up at once when the server goes. */
const connectClient = (es: Es, port: number, name: string): Promise<Connection> =>
  connectWith(es, `tcp://127.0.0.1:${port}`, { maxReconnections: 0 }, name);

function num(value: { toNumber(): number } | number): number {
  return typeof value === 'number' ? value : value.toNumber();
}

function eventNumberOf(e: ResolvedEvent): number {
  return num(e.originalEvent.eventNumber);
}

function positionKey(e: ResolvedEvent): [number, number] {
  return [num(e.originalPosition.commitPosition), num(e.originalPosition.preparePosition)];
}

const range = (n: number, from = 0) => Array.from({ length: n }, (_, i) => from + i);

for (const client of clients) {
  describe(`subscriptions through ${client.label}`, () => {
    let es: Es;
    let hp: Homeport;
    let dataDir: string;
    let conn: Connection;
    let writer: Connection;
    let admin: unknown;
    const streamName = (name: string) => `${name}-${crypto.randomUUID().slice(0, 8)}`;
    const json = (type: string, data: unknown, metadata: unknown = null) =>
      es.createJsonEventData(crypto.randomUUID(), data, metadata, type);

    async function start(): Promise<void> {
      hp = await startHomeport({
        dataDir,
        httpPort: 0,
        tcpPort: 0,
        tcpTlsPort: 0,
        logToConsole: false,
        rendererDir: null,
      });
      conn = await connectClient(es, hp.tcpPort, 'subscriber');
      writer = await connectClient(es, hp.tcpPort, 'writer');
    }

    async function stop(): Promise<void> {
      conn?.close();
      writer?.close();
      await hp?.close();
    }

    async function writeMany(stream: string, count: number, batch = 10, type = 'Numbered'): Promise<void> {
      for (let i = 0; i < count; i += batch) {
        const events = range(Math.min(batch, count - i), i).map((n) => json(type, { n }));
        await writer.appendToStream(stream, es.expectedVersion.any, events);
      }
    }

    function groupSettings(overrides: Record<string, unknown> = {}) {
      const s = es.PersistentSubscriptionSettings.create();
      s.startFrom = 0;
      return Object.assign(s, overrides);
    }

    beforeAll(async () => {
      es = await client.load();
      admin = new es.UserCredentials('admin', 'changeit');
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-subs-clients-'));
      await start();
    });

    afterAll(async () => {
      await stop();
      if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    });

    describe('volatile', () => {
      it('subscribeToStream gets new events of that stream in order, and unsubscribes', async () => {
        const stream = streamName('volatile');
        await writeMany(stream, 3);
        const got: ResolvedEvent[] = [];
        const sub = await conn.subscribeToStream(stream, false, (_s: unknown, e: ResolvedEvent) => {
          got.push(e);
        });
        expect(num(sub.lastEventNumber)).toBe(2);
        await writeMany(stream, 5, 2);
        await writer.appendToStream(streamName('other'), es.expectedVersion.any, json('Other', {}));
        await waitFor(() => got.length === 5, 'five events');
        expect(got.map(eventNumberOf)).toEqual([3, 4, 5, 6, 7]);
        expect(got.every((e) => e.originalEvent.eventStreamId === stream)).toBe(true);
        expect(
          hp.subscriptions.listVolatile().some((v) => v.streamId === stream && v.connectionName === 'subscriber'),
        ).toBe(true);

        sub.unsubscribe();
        await waitFor(
          () => !hp.subscriptions.listVolatile().some((v) => v.streamId === stream),
          'server to forget the subscription',
        );
      });

      it('confirms -1 for a stream that does not exist yet', async () => {
        const sub = await conn.subscribeToStream(streamName('fresh'), false, () => {});
        expect(num(sub.lastEventNumber)).toBe(-1);
        sub.unsubscribe();
      });

      it('subscribeToAll needs read access to $all and then sees every stream', async () => {
        await expect(conn.subscribeToAll(false, () => {})).rejects.toThrow(/access denied/i);
        const stream = streamName('all');
        const got: ResolvedEvent[] = [];
        const sub = await conn.subscribeToAll(
          false,
          (_s: unknown, e: ResolvedEvent) => {
            if (e.originalEvent.eventStreamId === stream) got.push(e);
          },
          undefined,
          admin,
        );
        await writeMany(stream, 4, 1);
        await waitFor(() => got.length === 4, 'four events');
        expect(got.map(eventNumberOf)).toEqual([0, 1, 2, 3]);
        sub.unsubscribe();
      });

      it('resolves links for subscribers that ask', async () => {
        const target = streamName('target');
        const links = streamName('links');
        await writer.appendToStream(target, es.expectedVersion.any, json('Thing', { v: 1 }));
        const got: ResolvedEvent[] = [];
        const sub = await conn.subscribeToStream(links, true, (_s: unknown, e: ResolvedEvent) => {
          got.push(e);
        });
        await writer.appendToStream(
          links,
          es.expectedVersion.any,
          es.createEventData(crypto.randomUUID(), '$>', false, Buffer.from(`0@${target}`)),
        );
        await waitFor(() => got.length === 1, 'the link');
        expect(got[0].event.eventStreamId).toBe(target);
        expect(got[0].link.eventStreamId).toBe(links);
        expect(got[0].isResolved).toBe(true);
        sub.unsubscribe();
      });

      it('subscribeToStreamFrom catches up across the live boundary with a concurrent writer: no gaps, no duplicates', async () => {
        const stream = streamName('catchup');
        await writeMany(stream, 600, 50);
        const got: number[] = [];
        let live = false;
        const sub = conn.subscribeToStreamFrom(
          stream,
          null,
          false,
          (_s: unknown, e: ResolvedEvent) => {
            got.push(eventNumberOf(e));
          },
          () => {
            live = true;
          },
          undefined,
          undefined,
          100,
        );
        await writeMany(stream, 600, 3);
        await waitFor(() => live && got.length >= 1200, 'all 1200 events');
        await writeMany(stream, 5, 1);
        await waitFor(() => got.length >= 1205, 'live events');
        expect(got).toEqual(range(1205));
        sub.stop();
      });

      it('subscribeToAllFrom catches up across the live boundary with concurrent writers: no gaps, no duplicates', async () => {
        const streams = [streamName('all-a'), streamName('all-b'), streamName('all-c')];
        for (const s of streams) await writeMany(s, 150, 25);
        const seen = new Map<string, number[]>(streams.map((s) => [s, []]));
        const positions: [number, number][] = [];
        let live = false;
        const sub = conn.subscribeToAllFrom(
          null,
          false,
          (_s: unknown, e: ResolvedEvent) => {
            positions.push(positionKey(e));
            seen.get(e.originalEvent.eventStreamId)?.push(eventNumberOf(e));
          },
          () => {
            live = true;
          },
          undefined,
          admin,
          200,
        );
        const writers = streams.map((s) => writeMany(s, 150, 2));
        await Promise.all(writers);
        await waitFor(
          () => live && [...seen.values()].every((n) => n.length >= 300),
          'all events of the three streams',
        );
        for (const s of streams) expect(seen.get(s)).toEqual(range(300));
        for (let i = 1; i < positions.length; i++) {
          const [[c0, p0], [c1, p1]] = [positions[i - 1], positions[i]];
          expect(c1 > c0 || (c1 === c0 && p1 > p0)).toBe(true);
        }
        sub.stop();
      });
    });

    describe('persistent', () => {
      it('creates (once), connects, delivers and acks', async () => {
        const stream = streamName('ps');
        await writeMany(stream, 5);
        await conn.createPersistentSubscription(stream, 'workers', groupSettings(), admin);
        await expect(conn.createPersistentSubscription(stream, 'workers', groupSettings(), admin)).rejects.toThrow(
          /already exists/,
        );
        await expect(conn.createPersistentSubscription(stream, 'anon', groupSettings())).rejects.toThrow(
          /access denied/i,
        );
        await expect(conn.connectToPersistentSubscription(stream, 'nope', () => {})).rejects.toThrow(/not found/i);

        const got: number[] = [];
        const sub = await conn.connectToPersistentSubscription(stream, 'workers', (_s: unknown, e: ResolvedEvent) => {
          got.push(eventNumberOf(e));
        });
        await writeMany(stream, 3);
        await waitFor(() => got.length === 8, 'eight events');
        expect(got).toEqual(range(8));
        await waitFor(() => hp.subscriptions.getGroup(stream, 'workers')?.totalItemsProcessed === 8, 'acks to arrive');
        const info = hp.subscriptions.getGroup(stream, 'workers')!;
        expect(info.connections[0].connectionName).toBe('subscriber');
        expect(info.totalInFlightMessages).toBe(0);
        sub.stop();
        await waitFor(() => hp.subscriptions.getGroup(stream, 'workers')?.connectionCount === 0, 'consumer to leave');

        await conn.updatePersistentSubscription(stream, 'workers', groupSettings({ maxRetryCount: 3 }), admin);
        expect(hp.subscriptions.getGroup(stream, 'workers')?.settings.maxRetryCount).toBe(3);
        await conn.deletePersistentSubscription(stream, 'workers', admin);
        // Deleting it again: the group does not exist (not just any error).
        await expect(conn.deletePersistentSubscription(stream, 'workers', admin)).rejects.toThrow(
          /^Subscription group workers on stream \S+ does not exist$/,
        );
      });

      it('handles every nak action: Park, Retry, Skip, Stop (redelivered after the message timeout)', async () => {
        const stream = streamName('nak');
        await conn.createPersistentSubscription(
          stream,
          'g',
          groupSettings({ messageTimeout: 500, maxRetryCount: 5 }),
          admin,
        );
        const Nak = es.PersistentSubscriptionNakEventAction;
        const deliveries: number[] = [];
        const actions: Record<number, number | null> = { 0: Nak.Park, 1: Nak.Retry, 2: Nak.Skip, 3: Nak.Stop, 4: null };
        const sub = await conn.connectToPersistentSubscription(
          stream,
          'g',
          (s: { acknowledge(e: unknown): void; fail(e: unknown, a: number, r: string): void }, e: ResolvedEvent) => {
            const n = eventNumberOf(e);
            const seenBefore = deliveries.includes(n);
            deliveries.push(n);
            const action = seenBefore ? null : actions[n];
            if (action === null) s.acknowledge(e);
            else s.fail(e, action, `nak ${n}`);
          },
          undefined,
          admin,
          10,
          false,
        );
        await writeMany(stream, 5, 5);
        // Retry (1) comes back at once; Stop (3) comes back only when its message timeout passes.
        await waitFor(
          () => deliveries.filter((n) => n === 1).length === 2 && deliveries.filter((n) => n === 3).length === 2,
          'redeliveries',
        );
        await waitFor(() => hp.subscriptions.getGroup(stream, 'g')?.parkedMessageCount === 1, 'the park');
        await waitFor(() => hp.subscriptions.getGroup(stream, 'g')?.totalInFlightMessages === 0, 'everything settled');
        expect(deliveries.filter((n) => n === 0)).toHaveLength(1); // parked, not redelivered
        expect(deliveries.filter((n) => n === 2)).toHaveLength(1); // skipped
        expect(deliveries.filter((n) => n === 4)).toHaveLength(1);
        const parked = hp.subscriptions.listParked(stream, 'g')!;
        expect(parked.messages.map((m) => m.eventNumber)).toEqual([0]);
        expect(parked.messages[0].reason).toContain('nak 0');

        // Replaying the parked message delivers it once more.
        expect(hp.subscriptions.replayParked(stream, 'g')).toBe(1);
        await waitFor(() => deliveries.filter((n) => n === 0).length === 2, 'the replayed message');
        sub.stop();
      });

      it('parks a message after max_retry_count redeliveries (timeouts count)', async () => {
        const stream = streamName('retry');
        await conn.createPersistentSubscription(
          stream,
          'g',
          groupSettings({ messageTimeout: 20, maxRetryCount: 2 }),
          admin,
        );
        let deliveries = 0;
        const sub = await conn.connectToPersistentSubscription(
          stream,
          'g',
          () => {
            deliveries++; // never acked: every delivery times out
          },
          undefined,
          admin,
          10,
          false,
        );
        await writeMany(stream, 1);
        await waitFor(
          () => hp.subscriptions.getGroup(stream, 'g')?.parkedMessageCount === 1,
          'the message to be parked',
        );
        expect(deliveries).toBe(3);
        const parked = hp.subscriptions.listParked(stream, 'g')!;
        expect(parked.messages[0].reason).toMatch(/Max retry count/);
        sub.stop();
      });

      it('refuses a second consumer past subscriber_max_count', async () => {
        const stream = streamName('max');
        await conn.createPersistentSubscription(stream, 'g', groupSettings({ maxSubscriberCount: 1 }), admin);
        const first = await conn.connectToPersistentSubscription(stream, 'g', () => {});
        await expect(conn.connectToPersistentSubscription(stream, 'g', () => {})).rejects.toThrow(
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
        await conn.createPersistentSubscription(
          stream,
          'g',
          groupSettings({ namedConsumerStrategy: strategy, ...extra }),
          admin,
        );
        const got = { a: [] as ResolvedEvent[], b: [] as ResolvedEvent[] };
        const other = await connectClient(es, hp.tcpPort, 'second-consumer');
        const a = await conn.connectToPersistentSubscription(
          stream,
          'g',
          (_s: unknown, e: ResolvedEvent) => {
            got.a.push(e);
          },
          undefined,
          admin,
          bufferSize,
        );
        const b = await other.connectToPersistentSubscription(
          stream,
          'g',
          (_s: unknown, e: ResolvedEvent) => {
            got.b.push(e);
          },
          undefined,
          admin,
          bufferSize,
        );
        await waitFor(() => hp.subscriptions.getGroup(stream, 'g')?.connectionCount === 2, 'two consumers');
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
        const stream = streamName('rr');
        const { got, close } = await twoConsumers(stream, 'RoundRobin', 10);
        await writeMany(stream, 40, 10);
        await waitFor(() => got.a.length + got.b.length === 40, 'forty events');
        const all = [...got.a, ...got.b].map(eventNumberOf).sort((x, y) => x - y);
        expect(all).toEqual(range(40));
        expect(got.a.length).toBeGreaterThan(0);
        expect(got.b.length).toBeGreaterThan(0);
        await close();
      });

      it('DispatchToSingle fills the first consumer before the second', async () => {
        const stream = streamName('single');
        const { got, close } = await twoConsumers(stream, 'DispatchToSingle', 5);
        await writeMany(stream, 10, 10);
        await waitFor(() => got.a.length + got.b.length === 10, 'ten events');
        // Both windows were empty when the batch landed: the first five fill the first consumer.
        expect(got.a.slice(0, 5).map(eventNumberOf)).toEqual(range(5));
        expect(got.b.slice(0, 5).map(eventNumberOf)).toEqual(range(5, 5));
        await close();
      });

      it('Pinned keeps each source stream with one consumer', async () => {
        const stream = streamName('pinned');
        const sources = range(8).map((i) => streamName(`src${i}`));
        for (const s of sources) await writeMany(s, 3, 3);
        const { got, close } = await twoConsumers(stream, 'Pinned', 50, { resolveLinkTos: true });
        for (let n = 0; n < 3; n++) {
          await writer.appendToStream(
            stream,
            es.expectedVersion.any,
            sources.map((s) => es.createEventData(crypto.randomUUID(), '$>', false, Buffer.from(`${n}@${s}`))),
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
        const stream = streamName('corr');
        const { got, close } = await twoConsumers(stream, 'PinnedByCorrelation', 50);
        for (let round = 0; round < 3; round++) {
          await writer.appendToStream(
            stream,
            es.expectedVersion.any,
            range(8).map((i) => json('E', { round }, { $correlationId: `c-${i}` })),
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
        const stream = streamName('restart');
        await conn.createPersistentSubscription(
          stream,
          'g',
          groupSettings({ maxCheckpointCount: 10, minCheckpointCount: 1 }),
          admin,
        );
        const acked = new Set<number>();
        let sub = await conn.connectToPersistentSubscription(
          stream,
          'g',
          (s: { acknowledge(e: unknown): void }, e: ResolvedEvent) => {
            const n = eventNumberOf(e);
            // Leave a few unacknowledged: they must come back after the restart.
            if (n % 17 === 5) return;
            s.acknowledge(e);
            acked.add(n);
          },
          undefined,
          admin,
          20,
          false,
        );
        const writing = writeMany(stream, 200, 4);
        await waitFor(() => acked.size >= 60, 'some progress before the restart');
        await writing;
        await waitFor(() => acked.size >= 150, 'most events before the restart');
        sub.stop();
        await stop();

        await start();
        const afterRestart: number[] = [];
        sub = await conn.connectToPersistentSubscription(
          stream,
          'g',
          (s: { acknowledge(e: unknown): void }, e: ResolvedEvent) => {
            afterRestart.push(eventNumberOf(e));
            acked.add(eventNumberOf(e));
            s.acknowledge(e);
          },
          undefined,
          admin,
          20,
          false,
        );
        await writeMany(stream, 20, 5);
        await waitFor(() => acked.size === 220, 'every event acked at least once');
        expect([...acked].sort((x, y) => x - y)).toEqual(range(220));
        expect(afterRestart).toContain(5); // unacked before the restart, redelivered after it
        sub.stop();
      });
    });
  });
}
