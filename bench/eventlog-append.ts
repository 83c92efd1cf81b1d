/**
 * Event-log throughput through the real TCP protocol, next to what SQLite itself can do on this machine.
 *
 *   node bench/eventlog-append.ts            (or: npm run bench:eventlog)
 *   BENCH_SECONDS=5 node bench/eventlog-append.ts
 *
 * Appends go through node-eventstore-client 23.10.1 to `homeport serve` running as a separate process
 * (so the server and the client each get a core), with 1, 10 and 50 connections and many appends in
 * flight per connection; single-event and 100-event batches. Reads: stream forward/backward and $all
 * forward. The "ceiling" is the same rows inserted (and selected) straight into a SQLite file with the
 * event log's schema, WAL and synchronous=FULL, no server in between. The client's own limit is measured
 * too: the same scenarios against bench/ack-server.ts, which acknowledges every write without storing it
 * (on a 2-core machine the client process takes one core, so no server can be measured above that).
 * The SQLite side is in eventlog-append/sqlite-ceiling.ts.
 */
import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { spawn, type ChildProcess } from 'node:child_process';
import type { ServeProcess } from '../server/testing/serve-process.ts';
import { connectClient, es, percentile, startServer, stopServer } from './support.ts';
import {
  DATA,
  METADATA,
  serverCommits,
  sqliteCeiling,
  sqliteCpuPerRow,
  sqliteReadCeiling,
} from './eventlog-append/sqlite-ceiling.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
/** Comma-separated subset, e.g. BENCH_ONLY=10x1,1x100,client,reads,ceiling (default: everything). */
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',')) : null;
/** Extra node flags for the server process, e.g. BENCH_SERVER_FLAGS=--cpu-prof. */
const SERVER_FLAGS = (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean);
const wanted = (name: string) => ONLY === null || ONLY.has(name);
interface Row {
  scenario: string;
  eventsPerSec: number;
  p50?: number;
  p99?: number;
  /** The server process's CPU time per appended event in the measured window, µs. */
  serverCpuUs?: number;
  /** SQLite's own CPU per row, inserting the same rows at the server's commit size in a bare loop, µs. */
  sqliteCpuUs?: number;
  note?: string;
}

// ---- the client's own limit ----

