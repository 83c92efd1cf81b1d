/**
 * Event-log throughput through the KurrentDB gRPC protocol (@kurrent/kurrentdb-client) beside the TCP
 * protocol (node-eventstore-client 23.10.1), against one `homeport serve` in a separate process, in the
 * same run: appends single and batched, reads (stream forward/backward, $all forward), and `$all` fan-out
 * to 100 subscribers. The gRPC client's own limit is measured against an in-memory server in another
 * process that answers Append and Read without a store (`--ack-server`).
 *
 *   node bench/eventlog-grpc.ts               BENCH_SECONDS=5 node bench/eventlog-grpc.ts
 *   BENCH_GRPC_INSECURE=1 …                    (cleartext gRPC; TLS by default, as KurrentDB)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import * as grpc from '@grpc/grpc-js';
import { jsonEvent, KurrentDBClient, START, BACKWARDS, END } from '@kurrent/kurrentdb-client';
import { serviceDefinition } from '../server/eventlog/index.ts';
import { connectClient, cpuSecondsOf, es, percentile, startServer, stopServer } from './support.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const INSECURE = process.env.BENCH_GRPC_INSECURE === '1';
const ROOT = path.resolve(import.meta.dirname, '..');
const DATA = { payload: 'x'.repeat(230), n: 0 };
const METADATA = { correlationId: crypto.randomUUID(), source: 'bench-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' };

interface Row {
  scenario: string;
  tcp?: number;
  grpc: number;
  /** The Homeport server process's CPU (user + system) per event over the measured window, µs. */
  tcpCpu?: number;
  grpcCpu?: number;
  clientLimit?: number;
  /** The ack server's CPU per event: grpc-js and HTTP/2 alone, nothing stored or read. */
  bareCpu?: number;
  p50?: number;
  p99?: number;
}

interface Measured {
  rate: number;
  /** Server CPU µs per event (or delivery) over the measured window. */
  cpu: number;
}

/** The Homeport server's CPU seconds so far; set once it runs. */
let serverCpuSeconds: () => number = () => 0;
type CpuClock = () => number;

function withAdmin(url: string): string {
  return INSECURE ? url : url.replace('kurrentdb://', 'kurrentdb://admin:changeit@');
}

// ---- the gRPC client's own limit: a server that answers without storing ----

function runAckServer(): void {
  const server = new grpc.Server({ 'grpc.max_receive_message_length': 16 * 1024 * 1024 });
  let position = 0;
  const event = (n: number) => ({
    event: {
      event: {
        id: { string: crypto.randomUUID() },
        stream_identifier: { stream_name: Buffer.from('ack') },
        stream_revision: String(n),
        prepare_position: String(n + 1),
        commit_position: String(n + 1),
        metadata: { type: 'BenchEvent', created: '0', 'content-type': 'application/json' },
        custom_metadata: Buffer.from(JSON.stringify(METADATA)),
        data: Buffer.from(JSON.stringify(DATA)),
      },
      commit_position: String(n + 1),
    },
  });
  const streams = serviceDefinition('event_store.client.streams.Streams');
  // One answer encoded once and sent again and again: what remains is grpc-js's and HTTP/2's work per message.
  const encodedEvent = streams.Read.responseSerialize(event(0));
  server.addService(streams, {
    Append: (call: grpc.ServerReadableStream<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      let events = 0;
      call.on('data', () => events++);
      call.on('end', () => {
        position += events;
        callback(null, {
          success: {
            current_revision: String(position),
            position: { commit_position: String(position), prepare_position: String(position) },
          },
        });
      });
    },
    Read: (call: grpc.ServerWritableStream<{ options: { count?: string } }, unknown>) => {
      const count = Math.min(Number(call.request.options.count ?? 0), 100_000);
      let n = 0;
      const pump = () => {
        while (n < count) {
          n++;
          if (!call.write(encodedEvent)) return void call.once('drain', pump);
        }
        call.end();
      };
      pump();
    },
  });
  server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => {
    if (err) throw err;
    console.log(`ack server on ${port}`);
  });
}

function startAckServer(): Promise<{ child: ChildProcess; url: string; cpu: CpuClock }> {
  const child = spawn(process.execPath, [path.join(ROOT, 'bench/eventlog-grpc.ts'), '--ack-server'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve) => {
    child.stdout!.on('data', (d) => {
      const m = /ack server on (\d+)/.exec(String(d));
      if (m) resolve({ child, url: `kurrentdb://127.0.0.1:${m[1]}?tls=false`, cpu: () => cpuSecondsOf(child.pid!) });
    });
  });
}

// ---- scenarios ----

/** Appends in a loop on every (client, slot) for the measured window; events/s and latency. */
async function appendLoop(
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

const grpcBatch = (size: number) =>
  Array.from({ length: size }, () => jsonEvent({ type: 'BenchEvent', data: DATA, metadata: METADATA }));
const tcpBatch = (size: number) =>
  Array.from({ length: size }, () => es.createJsonEventData(crypto.randomUUID(), DATA, METADATA, 'BenchEvent'));

async function grpcAppends(
  url: string,
  clients: number,
  batch: number,
  inFlight: number,
  cpuClock: CpuClock = serverCpuSeconds,
) {
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

async function tcpAppends(port: number, clients: number, batch: number, inFlight: number) {
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
      serverCpuSeconds,
    );
  } finally {
    for (const c of cs) c.close();
  }
}

