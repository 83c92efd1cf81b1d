/**
 * Scenario 1 of the subscription benchmark (bench/eventlog-subscribe.ts): volatile `$all` subscribers behind one
 * paced writer, and the bare loop (bench/fanout-ceiling.ts) writing same-size frames to as many sockets.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { TcpCommand, decodeMessage, encodeMessage, guidStringToBytes } from '../../server/eventlog/index.ts';
import { writeSyscallsOf } from '../proc-io.ts';
import { cpuSecondsOf, percentile } from '../support.ts';
import { PADDING } from './persistent-group.ts';
import { WireClient } from './wire-client.ts';

export const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
export const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 100);
/** Seconds of paced writes before the measured window (not counted). */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 1);
export const RATE = Number(process.env.BENCH_RATE ?? 5_000);
const LATENCY_SAMPLE = Number(process.env.BENCH_LATENCY_SUBSCRIBERS ?? 2);

const now = () => performance.timeOrigin + performance.now();

export interface FanOutResult {
  commitP50: number;
  commitP99: number;
  appendP50: number;
  appendP99: number;
  serverCpu: number;
  /** Server CPU seconds over the measured window (appends sent, then every delivery drained). */
  serverCpuSeconds: number;
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
  /** The server's commits while the measured appends were written (its es-writer-commits). */
  commits: number;
  /** How long the measured appends took to send (the pace: RATE × this = written). */
  writeSeconds: number;
}

/**
 * One fan-out run on the server at `port` (process `serverPid`); `commits` reads the server's commit counter
 * (es-writer-commits), so the result tells the measured window's rows per commit.
 */
export async function fanOut(
  port: number,
  serverPid: number,
  commits: () => Promise<number>,
  subscribers = SUBSCRIBERS,
): Promise<FanOutResult> {
  const stream = `bench-fanout-${crypto.randomUUID().slice(0, 8)}`;
  const clients = await Promise.all(Array.from({ length: subscribers }, () => WireClient.connect(port)));
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
  while (warmDelivered < warmWritten * subscribers && performance.now() - warmStarted < 10_000)
    await new Promise((r) => setTimeout(r, 10));

  measuring = true;
  const commitsBefore = await commits();
  const serverCpuBefore = cpuSecondsOf(serverPid);
  const serverWritesBefore = writeSyscallsOf(serverPid);
  const benchCpuBefore = process.cpuUsage();
  const started = performance.now();
  written = await pacedWrites(SECONDS, true);
  const writeSeconds = (performance.now() - started) / 1000;
  await Promise.all(pending);
  const commitsMade = (await commits()) - commitsBefore;
  // Let the last deliveries arrive (bounded; a stalled server shows up as a shortfall, not a hang).
  const expected = written * subscribers;
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
    serverCpuSeconds,
    serverCpuMicrosPerDelivery: (serverCpuSeconds * 1e6) / Math.max(1, delivered),
    benchCpu,
    subscribers,
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
    commits: commitsMade,
    writeSeconds,
  };
}

export interface Ceiling {
  /** CPU µs per frame written by the bare loop. */
  cpuMicrosPerFrame: number;
  /** Its write system calls per frame. */
  writesPerFrame: number;
}

/** bench/fanout-ceiling.ts in its own process: a bare paced loop writing frames of the delivered size to as many sockets. */
export async function fanOutCeiling(frameBytes: number, subscribers = SUBSCRIBERS): Promise<Ceiling> {
  const child = spawn(process.execPath, [path.join(import.meta.dirname, '..', 'fanout-ceiling.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      SUBSCRIBERS: String(subscribers),
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
      { length: subscribers },
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
