/**
 * Event-log subscription throughput and delivery latency through the real TCP protocol.
 *
 *   node bench/eventlog-subscribe.ts            (or: npm run bench:subscribe)
 *   BENCH_SECONDS=10 BENCH_SUBSCRIBERS=100 BENCH_RATE=5000 BENCH_RUNS=5 node bench/eventlog-subscribe.ts
 *   BENCH_SERVER_FLAGS=--cpu-prof node bench/eventlog-subscribe.ts   (extra node flags for the server)
 *
 * `homeport serve` runs as a separate process. Scenarios:
 *
 * 1. Fan-out: 100 volatile subscribers on `$all` (one TCP connection each) while one writer appends
 *    single events at a paced 5,000 events/s (pipelined WriteEvents over the protocol). Reports events/s
 *    delivered over all subscribers and the delivery latency (write sent → event received). Every
 *    subscriber counts every frame; latency is taken from every event on a sample of the subscribers
 *    (decoding 500,000 protobuf messages a second would measure this process, not the server). The
 *    server's CPU time per delivered event is printed too: it changes little with the machine's load.
 * 2. Competing consumers: a stream pre-filled with events, one persistent group (RoundRobin), 4
 *    consumers with an in-flight window of 500 that acknowledge what they received once per socket read
 *    (several ids per Ack, as the protocol allows). Reports acked events/s. The same with
 *    node-eventstore-client's own persistent subscription (auto-ack, one Ack per event) for comparison.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { TcpCommand, decodeMessage, encodeMessage, guidStringToBytes } from '../server/eventlog/index.ts';
import {
  CONSUMERS,
  GROUP_EVENTS,
  groupNodeClientConsumers,
  groupWireConsumers,
  PADDING,
} from './eventlog-subscribe/persistent-group.ts';
import { WireClient } from './eventlog-subscribe/wire-client.ts';
import { writeSyscallsOf } from './proc-io.ts';
import { cpuSecondsOf, percentile, startServer, stopServer } from './support.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 100);
/** Seconds of paced writes before the measured window (not counted). */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 1);
const RATE = Number(process.env.BENCH_RATE ?? 5_000);
const LATENCY_SAMPLE = Number(process.env.BENCH_LATENCY_SUBSCRIBERS ?? 2);
/** Fan-out runs on the same server (each followed by its bare-loop ceiling): p99 and CPU are printed per run. */
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

const now = () => performance.timeOrigin + performance.now();

// ---- scenario 1: fan-out to volatile $all subscribers ----

interface FanOutResult {
  commitP50: number;
  commitP99: number;
  appendP50: number;
  appendP99: number;
  serverCpu: number;
  /** Server CPU time (writes included) per delivered event: a figure the machine's load hardly changes. */
  serverCpuMicrosPerDelivery: number;
  benchCpu: number;
  subscribers: number;
  targetRate: number;
  written: number;
  writtenPerSec: number;
  deliveredPerSec: number;
  expectedDeliveries: number;
  delivered: number;
  p50: number;
  p99: number;
  max: number;
  dropped: number;
  /** Bytes of one delivered StreamEventAppeared frame. */
  frameBytes: number;
  /** The server's write system calls (all threads, SQLite's included) per delivered event. */
  serverWritesPerDelivery: number;
}

