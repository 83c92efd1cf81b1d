/**
 * The scenarios of bench/eventlog-grpc.ts, each measured against a server whose CPU `cpuClock` reads: appends in
 * a loop, reads through either protocol's client, and `$all` fan-out.
 */
import crypto from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { jsonEvent, KurrentDBClient } from '@kurrent/kurrentdb-client';
import { connectClient, es, percentile } from '../support.ts';

/** How long each append scenario is measured. */
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
export const DATA = { payload: 'x'.repeat(230), n: 0 };
export const METADATA = { correlationId: crypto.randomUUID(), source: 'bench-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' };

export interface Measured {
  rate: number;
  /** Server CPU µs per event (or delivery) over the measured window. */
  cpu: number;
}

/** A server process's CPU seconds so far. */
export type CpuClock = () => number;

/** Appends in a loop on every (client, slot) for the measured window; events/s and latency. */
export async function appendLoop(
  clients: number,
  inFlight: number,
  append: (client: number, stream: string) => Promise<number>,
  cpuClock: CpuClock,
): Promise<Measured & { p50: number; p99: number }> {
  const latencies: number[] = [];
  let events = 0;
  let stop = false;
  const loop = async (c: number, stream: string) => {
    while (!stop) {
      const t0 = performance.now();
      const appended = await append(c, stream); // not `events += await …`: that reads `events` before waiting
      events += appended;
      latencies.push(performance.now() - t0);
    }
  };
  const run = Array.from({ length: clients }, (_, c) =>
    Array.from({ length: inFlight }, (_, i) => loop(c, `bench-${c}-${i}-${crypto.randomUUID().slice(0, 8)}`)),
  ).flat();
  await new Promise((r) => setTimeout(r, 500));
  latencies.length = 0;
  events = 0;
  const started = performance.now();
  const cpuBefore = cpuClock();
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  const measured = events;
  const cpu = cpuClock() - cpuBefore;
  const elapsed = (performance.now() - started) / 1000;
  stop = true;
  await Promise.all(run);
  const sorted = latencies.slice().sort((a, b) => a - b);
  return {
    rate: measured / elapsed,
    cpu: (cpu * 1e6) / measured,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
  };
}

export const grpcBatch = (size: number) =>
  Array.from({ length: size }, () => jsonEvent({ type: 'BenchEvent', data: DATA, metadata: METADATA }));
export const tcpBatch = (size: number) =>
  Array.from({ length: size }, () => es.createJsonEventData(crypto.randomUUID(), DATA, METADATA, 'BenchEvent'));

export async function grpcAppends(url: string, clients: number, batch: number, inFlight: number, cpuClock: CpuClock) {
  const cs = Array.from({ length: clients }, () => KurrentDBClient.connectionString(url));
  try {
    return await appendLoop(
      clients,
      inFlight,
      async (c, stream) => {
        await cs[c].appendToStream(stream, grpcBatch(batch));
        return batch;
      },
      cpuClock,
    );
  } finally {
    await Promise.all(cs.map((c) => c.dispose()));
  }
}

export async function tcpAppends(port: number, clients: number, batch: number, inFlight: number, cpuClock: CpuClock) {
  const limits = { maxConcurrentItems: 5000, maxQueueSize: 50_000 };
  const cs = await Promise.all(Array.from({ length: clients }, (_, i) => connectClient(port, `b-${i}`, limits)));
  try {
    return await appendLoop(
      clients,
      inFlight,
      async (c, stream) => {
        await cs[c].appendToStream(stream, es.expectedVersion.any, tcpBatch(batch));
        return batch;
      },
      cpuClock,
    );
  } finally {
    for (const c of cs) c.close();
  }
}

export async function timed(work: () => Promise<number>, cpuClock: CpuClock): Promise<Measured> {
  const started = performance.now();
  const cpuBefore = cpuClock();
  const n = await work();
  return { rate: n / ((performance.now() - started) / 1000), cpu: ((cpuClock() - cpuBefore) * 1e6) / n };
}

export async function grpcRead(
  url: string,
  read: (c: KurrentDBClient) => AsyncIterable<unknown>,
  cpuClock: CpuClock,
): Promise<Measured> {
  const clients = Array.from({ length: 4 }, () => KurrentDBClient.connectionString(url));
  try {
    return await timed(async () => {
      const counts = await Promise.all(
        clients.map(async (c) => {
          let n = 0;
          for await (const _ of read(c)) n++;
          return n;
        }),
      );
      return counts.reduce((a, b) => a + b, 0);
    }, cpuClock);
  } finally {
    await Promise.all(clients.map((c) => c.dispose()));
  }
}