async function timed(work: () => Promise<number>, cpuClock: CpuClock = serverCpuSeconds): Promise<Measured> {
  const started = performance.now();
  const cpuBefore = cpuClock();
  const n = await work();
  return { rate: n / ((performance.now() - started) / 1000), cpu: ((cpuClock() - cpuBefore) * 1e6) / n };
}

async function grpcRead(
  url: string,
  read: (c: KurrentDBClient) => AsyncIterable<unknown>,
  cpuClock: CpuClock = serverCpuSeconds,
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

type TcpConnection = Awaited<ReturnType<typeof connectClient>>;
async function tcpRead(port: number, read: (c: TcpConnection) => Promise<number>): Promise<Measured> {
  const limits = { maxConcurrentItems: 5000, maxQueueSize: 50_000 };
  const conns = await Promise.all(Array.from({ length: 4 }, (_, i) => connectClient(port, `r-${i}`, limits)));
  try {
    return await timed(async () => (await Promise.all(conns.map(read))).reduce((a, b) => a + b, 0));
  } finally {
    for (const c of conns) c.close();
  }
}

async function tcpReadStream(c: TcpConnection, stream: string, forward: boolean): Promise<number> {
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

async function tcpReadAll(c: TcpConnection, limit: number): Promise<number> {
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

/**
 * 100 live `$all` subscribers; one writer appends `events` in batches; deliveries per second. A subscription the
 * server drops is reported: the rate would otherwise hide a subscriber that stopped receiving.
 */
async function fanOut(
  subscribe: (
    onEvent: () => void,
    index: number,
    onDropped: (reason: string) => void,
  ) => Promise<() => Promise<void> | void>,
  write: (batch: number) => Promise<void>,
  subscribers = 100,
  events = 2000,
): Promise<Measured> {
  let delivered = 0;
  let done: () => void = () => {};
  const all = new Promise<void>((r) => (done = r));
  const target = subscribers * events;
  const drops: string[] = [];
  const onEvent = () => {
    if (++delivered === target) done();
  };
  const onDropped = (reason: string) => {
    drops.push(reason);
    done(); // a dropped subscriber never reaches the target: stop waiting
  };
  const stops = await Promise.all(Array.from({ length: subscribers }, (_, i) => subscribe(onEvent, i, onDropped)));
  delivered = 0;
  const started = performance.now();
  const cpuBefore = serverCpuSeconds();
  for (let n = 0; n < events; n += 100) await write(100);
  // A generous bound: a subscription the server dropped would otherwise leave the run waiting for ever.
  await Promise.race([all, new Promise((r) => setTimeout(r, 120_000))]);
  if (drops.length > 0) console.error(`fan-out: ${drops.length} subscriptions dropped (${drops[0]})`);
  if (delivered < target) console.error(`fan-out: ${delivered} of ${target} deliveries within 120 s`);
  const rate = delivered / ((performance.now() - started) / 1000);
  const cpu = ((serverCpuSeconds() - cpuBefore) * 1e6) / delivered;
  for (const stop of stops) await stop();
  return { rate, cpu };
}

function ackLimit(limit: Measured): Pick<Row, 'clientLimit' | 'bareCpu'> {
  return { clientLimit: limit.rate, bareCpu: limit.cpu };
}

function both(tcp: Measured, grpc: Measured): Pick<Row, 'tcp' | 'grpc' | 'tcpCpu' | 'grpcCpu'> {
  return { tcp: tcp.rate, grpc: grpc.rate, tcpCpu: tcp.cpu, grpcCpu: grpc.cpu };
}

function printTable(rows: Row[]): void {
  const headers = [
    'scenario',
    'TCP ev/s',
    'gRPC ev/s',
    'gRPC/TCP',
    'gRPC client limit',
    'TCP µs/ev',
    'gRPC µs/ev',
    'bare grpc-js µs/ev',
    'gRPC p50',
    'gRPC p99',
  ];
  const fmt = (n: number | undefined) => (n === undefined ? '' : Math.round(n).toLocaleString('en-US'));
  const cells = rows.map((r) => [
    r.scenario,
    fmt(r.tcp),
    fmt(r.grpc),
    r.tcp ? `${Math.round((r.grpc / r.tcp) * 100)}%` : '',
    fmt(r.clientLimit),
    r.tcpCpu === undefined ? '' : r.tcpCpu.toFixed(1),
    r.grpcCpu === undefined ? '' : r.grpcCpu.toFixed(1),
    r.bareCpu === undefined ? '' : r.bareCpu.toFixed(1),
    r.p50 === undefined ? '' : r.p50.toFixed(2),
    r.p99 === undefined ? '' : r.p99.toFixed(2),
  ]);
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) => c.map((v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join('  ');
  console.log(line(headers));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const c of cells) console.log(line(c));
  console.log(
    `µs/ev: the server process's CPU (user + system) per event or delivery (bare grpc-js: the ack server, cleartext); load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}

async function main(): Promise<void> {
  console.log(
    `event-log gRPC vs TCP: ${os.cpus().length} cores, node ${process.version}, ${SECONDS}s per append scenario, gRPC ${INSECURE ? 'cleartext' : 'TLS'}\n`,
  );
  const ack = await startAckServer();
  const server = await startServer('homeport-bench-grpc-', {
    args: ['--grpc-port', '0', ...(INSECURE ? ['--grpc-insecure'] : [])],
  });
  serverCpuSeconds = () => server.cpuSeconds();
  const url = withAdmin(server.grpc!.connectionString);
  const rows: Row[] = [];
  try {
    for (const [clients, batch, inFlight] of [
      [1, 1, 64],
      [10, 1, 16],
      [1, 100, 8],
      [10, 100, 4],
    ] as const) {
      const tcp = await tcpAppends(server.tcpPort, clients, batch, inFlight);
      const viaGrpc = await grpcAppends(url, clients, batch, inFlight);
      const limit = await grpcAppends(ack.url, clients, batch, inFlight, ack.cpu);
      rows.push({
        scenario: `append ${clients} client × ${inFlight} in flight, ${batch}-event batches`,
        tcp: tcp.rate,
        grpc: viaGrpc.rate,
        tcpCpu: tcp.cpu,
        grpcCpu: viaGrpc.cpu,
        clientLimit: limit.rate,
        bareCpu: limit.cpu,
        p50: viaGrpc.p50,
        p99: viaGrpc.p99,
      });
    }

    const stream = 'bench-read';
    const seed = KurrentDBClient.connectionString(url);
    for (let n = 0; n < 50_000; n += 500) await seed.appendToStream(stream, grpcBatch(500));
    console.error('appends done');
    rows.push({
      scenario: 'read stream forward, 4 readers, whole stream (50,000)',
      ...both(
        await tcpRead(server.tcpPort, (c) => tcpReadStream(c, stream, true)),
        await grpcRead(url, (c) => c.readStream(stream)),
      ),
      ...ackLimit(await grpcRead(ack.url, (c) => c.readStream(stream, { maxCount: 50_000 }), ack.cpu)),
    });
    rows.push({
      scenario: 'read stream backward, 4 readers, whole stream',
      ...both(
        await tcpRead(server.tcpPort, (c) => tcpReadStream(c, stream, false)),
        await grpcRead(url, (c) => c.readStream(stream, { direction: BACKWARDS, fromRevision: END })),
      ),
    });
    rows.push({
      scenario: 'read $all forward, 4 readers, 100,000 events',
      ...both(
        await tcpRead(server.tcpPort, (c) => tcpReadAll(c, 100_000)),
        await grpcRead(url, (c) => c.readAll({ fromPosition: START, maxCount: 100_000 })),
      ),
    });

    const tcpWriter = await connectClient(server.tcpPort, 'fan-writer', {
      maxConcurrentItems: 5000,
      maxQueueSize: 50_000,
    });
    // One connection per subscriber, as bench/eventlog-subscribe: 100 subscriptions on one TCP connection put
    // 10,000 frames in its send queue for each 100-event write, past the backlog bound, and the server drops them
    // (SubscriptionDropped, as EventStoreDB's queue threshold does), which the last runs counted as slowness.
    const tcpSubscribers: TcpConnection[] = [];
    const tcpFan = await fanOut(
      async (onEvent, i, onDropped) => {
        const connection = await connectClient(server.tcpPort, `fan-sub-${i}`, {
          maxConcurrentItems: 5000,
          maxQueueSize: 50_000,
        });
        tcpSubscribers.push(connection);
        const sub = await connection.subscribeToAll(
          false,
          () => onEvent(),
          (_s: unknown, reason: string) => {
            if (reason !== 'userInitiated') onDropped(String(reason));
          },
        );
        return () => sub.unsubscribe();
      },
      (batch) => tcpWriter.appendToStream('fan-tcp', es.expectedVersion.any, tcpBatch(batch)),
    );
    tcpWriter.close();
    for (const c of tcpSubscribers) c.close();
    const grpcSubscriber = KurrentDBClient.connectionString(url);
    const grpcFan = await fanOut(
      async (onEvent, _i, onDropped) => {
        const sub = grpcSubscriber.subscribeToAll({ fromPosition: END });
        await new Promise<void>((r) => sub.once('caughtUp', () => r()));
        sub.on('data', () => onEvent());
        sub.on('error', (err) => onDropped(err.message));
        return () => sub.unsubscribe();
      },
      async (batch) => {
        await seed.appendToStream('fan-grpc', grpcBatch(batch));
      },
    );
    rows.push({ scenario: '$all fan-out to 100 subscribers (deliveries/s)', ...both(tcpFan, grpcFan) });
    await grpcSubscriber.dispose();
    await seed.dispose();
  } finally {
    await stopServer(server);
    ack.child.kill('SIGTERM');
  }
  printTable(rows);
}

if (process.argv.includes('--ack-server')) runAckServer();
else
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