/** Starts bench/ack-server.ts in its own process (as the real server runs in its own). */
function startAckServer(upstreamPort?: number): Promise<{ child: ChildProcess; port: number }> {
  const env = upstreamPort === undefined ? process.env : { ...process.env, UPSTREAM: String(upstreamPort) };
  const child = spawn(process.execPath, [path.join(import.meta.dirname, 'ack-server.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env,
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on \S+:(\d+)/.exec(out);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.once('exit', (code) => reject(new Error(`ack server exited with ${code}: ${out}`)));
  });
}

// ---- the client ----

const connect = (port: number, name: string) =>
  connectClient(port, name, { maxConcurrentItems: 10_000, maxQueueSize: 20_000 });

function makeBatch(size: number) {
  return Array.from({ length: size }, () =>
    es.createEventData(crypto.randomUUID(), 'BenchEvent', true, DATA, METADATA),
  );
}

// ---- scenarios ----

async function appendScenario(
  port: number,
  connections: number,
  batchSize: number,
  inFlightPerConnection: number,
  server?: ServeProcess,
): Promise<Row & { commitSize?: number }> {
  const conns = await Promise.all(Array.from({ length: connections }, (_, i) => connect(port, `bench-${i}`)));
  const latencies: number[] = [];
  let events = 0;
  let stop = false;
  const loop = async (conn: ReturnType<typeof connect> extends Promise<infer C> ? C : never, stream: string) => {
    while (!stop) {
      const batch = makeBatch(batchSize);
      const t0 = performance.now();
      await conn.appendToStream(stream, es.expectedVersion.any, batch);
      latencies.push(performance.now() - t0);
      events += batchSize;
    }
  };
  // Warm-up, then the measured window.
  const run = conns.flatMap((conn, c) =>
    Array.from({ length: inFlightPerConnection }, (_, i) => loop(conn, `bench-${connections}x${batchSize}-${c}-${i}`)),
  );
  await new Promise((r) => setTimeout(r, 500));
  latencies.length = 0;
  events = 0;
  const started = performance.now();
  const startedAt = Date.now();
  const cpuBefore = server?.cpuSeconds();
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  const measured = events;
  const cpuUsed = server ? server.cpuSeconds() - cpuBefore! : NaN;
  const endedAt = Date.now();
  const elapsed = (performance.now() - started) / 1000;
  const sorted = latencies.slice().sort((a, b) => a - b);
  stop = true;
  await Promise.all(run);
  for (const c of conns) c.close();
  const committed = server ? serverCommits(server.dataDir, startedAt, endedAt) : null;
  return {
    serverCpuUs: (cpuUsed / measured) * 1e6,
    commitSize: committed ? committed.events / committed.commits : undefined,
    scenario: `append ${connections} conn × ${inFlightPerConnection} in flight, ${batchSize}-event batches`,
    eventsPerSec: measured / elapsed,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
  };
}

async function seedStream(port: number, stream: string, count: number): Promise<void> {
  const conn = await connect(port, 'seed');
  const pending: Promise<unknown>[] = [];
  for (let n = 0; n < count; n += 500)
    pending.push(conn.appendToStream(stream, es.expectedVersion.any, makeBatch(Math.min(500, count - n))));
  await Promise.all(pending);
  conn.close();
}

/**
 * Waits until the server has caught up with what the seed started (system projections index the new events),
 * so the read rows' CPU is the reads' own: under 5% of a core over a quarter second, or 60 s at most.
 */
async function settled(server: ServeProcess): Promise<void> {
  const deadline = performance.now() + 60_000;
  while (performance.now() < deadline) {
    const before = server.cpuSeconds();
    await new Promise((r) => setTimeout(r, 250));
    if (server.cpuSeconds() - before < 0.0125) return;
  }
}

async function readScenario(
  port: number,
  label: string,
  readers: number,
  read: (conn: Awaited<ReturnType<typeof connect>>, reader: number) => Promise<number>,
  server?: ServeProcess,
): Promise<Row> {
  const conns = await Promise.all(Array.from({ length: readers }, (_, i) => connect(port, `reader-${i}`)));
  const started = performance.now();
  const cpuBefore = server?.cpuSeconds();
  const counts = await Promise.all(conns.map((c, i) => read(c, i)));
  const cpuUsed = server ? server.cpuSeconds() - cpuBefore! : NaN;
  const elapsed = (performance.now() - started) / 1000;
  for (const c of conns) c.close();
  const events = counts.reduce((a, b) => a + b, 0);
  return { scenario: label, eventsPerSec: events / elapsed, serverCpuUs: (cpuUsed / events) * 1e6 };
}

async function readStreamAll(
  conn: Awaited<ReturnType<typeof connect>>,
  stream: string,
  forward: boolean,
  page: number,
): Promise<number> {
  let read = 0;
  let from = forward ? 0 : -1;
  for (;;) {
    const slice = forward
      ? await conn.readStreamEventsForward(stream, from, page, false)
      : await conn.readStreamEventsBackward(stream, from, page, false);
    read += slice.events.length;
    if (slice.isEndOfStream) return read;
    from = slice.nextEventNumber.toNumber();
  }
}

async function readAllLog(conn: Awaited<ReturnType<typeof connect>>, page: number, limit: number): Promise<number> {
  let read = 0;
  let position = es.positions.start;
  while (read < limit) {
    const slice = await conn.readAllEventsForward(position, page, false);
    read += slice.events.length;
    if (slice.isEndOfStream) break;
    position = slice.nextPosition;
  }
  return read;
}

function formatRate(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

function printTable(rows: Row[]): void {
  const headers = ['scenario', 'events/s', 'p50 ms', 'p99 ms', 'server CPU µs/ev', 'SQLite CPU µs/row', 'note'];
  const micros = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? '' : v.toFixed(1));
  const cells = rows.map((r) => [
    r.scenario,
    formatRate(r.eventsPerSec),
    r.p50 === undefined ? '' : r.p50.toFixed(2),
    r.p99 === undefined ? '' : r.p99.toFixed(2),
    micros(r.serverCpuUs),
    micros(r.sqliteCpuUs),
    r.note ?? '',
  ]);
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) =>
    c.map((v, i) => (i === 0 || i === headers.length - 1 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join('  ');
  console.log(line(headers));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const c of cells) console.log(line(c));
}

async function main(): Promise<void> {
  console.log(
    `event-log benchmark: ${os.cpus().length} cores, node ${process.version}, ${SECONDS}s per append scenario\n`,
  );

  const ceilings = wanted('ceiling');
  const ceiling100 = ceilings ? sqliteCeiling(100, 50_000) : NaN;
  const ceilingBig = ceilings ? sqliteCeiling(5000, 100_000) : NaN;
  const readCeiling = ceilings ? sqliteReadCeiling(100_000) : { perSecond: NaN, cpuUs: NaN };
  const ceilingRead = readCeiling.perSecond;
  const share = (rate: number, ceiling: number, what: string) =>
    Number.isNaN(ceiling) ? undefined : `${Math.round((rate / ceiling) * 100)}% of the ${what}`;

  const scenarios = (
    [
      [1, 1, 64],
      [10, 1, 64],
      [50, 1, 16],
      [1, 100, 8],
      [10, 100, 4],
      [50, 100, 2],
    ] as const
  ).filter(([connections, batchSize]) => wanted(`${connections}x${batchSize}`));

  const clientLimits: Row[] = [];
  if (wanted('client')) {
    const ack = await startAckServer();
    try {
      for (const [connections, batchSize, inFlight] of scenarios) {
        const row = await appendScenario(ack.port, connections, batchSize, inFlight);
        row.scenario = `client limit: ${row.scenario.replace('append ', '')} (server acks, stores nothing)`;
        clientLimits.push(row);
      }
    } finally {
      ack.child.kill('SIGTERM');
    }
  }

  const server = await startServer('homeport-bench-', { nodeFlags: SERVER_FLAGS });
  const rows: Row[] = [];
  try {
    for (const [i, [connections, batchSize, inFlight]] of scenarios.entries()) {
      const row = await appendScenario(server.tcpPort, connections, batchSize, inFlight, server);
      if (row.commitSize !== undefined && batchSize === 1) {
        // The bare loop, now: the same machine load as the server just had.
        const perCommit = Math.max(1, Math.round(row.commitSize));
        row.sqliteCpuUs = sqliteCpuPerRow(perCommit, Math.max(20 * perCommit, 20_000), connections * inFlight);
      }
      const notes = [
        share(
          row.eventsPerSec,
          batchSize === 100 ? ceiling100 : ceilingBig,
          batchSize === 100 ? '100-row ceiling' : '5000-row ceiling',
        ),
      ];
      if (clientLimits[i]) notes.push(share(row.eventsPerSec, clientLimits[i].eventsPerSec, 'client limit'));
      if (row.sqliteCpuUs !== undefined)
        notes.push(
          `server CPU ${(row.serverCpuUs! / row.sqliteCpuUs).toFixed(1)}× SQLite's at ${Math.round(row.commitSize!)} rows/commit`,
        );
      else if (row.commitSize !== undefined) notes.push(`${Math.round(row.commitSize)} events/commit`);
      row.note = notes.filter(Boolean).join(', ');
      rows.push(row);
    }

    if (wanted('reads')) {
      const readStream = 'bench-read';
      await seedStream(server.tcpPort, readStream, 50_000);
      await settled(server);
      const reads = [
        await readScenario(
          server.tcpPort,
          'read stream forward, 4 readers, 1000/page',
          4,
          (c) => readStreamAll(c, readStream, true, 1000),
          server,
        ),
        await readScenario(
          server.tcpPort,
          'read stream backward, 4 readers, 1000/page',
          4,
          (c) => readStreamAll(c, readStream, false, 1000),
          server,
        ),
        await readScenario(
          server.tcpPort,
          'read $all forward, 4 readers, 1000/page',
          4,
          (c) => readAllLog(c, 1000, 100_000),
          server,
        ),
      ];
      if (wanted('client')) {
        // The client's own read limit: the same pages answered by a proxy that replays the server's answers.
        const proxy = await startAckServer(server.tcpPort);
        try {
          const replayed = async () => [
            await readScenario(proxy.port, 'read stream forward, 4 readers, 1000/page', 4, (c) =>
              readStreamAll(c, readStream, true, 1000),
            ),
            await readScenario(proxy.port, 'read stream backward, 4 readers, 1000/page', 4, (c) =>
              readStreamAll(c, readStream, false, 1000),
            ),
            await readScenario(proxy.port, 'read $all forward, 4 readers, 1000/page', 4, (c) =>
              readAllLog(c, 1000, 100_000),
            ),
          ];
          await replayed(); // fills the proxy's answers
          for (const [i, limit] of (await replayed()).entries()) {
            reads[i].note = [
              share(reads[i].eventsPerSec, ceilingRead, 'read ceiling'),
              share(reads[i].eventsPerSec, limit.eventsPerSec, 'client limit'),
            ]
              .filter(Boolean)
              .join(', ');
            limit.scenario = `client limit: ${limit.scenario.replace('read ', 'reading ')} (answers replayed)`;
            clientLimits.push(limit);
          }
        } finally {
          proxy.child.kill('SIGTERM');
        }
      } else for (const r of reads) r.note = share(r.eventsPerSec, ceilingRead, 'read ceiling');
      for (const r of reads)
        if (!Number.isNaN(readCeiling.cpuUs))
          r.note = [r.note, `server CPU ${(r.serverCpuUs! / readCeiling.cpuUs).toFixed(1)}× SQLite's select`]
            .filter(Boolean)
            .join(', ');
      rows.push(...reads);
    }
  } finally {
    await stopServer(server);
  }

  rows.push(...clientLimits);
  if (ceilings) {
    rows.push({ scenario: 'ceiling: SQLite insert, 100 rows per commit (FULL)', eventsPerSec: ceiling100 });
    rows.push({ scenario: 'ceiling: SQLite insert, 5000 rows per commit (FULL)', eventsPerSec: ceilingBig });
    rows.push({
      scenario: 'ceiling: SQLite select by stream, 1000-row pages',
      eventsPerSec: ceilingRead,
      sqliteCpuUs: readCeiling.cpuUs,
    });
  }
  printTable(rows);
}

await main();