export type TcpConnection = Awaited<ReturnType<typeof connectClient>>;
export async function tcpRead(
  port: number,
  read: (c: TcpConnection) => Promise<number>,
  cpuClock: CpuClock,
): Promise<Measured> {
  const limits = { maxConcurrentItems: 5000, maxQueueSize: 50_000 };
  const conns = await Promise.all(Array.from({ length: 4 }, (_, i) => connectClient(port, `r-${i}`, limits)));
  try {
    return await timed(async () => (await Promise.all(conns.map(read))).reduce((a, b) => a + b, 0), cpuClock);
  } finally {
    for (const c of conns) c.close();
  }
}

export async function tcpReadStream(c: TcpConnection, stream: string, forward: boolean): Promise<number> {
  let read = 0;
  let from = forward ? 0 : -1;
  for (;;) {
    const slice = forward
      ? await c.readStreamEventsForward(stream, from, 1000, false)
      : await c.readStreamEventsBackward(stream, from, 1000, false);
    read += slice.events.length;
    if (slice.isEndOfStream) return read;
    from = slice.nextEventNumber.toNumber();
  }
}

export async function tcpReadAll(c: TcpConnection, limit: number): Promise<number> {
  let read = 0;
  let position = es.positions.start;
  while (read < limit) {
    const slice = await c.readAllEventsForward(position, 1000, false);
    read += slice.events.length;
    if (slice.isEndOfStream) break;
    position = slice.nextPosition;
  }
  return read;
}

/** What a fan-out subscriber passes on for each event: its stream and when the server wrote it (epoch ms). */
export type OnFanEvent = (stream: string, createdMs: number) => void;

/**
 * The TCP server asks a peer that sent nothing for 2 s for a heartbeat and drops it when nothing arrives within
 * 1 s more (connection-facts.ts; KurrentDB's defaults and rule: only bytes received count). A subscriber only
 * reads, so a client reading its socket further behind than this misses the deadline and is dropped.
 */
const HEARTBEAT_DEADLINE_MS = 1000;

/**
 * 100 live `$all` subscribers; one writer appends `events` to `stream` in batches; deliveries per second of that
 * stream's events (`$all` also carries the system projections' links, which are not counted). A subscription the
 * server drops is reported with how far behind this client was reading, which tells a slow client (the bench
 * process on a loaded machine) from a server fault: the rate would otherwise hide a subscriber that stopped.
 */
export async function fanOut(
  stream: string,
  subscribe: (
    onEvent: OnFanEvent,
    index: number,
    onDropped: (reason: string) => void,
  ) => Promise<() => Promise<void> | void>,
  write: (batch: number) => Promise<void>,
  cpuClock: CpuClock,
  subscribers = 100,
  events = 2000,
): Promise<Measured> {
  let delivered = 0;
  let done: () => void = () => {};
  const all = new Promise<void>((r) => (done = r));
  const target = subscribers * events;
  const drops: string[] = [];
  let lagMs = 0;
  let lagAtFirstDropMs = 0;
  const onEvent: OnFanEvent = (eventStream, createdMs) => {
    if (eventStream !== stream) return;
    lagMs = Math.max(lagMs, Date.now() - createdMs);
    if (++delivered === target) done();
  };
  const onDropped = (reason: string) => {
    if (drops.push(reason) === 1) lagAtFirstDropMs = lagMs;
    done(); // a dropped subscriber never reaches the target: stop waiting
  };
  const stops = await Promise.all(Array.from({ length: subscribers }, (_, i) => subscribe(onEvent, i, onDropped)));
  delivered = 0;
  const started = performance.now();
  const cpuBefore = cpuClock();
  for (let n = 0; n < events; n += 100) await write(100);
  // A generous bound: a subscription the server dropped would otherwise leave the run waiting for ever.
  await Promise.race([all, new Promise((r) => setTimeout(r, 120_000))]);
  const rate = delivered / ((performance.now() - started) / 1000);
  const cpu = ((cpuClock() - cpuBefore) * 1e6) / delivered;
  if (drops.length > 0) console.error(dropVerdict(drops, lagAtFirstDropMs));
  if (delivered < target) console.error(`fan-out: ${delivered} of ${target} deliveries within 120 s`);
  for (const stop of stops) await stop();
  return { rate, cpu };
}

/** Names what dropped the subscriptions: this client's own slowness, or the server. */
function dropVerdict(drops: string[], lagMs: number): string {
  const seen = `fan-out: ${drops.length} subscriptions dropped (${drops[0]}); this client was reading up to ${lagMs} ms behind the server by then`;
  if (drops[0] !== 'connectionClosed') return seen; // only the TCP protocol's heartbeat rule is known here
  return lagMs > HEARTBEAT_DEADLINE_MS
    ? `${seen}: a slow client, past the server's ${HEARTBEAT_DEADLINE_MS} ms heartbeat deadline (KurrentDB drops it too)`
    : `${seen}: within the heartbeat deadline, so the server dropped a client that kept up (a server fault)`;
}