async function fanOut(port: number, serverPid: number): Promise<FanOutResult> {
  const stream = `bench-fanout-${crypto.randomUUID().slice(0, 8)}`;
  const clients = await Promise.all(Array.from({ length: SUBSCRIBERS }, () => WireClient.connect(port)));
  const latencies: number[] = [];
  const fromCommit: number[] = [];
  const appendLatencies: number[] = [];
  let delivered = 0;
  let frameBytes = 0;
  let warmDelivered = 0;
  let dropped = 0;
  let measuring = false;
  await Promise.all(
    clients.map(async (client, i) => {
      await client.request(
        TcpCommand.IdentifyClient,
        encodeMessage('IdentifyClient', { version: 1, connectionName: `bench-sub-${i}` }),
      );
      const sampled = i < LATENCY_SAMPLE;
      client.onPackage = (pkg) => {
        if (pkg.command === TcpCommand.StreamEventAppeared) {
          if (!measuring) {
            warmDelivered++;
            return;
          }
          delivered++;
          if (sampled) {
            const m = decodeMessage<{
              event: {
                event?: { eventStreamId: string; data: Uint8Array; createdEpoch: number | { toNumber(): number } };
              };
            }>('StreamEventAppeared', pkg.body);
            const record = m.event.event;
            frameBytes ||= 4 + 18 + pkg.body.length;
            if (record?.eventStreamId === stream) {
              const receivedAt = now();
              latencies.push(receivedAt - JSON.parse(Buffer.from(record.data).toString()).t);
              const created =
                typeof record.createdEpoch === 'number' ? record.createdEpoch : record.createdEpoch.toNumber();
              fromCommit.push(Date.now() - created);
            }
          }
        } else if (pkg.command === TcpCommand.SubscriptionDropped) dropped++;
      };
      // Unsampled subscribers only count frames: parsing 500,000 packages a second here would measure this process.
      if (!sampled)
        client.countOnly = (command) => {
          if (command === TcpCommand.StreamEventAppeared) {
            if (measuring) delivered++;
            else warmDelivered++;
          } else if (command === TcpCommand.SubscriptionDropped) dropped++;
        };
      const reply = await client.request(
        TcpCommand.SubscribeToStream,
        encodeMessage('SubscribeToStream', { eventStreamId: '', resolveLinkTos: false }),
      );
      if (reply.command !== TcpCommand.SubscriptionConfirmation)
        throw new Error(`subscribe failed with command ${reply.command}`);
    }),
  );

  // The writer speaks the protocol directly (pipelined WriteEvents, one event each), so the figures
  // measure the server rather than a client library's queueing.
  const writer = await WireClient.connect(port);
  await writer.request(
    TcpCommand.IdentifyClient,
    encodeMessage('IdentifyClient', { version: 1, connectionName: 'bench-writer' }),
  );
  let written = 0;
  let failures = 0;
  const pending = new Set<Promise<unknown>>();
  /** Sends appends paced at RATE for `seconds`; returns how many were sent. */
  const pacedWrites = (seconds: number, measured: boolean) =>
    new Promise<number>((resolve) => {
      const begin = performance.now();
      let sent = 0;
      // Paced: every millisecond-ish tick, send the appends that are due.
      const timer = setInterval(() => {
        const elapsed = (performance.now() - begin) / 1000;
        if (elapsed >= seconds) {
          clearInterval(timer);
          resolve(sent);
          return;
        }
        const due = Math.floor(elapsed * RATE) - sent;
        for (let k = 0; k < due; k++) {
          const t = now();
          const body = encodeMessage('WriteEvents', {
            eventStreamId: stream,
            expectedVersion: -2,
            requireLeader: true,
            events: [
              {
                eventId: guidStringToBytes(crypto.randomUUID()),
                eventType: 'BenchEvent',
                dataContentType: 1,
                metadataContentType: 0,
                data: Buffer.from(JSON.stringify({ t, n: sent, padding: PADDING })),
                metadata: Buffer.alloc(0),
              },
            ],
          });
          // Anonymous, as most writers to ordinary streams are: no per-request credential check.
          const p = writer.request(TcpCommand.WriteEvents, body, undefined, {}).then((reply) => {
            if (
              reply.command === TcpCommand.WriteEventsCompleted &&
              decodeMessage<{ result: number }>('WriteEventsCompleted', reply.body).result === 0
            ) {
              if (measured) appendLatencies.push(now() - t);
            } else failures++;
          });
          pending.add(p);
          void p.finally(() => pending.delete(p));
          sent++;
        }
      }, 1);
    });

  // Warm-up, not measured: the first second under this load includes JIT compilation and buffers growing.
  const warmWritten = await pacedWrites(WARMUP_SECONDS, false);
  await Promise.all(pending);
  const warmStarted = performance.now();
  while (warmDelivered < warmWritten * SUBSCRIBERS && performance.now() - warmStarted < 10_000)
    await new Promise((r) => setTimeout(r, 10));

  measuring = true;
  const serverCpuBefore = cpuSecondsOf(serverPid);
  const serverWritesBefore = writeSyscallsOf(serverPid);
  const benchCpuBefore = process.cpuUsage();
  const started = performance.now();
  written = await pacedWrites(SECONDS, true);
  const writeSeconds = (performance.now() - started) / 1000;
  await Promise.all(pending);
  // Let the last deliveries arrive (bounded; a stalled server shows up as a shortfall, not a hang).
  const expected = written * SUBSCRIBERS;
  const drainStarted = performance.now();
  while (delivered < expected - dropped * written && performance.now() - drainStarted < 10_000)
    await new Promise((r) => setTimeout(r, 10));
  const totalSeconds = (performance.now() - started) / 1000;
  measuring = false;
  const serverCpuSeconds = cpuSecondsOf(serverPid) - serverCpuBefore;
  const serverWrites = writeSyscallsOf(serverPid) - serverWritesBefore;
  const serverCpu = serverCpuSeconds / totalSeconds;
  const benchCpuUsed = process.cpuUsage(benchCpuBefore);
  const benchCpu = (benchCpuUsed.user + benchCpuUsed.system) / 1e6 / totalSeconds;
  writer.close();
  for (const c of clients) c.close();
  if (failures > 0) console.warn(`  ${failures} appends failed`);
  latencies.sort((a, b) => a - b);
  fromCommit.sort((a, b) => a - b);
  appendLatencies.sort((a, b) => a - b);
  return {
    commitP50: percentile(fromCommit, 50),
    commitP99: percentile(fromCommit, 99),
    appendP50: percentile(appendLatencies, 50),
    appendP99: percentile(appendLatencies, 99),
    serverCpu,
    serverCpuMicrosPerDelivery: (serverCpuSeconds * 1e6) / Math.max(1, delivered),
    benchCpu,
    subscribers: SUBSCRIBERS,
    targetRate: RATE,
    written,
    writtenPerSec: written / writeSeconds,
    deliveredPerSec: delivered / totalSeconds,
    expectedDeliveries: expected,
    delivered,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies[latencies.length - 1] ?? NaN,
    dropped,
    frameBytes,
    serverWritesPerDelivery: serverWrites / Math.max(1, delivered),
  };
}

