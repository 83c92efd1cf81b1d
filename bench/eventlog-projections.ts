/**
 * Projections under load, through the real protocols against `homeport serve` in its own process:
 *
 *   node bench/eventlog-projections.ts          (or: npm run bench:projections)
 *   BENCH_SECONDS=10 node bench/eventlog-projections.ts
 *
 * 1. The standard projections beside appends: WRITERS connections append 10-event batches to `bench-*`
 *    streams for BENCH_SECONDS while the lag of `$ce-bench` (events appended but not linked yet) is sampled;
 *    then the time until every event is linked.
 * 2. One JavaScript projection (counting the `bench` category through `$ce-bench`, in its sandbox) created
 *    over the HTTP projections API once those events are in: its events/s until its state has them all.
 * 3. Beside it, the raw read rate of the same events: `$ce-bench` with links resolved, and `$all`, in
 *    4,096-event pages over TCP.
 * Beside the rates, the server process's CPU time per event (user and system, all its threads) and the load
 * average: on a shared machine the wall-clock rates are loaded, the CPU per event much less so.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { startServeProcess } from '../server/testing/serve-process.ts';
import { tempDataDir } from '../server/eventlog/projections/testing/index.ts';
import { connectClient, es } from './support.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WRITERS = Number(process.env.BENCH_WRITERS ?? 10);
const BATCH = 10;
const DATA = { payload: 'x'.repeat(230), n: 0 };

function httpCall(port: number, method: string, path: string, body = ''): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** WRITERS connections appending 10-event batches for SECONDS; `sample` runs every 200 ms meanwhile. */
// The client connection is untyped (CommonJS).
async function appendFor(
  conn: { appendToStream(stream: string, expected: unknown, events: unknown[]): Promise<unknown> },
  sample: (appended: number) => Promise<void>,
) {
  let appended = 0;
  let stop = false;
  const started = performance.now();
  const writers = Array.from({ length: WRITERS }, async (_, w) => {
    for (let i = 0; !stop; i++) {
      const batch = Array.from({ length: BATCH }, () =>
        es.createJsonEventData(crypto.randomUUID(), { ...DATA, n: i }, null, 'BenchEvent'),
      );
      await conn.appendToStream(`bench-${w}-${i % 50}`, es.expectedVersion.any, batch);
      appended += BATCH;
    }
  });
  while (performance.now() - started < SECONDS * 1000) {
    await new Promise((r) => setTimeout(r, 200));
    await sample(appended);
  }
  stop = true;
  await Promise.all(writers);
  return { appended, seconds: (performance.now() - started) / 1000 };
}

