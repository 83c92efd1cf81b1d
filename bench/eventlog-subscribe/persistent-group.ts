/**
 * Scenario 2 of the subscription benchmark (bench/eventlog-subscribe.ts): a stream pre-filled with events,
 * one persistent group, four consumers; once through the lean wire client with batched acks, once through
 * node-eventstore-client's own persistent subscription for comparison.
 */
import crypto from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { TcpCommand, decodeMessage, encodeMessage } from '../../server/eventlog/index.ts';
import { connectClient, es } from '../support.ts';
import { WireClient } from './wire-client.ts';

export const GROUP_EVENTS = Number(process.env.BENCH_GROUP_EVENTS ?? 100_000);
export const CONSUMERS = 4;
/** What pads every benchmark event's data (both scenarios). */
export const PADDING = 'x'.repeat(200);
/** node-eventstore-client's request queue, sized for the fill and the persistent-group comparison. */
const CLIENT_LIMITS = { maxConcurrentItems: 20_000, maxQueueSize: 50_000 };

async function fillStream(port: number, stream: string, count: number): Promise<void> {
  const writer = await connectClient(port, 'bench-filler', CLIENT_LIMITS);
  const batch = 500;
  const inFlight: Promise<unknown>[] = [];
  for (let n = 0; n < count; n += batch) {
    const events = Array.from({ length: Math.min(batch, count - n) }, (_, i) =>
      es.createEventData(
        crypto.randomUUID(),
        'BenchEvent',
        true,
        Buffer.from(JSON.stringify({ n: n + i, padding: PADDING })),
        null,
      ),
    );
    inFlight.push(writer.appendToStream(stream, es.expectedVersion.any, events));
    if (inFlight.length >= 8) await inFlight.shift();
  }
  await Promise.all(inFlight);
  writer.close();
}

async function createGroup(port: number, stream: string, group: string): Promise<void> {
  const conn = await connectClient(port, 'bench-admin', CLIENT_LIMITS);
  const settings = es.PersistentSubscriptionSettings.create();
  settings.startFrom = 0;
  settings.readBatchSize = 500;
  settings.historyBufferSize = 2000;
  settings.liveBufferSize = 2000;
  await conn.createPersistentSubscription(stream, group, settings);
  conn.close();
}

export async function groupWireConsumers(port: number): Promise<{ acked: number; seconds: number }> {
  const stream = `bench-group-${crypto.randomUUID().slice(0, 8)}`;
  await fillStream(port, stream, GROUP_EVENTS);
  await createGroup(port, stream, 'workers');
  let acked = 0;
  let started = 0;
  let finished = 0;
  const done = new Promise<void>((resolve) => {
    void Promise.all(
      Array.from({ length: CONSUMERS }, async (_, i) => {
        const client = await WireClient.connect(port);
        await client.request(
          TcpCommand.IdentifyClient,
          encodeMessage('IdentifyClient', { version: 1, connectionName: `bench-consumer-${i}` }),
        );
        const correlationId = crypto.randomBytes(16);
        let subscriptionId = '';
        let toAck: Uint8Array[] = [];
        client.onPackage = (pkg) => {
          if (pkg.command !== TcpCommand.PersistentSubscriptionStreamEventAppeared) return;
          const m = decodeMessage<{ event: { event?: { eventId: Uint8Array }; link?: { eventId: Uint8Array } } }>(
            'PersistentSubscriptionStreamEventAppeared',
            pkg.body,
          );
          toAck.push((m.event.link ?? m.event.event)!.eventId);
        };
        client.onReadDone = () => {
          if (toAck.length === 0) return;
          client.send(
            TcpCommand.PersistentSubscriptionAckEvents,
            correlationId,
            encodeMessage('PersistentSubscriptionAckEvents', { subscriptionId, processedEventIds: toAck }),
          );
          acked += toAck.length;
          toAck = [];
          if (acked >= GROUP_EVENTS && !finished) {
            finished = performance.now();
            resolve();
          }
        };
        started ||= performance.now();
        const confirmation = await client.request(
          TcpCommand.ConnectToPersistentSubscription,
          encodeMessage('ConnectToPersistentSubscription', {
            subscriptionId: 'workers',
            eventStreamId: stream,
            allowedInFlightMessages: 500,
          }),
          correlationId,
        );
        subscriptionId = decodeMessage<{ subscriptionId: string }>(
          'PersistentSubscriptionConfirmation',
          confirmation.body,
        ).subscriptionId;
        await new Promise<void>((r) => {
          const wait = () => (finished ? r() : setTimeout(wait, 20));
          wait();
        });
        client.close();
      }),
    );
  });
  await done;
  return { acked, seconds: (finished - started) / 1000 };
}

export async function groupNodeClientConsumers(
  port: number,
  events: number,
): Promise<{ acked: number; seconds: number }> {
  const stream = `bench-group-nec-${crypto.randomUUID().slice(0, 8)}`;
  await fillStream(port, stream, events);
  await createGroup(port, stream, 'workers');
  const conns = await Promise.all(
    Array.from({ length: CONSUMERS }, (_, i) => connectClient(port, `bench-nec-consumer-${i}`, CLIENT_LIMITS)),
  );
  let processed = 0;
  const started = performance.now();
  let finished = 0;
  const subs = await new Promise<unknown[]>((resolve) => {
    const list: Promise<unknown>[] = conns.map((c) =>
      c.connectToPersistentSubscription(
        stream,
        'workers',
        () => {
          processed++;
          if (processed === events) finished = performance.now();
        },
        undefined,
        undefined,
        500,
        true,
      ),
    );
    void Promise.all(list).then(resolve);
  });
  while (!finished) await new Promise((r) => setTimeout(r, 20));
  for (const s of subs as { stop(): void }[]) s.stop();
  for (const c of conns) c.close();
  return { acked: processed, seconds: (finished - started) / 1000 };
}