interface Ceiling {
  /** CPU µs per frame written by the bare loop. */
  cpuMicrosPerFrame: number;
  /** Its write system calls per frame. */
  writesPerFrame: number;
}

/** bench/fanout-ceiling.ts in its own process: a bare paced loop writing frames of the delivered size to as many sockets. */
async function fanOutCeiling(frameBytes: number): Promise<Ceiling> {
  const child = spawn(process.execPath, [path.join(import.meta.dirname, 'fanout-ceiling.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      SUBSCRIBERS: String(SUBSCRIBERS),
      RATE: String(RATE),
      SECONDS: String(SECONDS),
      FRAME_BYTES: String(frameBytes),
    },
  });
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`fan-out ceiling exited with ${code}`)));
  });
  const sockets = await Promise.all(
    Array.from(
      { length: SUBSCRIBERS },
      () =>
        new Promise<net.Socket>((resolve) => {
          const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
          socket.on('data', () => {});
        }),
    ),
  );
  const report = await new Promise<{ frames: number; cpuSeconds: number; writes: number }>((resolve) => {
    child.stdout!.on('data', () => {
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line));
    });
  });
  for (const s of sockets) s.destroy();
  child.kill('SIGTERM');
  const frames = Math.max(1, report.frames);
  return { cpuMicrosPerFrame: (report.cpuSeconds * 1e6) / frames, writesPerFrame: report.writes / frames };
}

// ---- main ----

function fmt(n: number, digits = 0): string {
  return Number.isFinite(n)
    ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : 'n/a';
}