/** The same appends against a server running no projections, for comparison. */
async function baselineRate(): Promise<{ rate: number; cpuPerEvent: number }> {
  const dataDir = tempDataDir();
  const server = await startServeProcess({ dataDir, args: ['--run-projections', 'none'] });
  const conn = await connectClient(server.tcpPort, 'bench-baseline', { maxConcurrentItems: 5000, maxQueueSize: 50000 });
  try {
    const cpuBefore = server.cpuSeconds();
    const { appended, seconds } = await appendFor(conn, async () => {});
    return { rate: appended / seconds, cpuPerEvent: (server.cpuSeconds() - cpuBefore) / appended };
  } finally {
    conn.close();
    await server.stop('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const dataDir = tempDataDir();
  const server = await startServeProcess({ dataDir, args: ['--grpc-port', '0', '--grpc-insecure'] });
  const conn = await connectClient(server.tcpPort, 'bench-projections', {
    maxConcurrentItems: 5000,
    maxQueueSize: 50000,
  });
  try {
    const linked = async () => {
      const last = await conn.readStreamEventsBackward('$ce-bench', -1, 1, false);
      return last.events.length === 0 ? 0 : last.events[0].event.eventNumber.toNumber() + 1;
    };

    // 1. appends with the standard projections running
    let maxLag = 0;
    const lags: number[] = [];
    const appendCpuBefore = server.cpuSeconds();
    const { appended, seconds: appendSeconds } = await appendFor(conn, async (count) => {
      const lag = count - (await linked());
      lags.push(lag);
      maxLag = Math.max(maxLag, lag);
    });
    const stoppedAt = performance.now();
    while ((await linked()) < appended) await new Promise((r) => setTimeout(r, 20));
    const catchUpMs = performance.now() - stoppedAt;
    const appendCpu = server.cpuSeconds() - appendCpuBefore;
    const total = appended;

    // 2. one JavaScript projection over those events
    const query = `fromCategory('bench').when({ $init: function () { return { n: 0 }; }, $any: function (s) { s.n++; } })`;
    const projectionCpuBefore = server.cpuSeconds();
    const createdAt = performance.now();
    const created = await httpCall(
      server.grpc!.port,
      'POST',
      '/projections/continuous?name=bench-count&type=JS',
      query,
    );
    if (created.status !== 201) throw new Error(`create: ${created.status} ${created.body}`);
    for (;;) {
      const state = await httpCall(server.grpc!.port, 'GET', '/projection/bench-count/state');
      if (state.body && JSON.parse(state.body).n >= total) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const projectionSeconds = (performance.now() - createdAt) / 1000;
    const projectionCpu = server.cpuSeconds() - projectionCpuBefore;

    // 3. raw reads of the same events
    const readStart = performance.now();
    let read = 0;
    for (let from = 0; ; ) {
      const slice = await conn.readStreamEventsForward('$ce-bench', from, 4096, true);
      read += slice.events.length;
      if (slice.isEndOfStream) break;
      from = slice.nextEventNumber.toNumber();
    }
    const linkReadSeconds = (performance.now() - readStart) / 1000;
    const allStart = performance.now();
    let allRead = 0;
    for (let pos = es.positions.start; ; ) {
      const slice = await conn.readAllEventsForward(pos, 4096, false);
      allRead += slice.events.length;
      if (slice.isEndOfStream || slice.events.length === 0) break;
      pos = slice.nextPosition;
    }
    const allReadSeconds = (performance.now() - allStart) / 1000;

    const rate = (n: number, s: number) => Math.round(n / s).toLocaleString('en');
    console.log(
      `events appended: ${total.toLocaleString('en')} in ${appendSeconds.toFixed(1)} s by ${WRITERS} connections (${BATCH}-event batches)`,
    );
    console.log(`| measure | value |`);
    console.log(`|---|---|`);
    console.log(`| appends with the standard projections running | ${rate(total, appendSeconds)} events/s |`);
    const baseline = await baselineRate();
    const µs = (seconds: number, events: number) => `${Math.round((seconds * 1e6) / events)} µs`;
    console.log(
      `| the same appends with --run-projections none | ${Math.round(baseline.rate).toLocaleString('en')} events/s |`,
    );
    console.log(
      `| server CPU per appended event, linked (until every link is written) / none | ${µs(appendCpu, total)} / ${µs(baseline.cpuPerEvent, 1)} |`,
    );
    console.log(
      `| $ce-bench lag while appending (max / last sample) | ${maxLag.toLocaleString('en')} / ${(lags.at(-1) ?? 0).toLocaleString('en')} events |`,
    );
    console.log(`| time to link the rest once appends stopped | ${Math.round(catchUpMs)} ms |`);
    console.log(
      `| one JavaScript projection (fromCategory, sandboxed), ${total.toLocaleString('en')} events | ${rate(total, projectionSeconds)} events/s |`,
    );
    console.log(`| server CPU per event, the JavaScript projection | ${µs(projectionCpu, total)} |`);
    console.log(`| raw read of $ce-bench, links resolved | ${rate(read, linkReadSeconds)} events/s |`);
    console.log(
      `| raw read of $all | ${rate(allRead, allReadSeconds)} events/s (${allRead.toLocaleString('en')} records incl. links) |`,
    );
    console.log(
      `| load average (1, 5, 15 min) at the end | ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(', ')} on ${os.cpus().length} cores |`,
    );
  } finally {
    conn.close();
    await server.stop('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
