/**
 * Replication speed, Homeport → Homeport, over each protocol, beside the same run's limits:
 *
 *   node bench/eventlog-replicate.ts          (or: npm run bench:replicate)
 *   BENCH_EVENTS=100000 node bench/eventlog-replicate.ts
 *
 * A source store is filled with BENCH_EVENTS events (runs of 1-20 events over 500 streams, so `$all` changes
 * stream every few events, with metadata and deletions along the way) and served by `homeport serve`. For TCP
 * (node-eventstore-client) and gRPC (@kurrent/kurrentdb-client) it measures, in this order:
 *   - the raw read rate: `$all` read forward to its end through the client, nothing else done with it;
 *   - the raw append rate: the same events appended to a fresh `homeport serve` through the client, one
 *     append per run of consecutive events of one stream (as the replicator groups them), 64 in flight, in no
 *     particular order (tombstones left out);
 *   - replication: `homeport eventlog replicate` (its own process) into another fresh server, events/s as its
 *     summary reports them (source events read / seconds from connecting to the last checkpoint).
 */
import { performance } from 'node:perf_hooks';
import { ANY, FORWARDS, KurrentDBClient, START, type EventData } from '@kurrent/kurrentdb-client';
import es from 'node-eventstore-client';
import { NO_FILTER, planWrites, toSourceEvent, type SourceEvent, type TargetWrite } from '../server/eventlog/index.ts';
import {
  seedBulk,
  removeTempDirs,
  serveHomeport,
  startReplicator,
  tcpClient,
  tempDir,
  type ServedHomeport,
} from '../server/eventlog/replication/testing/index.ts';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 50_000);
const IN_FLIGHT = 64;

type Protocol = 'tcp' | 'grpc';

async function readAllTcp(server: ServedHomeport): Promise<SourceEvent[]> {
  const c = await tcpClient(server.tcpPort);
  const events: SourceEvent[] = [];
  let from = es.Position.start as unknown as es.Position;
  for (;;) {
    const slice = await c.readAllEventsForward(from, 4096, false);
    for (const e of slice.events) if (e.event) events.push(toSourceEvent(e));
    if (slice.isEndOfStream || slice.events.length === 0) break;
    from = slice.nextPosition;
  }
  c.close();
  return events;
}

async function readAllGrpc(server: ServedHomeport): Promise<number> {
  const client = KurrentDBClient.connectionString(server.grpcUrl);
  let count = 0;
  for await (const e of client.readAll({ fromPosition: START, direction: FORWARDS, maxCount: Number.MAX_SAFE_INTEGER }))
    if (e.event) count++;
  await client.dispose();
  return count;
}

/** Runs `write` over `writes`, IN_FLIGHT at once. */
async function appendAll(writes: TargetWrite[], write: (w: TargetWrite) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < writes.length) await write(writes[next++]);
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

async function appendTcp(server: ServedHomeport, writes: TargetWrite[]): Promise<void> {
  const c = await tcpClient(server.tcpPort);
  await appendAll(writes, (w) =>
    w.kind === 'append'
      ? c.appendToStream(
          w.streamId,
          es.expectedVersion.any,
          w.events.map((e) =>
            es.createEventData(e.eventId, e.eventType, e.isJson, Buffer.from(e.data), Buffer.from(e.metadata)),
          ),
        )
      : c.deleteStream(w.streamId, es.expectedVersion.any, true),
  );
  c.close();
}

async function appendGrpc(server: ServedHomeport, writes: TargetWrite[]): Promise<void> {
  const client = KurrentDBClient.connectionString(server.grpcUrl);
  const toData = (e: SourceEvent) =>
    ({
      id: e.eventId,
      type: e.eventType,
      contentType: e.isJson ? 'application/json' : 'application/octet-stream',
      data: e.isJson ? JSON.parse(Buffer.from(e.data).toString('utf8')) : e.data,
      metadata: new Uint8Array(e.metadata),
    }) as EventData;
  await appendAll(writes, (w) =>
    w.kind === 'append'
      ? client.appendToStream(w.streamId, w.events.map(toData), { streamState: ANY, deadline: 600_000 })
      : client.tombstoneStream(w.streamId),
  );
  await client.dispose();
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  const started = performance.now();
  const value = await fn();
  return { value, seconds: (performance.now() - started) / 1000 };
}

async function measure(protocol: Protocol, source: ServedHomeport, events: SourceEvent[]) {
  const read =
    protocol === 'tcp'
      ? await timed(async () => (await readAllTcp(source)).length)
      : await timed(() => readAllGrpc(source));
  // Tombstones stay out: with 64 appends in flight over gRPC one could overtake the last append to its stream.
  const writes = planWrites(NO_FILTER, events).filter((w) => w.kind === 'append');
  const copies = writes.reduce((n, w) => n + (w.kind === 'append' ? w.events.length : 1), 0);
  const scratch = await serveHomeport(tempDir(`bench-append-${protocol}`));
  const append = await timed(() =>
    protocol === 'tcp' ? appendTcp(scratch, writes) : appendGrpc(scratch, writes),
  ).finally(() => scratch.kill('SIGTERM'));
  const target = await serveHomeport(tempDir(`bench-target-${protocol}`));
  const url = (s: ServedHomeport) => (protocol === 'tcp' ? s.tcpUrl : s.grpcUrl);
  const replicator = startReplicator(['--from', url(source), '--to', url(target)]);
  const code = await replicator.exitCode.finally(() => target.kill('SIGTERM'));
  const summary = /source events read in \S+ \(([\d,]+)\/s\)/.exec(replicator.output());
  if (code !== 0 || !summary) throw new Error(`replication over ${protocol} failed:\n${replicator.output()}`);
  const readRate = read.value / read.seconds;
  const appendRate = copies / append.seconds;
  const replicateRate = Number(summary[1].replace(/,/g, ''));
  return { protocol, readRate, appendRate, replicateRate, share: replicateRate / Math.min(readRate, appendRate) };
}

const sourceDir = tempDir('bench-source');
console.log(`filling the source with ${EVENTS.toLocaleString('en-US')} events…`);
await seedBulk(sourceDir, { events: EVENTS });
const source = await serveHomeport(sourceDir);
try {
  const events = await readAllTcp(source);
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  console.log(`\n${events.length.toLocaleString('en-US')} source events ($all, system events included)\n`);
  console.log('protocol | raw read (events/s) | raw append (events/s) | replicate (events/s) | of the slower');
  console.log('---|---|---|---|---');
  for (const protocol of ['tcp', 'grpc'] as const) {
    const r = await measure(protocol, source, events);
    console.log(
      `${r.protocol} | ${n(r.readRate)} | ${n(r.appendRate)} | ${n(r.replicateRate)} | ${Math.round(r.share * 100)}%`,
    );
  }
} finally {
  await source.kill('SIGTERM');
  removeTempDirs();
}