async function main(): Promise<void> {
  console.log(
    `event-log subscription benchmark: ${os.cpus().length} cores, node ${process.version}, load ${fmt(os.loadavg()[0], 1)}\n`,
  );
  // The standard projections' links ($ce-, $et-, …: about two per event) reach `$all` subscribers too, which
  // made "delivered" three times "written × subscribers": they are off unless BENCH_RUN_PROJECTIONS says.
  const server = await startServer('homeport-bench-subs-', {
    nodeFlags: (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean),
    args: ['--run-projections', process.env.BENCH_RUN_PROJECTIONS ?? 'none'],
  });
  try {
    // Several runs on the same server: one run's p99 moves with whatever else the machine is doing.
    const runs: { f: FanOutResult; ceiling: Ceiling; load: number }[] = [];
    for (let run = 0; run < RUNS; run++) {
      const f = await fanOut(server.tcpPort, server.child.pid!);
      const ceiling = await fanOutCeiling(f.frameBytes);
      runs.push({ f, ceiling, load: os.loadavg()[0] });
    }
    const f = runs[0].f;
    console.log(
      `1. ${f.subscribers} volatile $all subscribers, one writer paced at ${fmt(f.targetRate)} events/s for ${SECONDS}s, ${RUNS} runs`,
    );
    for (const [i, { f, ceiling, load }] of runs.entries()) {
      console.log(
        `   run ${i + 1}: written ${fmt(f.writtenPerSec)} events/s, delivered ${fmt(f.delivered)} of ${fmt(f.expectedDeliveries)} (dropped subscriptions: ${f.dropped}); latency p50 ${fmt(f.p50, 2)} ms, p99 ${fmt(f.p99, 2)} ms, max ${fmt(f.max, 2)} ms; append round trip p99 ${fmt(f.appendP99, 2)} ms`,
      );
      console.log(
        `          server CPU ${fmt(f.serverCpu * 100)}% of a core, ${fmt(f.serverCpuMicrosPerDelivery, 2)} µs per delivery (appends included); bare loop ${fmt(ceiling.cpuMicrosPerFrame, 2)} µs per ${fmt(f.frameBytes)}-byte frame: ${fmt(f.serverCpuMicrosPerDelivery / ceiling.cpuMicrosPerFrame, 2)}x; load ${fmt(load, 1)}`,
      );
      console.log(
        `          write system calls per delivery: server ${fmt(f.serverWritesPerDelivery, 3)}, bare loop ${fmt(ceiling.writesPerFrame, 3)} per frame`,
      );
    }
    const p99s = runs.map((r) => r.f.p99).sort((a, b) => a - b);
    const ratios = runs.map((r) => r.f.serverCpuMicrosPerDelivery / r.ceiling.cpuMicrosPerFrame).sort((a, b) => a - b);
    const median = (sorted: number[]) => sorted[Math.floor(sorted.length / 2)];
    console.log(
      `   over ${RUNS} runs: delivery p99 median ${fmt(median(p99s), 2)} ms (${fmt(p99s[0], 2)}–${fmt(p99s[p99s.length - 1], 2)}); server CPU per delivery ${fmt(median(ratios), 2)}x the bare loop (${fmt(ratios[0], 2)}–${fmt(ratios[ratios.length - 1], 2)}x)`,
    );
    console.log(
      `   target: CPU <= 1.3x the bare loop (median run) -> ${median(ratios) <= 1.3 ? 'met' : 'NOT met'}; benchmark clients used ${fmt(f.benchCpu * 100)}% of a core in run 1\n`,
    );

    const g = await groupWireConsumers(server.tcpPort);
    const rate = g.acked / g.seconds;
    console.log(
      `2. one persistent group, ${CONSUMERS} consumers (window 500, batched acks), ${fmt(GROUP_EVENTS)} events pre-written`,
    );
    console.log(
      `   acked: ${fmt(g.acked)} in ${fmt(g.seconds, 2)} s = ${fmt(rate)} events/s   target > 20,000/s -> ${rate > 20_000 ? 'met' : 'NOT met'}`,
    );

    const necEvents = Math.min(GROUP_EVENTS, 20_000);
    const n = await groupNodeClientConsumers(server.tcpPort, necEvents);
    console.log(
      `   same with node-eventstore-client (auto-ack, one Ack per event), ${fmt(necEvents)} events: ${fmt(n.acked / n.seconds)} events/s`,
    );
  } finally {
    await stopServer(server);
  }
}

await main();
