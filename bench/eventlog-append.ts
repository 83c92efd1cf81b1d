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
 * (on a 2-core machine the client process takes one core, so no server can be measured above that). Its CPU
 * per acknowledged append is the floor: the same framing, connections and appends in flight, no store.
 * Single-event appends run twice: with the system projections (the default, a link row or more per event)
 * and with `--run-projections none`. Each append row's note splits the server's CPU by thread
 * (eventlog-append/threads.ts) and says server = floor + SQLite (per row × rows per event) + the rest, twice: with
 * the ack server as it runs above (it wakes every few appends) and with the ack server paced to read each socket
 * once per the server's commit interval (as many appends per read and write as the server had). SQLite's CPU per
 * row is measured into a fresh file and, the one the row is judged by, into a file as big as the server's was in
 * its window, with its connection settings and background checkpointer.
 * The SQLite side is in eventlog-append/sqlite-ceiling.ts, the read side in eventlog-append/reads.ts.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { es, percentile, startServer, stopServer } from './support.ts';
import {
  connect,
  makeBatch,
  printTable,
  load,
  reads,
  share,
  type Connection,
  type Row,
} from './eventlog-append/reads.ts';
import {
  serverEventsBefore,
  serverEventsBetween,
  sqliteCeiling,
  sqliteCpuPerRow,
  openReadCeiling,
} from './eventlog-append/sqlite-ceiling.ts';
import { startAckServer } from './eventlog-append/ack-process.ts';
import { GRPC_STATS_ARGS, serverCommitCounter } from './eventlog-append/server-commits.ts';
import { formatThreadSplit, snapshotThreads, threadSplit } from './eventlog-append/threads.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
/** An append window lasts until this many events (at most MAX_WINDOW_SECONDS), so one CPU tick is under 1 µs/event. */
const MIN_EVENTS = 20_000;
const MAX_WINDOW_SECONDS = 20;
/**
 * Longest warm-up before an append scenario's measured window. The window starts once V8's platform threads
 * (compiling the hot path, which they do for several seconds of a fresh server under load) take under 15% of
 * the process's CPU (a share, so a starved process on a loaded machine does not look warm) for two
 * half-seconds in a row, after at least 2 s, or after this many seconds. In steady state they only help
 * the garbage collector: 5-12% of the server's and the ack server's CPU.
 */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 30);
const WARM_PLATFORM_SHARE = 0.15;
const MIN_WARMUP_MS = 2000;
/**
 * Comma-separated subset, e.g. BENCH_ONLY=10x1,1x100,client,reads,ceiling,noproj (default: everything); `floor`
 * runs the client-limit (floor) rows alone, no real server (profiling the ack server).
 */
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',')) : null;
/** Extra node flags for the server process, e.g. BENCH_SERVER_FLAGS=--cpu-prof. */
const SERVER_FLAGS = (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean);
/** Extra `serve` flags for the first server, e.g. BENCH_SERVER_ARGS='--run-projections none' (profiling one setup). */
const SERVER_ARGS = (process.env.BENCH_SERVER_ARGS ?? '').split(' ').filter(Boolean);
const wanted = (name: string) => ONLY === null || ONLY.has(name);

// ---- scenarios ----

/** What an append scenario measured besides the row: commit size, rows per event, CPU by thread. */
interface AppendRow extends Row {
  commitSize?: number;
  /** Rows the server committed per client event in the window (events plus the system projections' links). */
  rowsPerEvent?: number;
  /** Events in the server's log when the window started (the size its indexes had). */
  eventsBefore?: number;
  /** The window's length and the server's commits in it: the group commit's cadence. */
  windowMs?: number;
  commits?: number;
  threads: string;
}

/** Waits (appends running) until V8 has compiled the hot path: see WARMUP_SECONDS. */
async function warmUp(pid: number): Promise<void> {
  const started = performance.now();
  const deadline = started + WARMUP_SECONDS * 1000;
  let before = snapshotThreads(pid);
  let quiet = 0;
  do {
    await new Promise((r) => setTimeout(r, 500));
    const after = snapshotThreads(pid);
    const split = threadSplit(before, after, 1);
    const total = split.reduce((sum, r) => sum + r.user + r.system, 0);
    const platform = split.find((r) => r.thread === 'V8 platform');
    const share = platform && total > 0 ? (platform.user + platform.system) / total : 0;
    quiet = share < WARM_PLATFORM_SHARE ? quiet + 1 : 0;
    if (quiet >= 2 && performance.now() - started >= MIN_WARMUP_MS) return;
    before = after;
  } while (performance.now() < deadline);
}

async function appendScenario(
  port: number,
  connections: number,
  batchSize: number,
  inFlightPerConnection: number,
  measured: { pid: number; dataDir?: string; commits?: () => Promise<number> },
): Promise<AppendRow> {
  const conns = await Promise.all(Array.from({ length: connections }, (_, i) => connect(port, `bench-${i}`)));
  const latencies: number[] = [];
  let events = 0;
  let stop = false;
  const loop = async (conn: Connection, stream: string) => {
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
  const warmSince = performance.now();
  await warmUp(measured.pid);
  const warmedSeconds = (performance.now() - warmSince) / 1000;
  latencies.length = 0;
  events = 0;
  const commitsBefore = await measured.commits?.();
  const started = performance.now();
  const startedAt = Date.now();
  const before = snapshotThreads(measured.pid);
  // At least SECONDS, longer while fewer than MIN_EVENTS came (a loaded machine): /proc counts CPU in 10 ms ticks.
  const windowEnd = performance.now() + MAX_WINDOW_SECONDS * 1000;
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  while (events < MIN_EVENTS && performance.now() < windowEnd) await new Promise((r) => setTimeout(r, 250));
  const count = events;
  const after = snapshotThreads(measured.pid);
  const endedAt = Date.now();
  const commitsAfter = await measured.commits?.();
  const elapsed = (performance.now() - started) / 1000;
  const sorted = latencies.slice().sort((a, b) => a - b);
  stop = true;
  await Promise.all(run);
  for (const c of conns) c.close();
  const committed =
    measured.dataDir && commitsBefore !== undefined && commitsAfter !== undefined
      ? { events: serverEventsBetween(measured.dataDir, startedAt, endedAt), commits: commitsAfter - commitsBefore }
      : null;
  const eventsBefore = measured.dataDir ? serverEventsBefore(measured.dataDir, startedAt) : undefined;
  const cpu = after.process.user + after.process.system - before.process.user - before.process.system;
  return {
    serverCpuUs: (cpu / count) * 1e6,
    threads: `${formatThreadSplit(threadSplit(before, after, count))} (after ${warmedSeconds.toFixed(1)} s of warm-up)`,
    commitSize: committed ? committed.events / committed.commits : undefined,
    rowsPerEvent: committed ? committed.events / count : undefined,
    eventsBefore,
    windowMs: endedAt - startedAt,
    commits: committed?.commits,
    scenario: `append ${connections} conn × ${inFlightPerConnection} in flight, ${batchSize}-event batches`,
    eventsPerSec: count / elapsed,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
  };
}

/** The ack server's CPU per append when it reads each socket once per `paceMs` (as the server does between commits). */
async function pacedFloor(connections: number, inFlight: number, paceMs: number): Promise<number> {
  const ack = await startAckServer(undefined, paceMs);
  try {
    return (await appendScenario(ack.port, connections, 1, inFlight, { pid: ack.child.pid! })).serverCpuUs!;
  } finally {
    ack.child.kill('SIGTERM');
  }
}

type Scenario = readonly [connections: number, batchSize: number, inFlight: number];

/**
 * Runs the append scenarios against a fresh `homeport serve` with `args`; `more` runs on the same server after
 * them (the reads). Single-event rows get SQLite's CPU for the same rows, measured now, and the floor's share.
 */
async function serverAppends(
  scenarios: readonly Scenario[],
  args: readonly string[],
  label: string,
  limits: { clientRows: AppendRow[]; ceiling100: number; ceilingBig: number },
  more?: (server: Awaited<ReturnType<typeof startServer>>) => Promise<Row[]>,
): Promise<Row[]> {
  const server = await startServer('homeport-bench-', { nodeFlags: SERVER_FLAGS, args: [...args, ...GRPC_STATS_ARGS] });
  const counter = serverCommitCounter(server.grpc!.port);
  const rows: Row[] = [];
  try {
    for (const [connections, batchSize, inFlight] of scenarios) {
      const row = await appendScenario(server.tcpPort, connections, batchSize, inFlight, {
        pid: server.child.pid!,
        dataDir: server.dataDir,
        commits: counter.commits,
      });
      const loadNow = load();
      row.scenario += label;
      const client = limits.clientRows.find((r) =>
        r.scenario.includes(`${connections} conn × ${inFlight} in flight, ${batchSize}-`),
      );
      const notes = [
        loadNow,
        share(
          row.eventsPerSec,
          batchSize === 100 ? limits.ceiling100 : limits.ceilingBig,
          batchSize === 100 ? '100-row ceiling' : '5000-row ceiling',
        ),
        client ? share(row.eventsPerSec, client.eventsPerSec, 'client limit') : undefined,
      ];
      if (row.commitSize !== undefined && batchSize === 1) {
        // The bare loop, now: the same machine load as the server just had.
        const perCommit = Math.max(1, Math.round(row.commitSize));
        const streams = connections * inFlight;
        const fresh = await sqliteCpuPerRow(perCommit, Math.max(20 * perCommit, 20_000), streams);
        // As many rows as the server wrote in its window, into a file as big as the server's was when the window
        // began (so through the same sizes), with its settings and checkpointer.
        const serverRows = Math.round(row.eventsPerSec * (row.windowMs! / 1000) * row.rowsPerEvent!);
        const perRow = await sqliteCpuPerRow(perCommit, Math.max(serverRows, 20 * perCommit, 20_000), streams, {
          prefillRows: row.eventsBefore ?? 0,
          serverTuning: true,
        });
        row.sqliteCpuUs = perRow * row.rowsPerEvent!;
        const server = row.serverCpuUs!;
        notes.push(
          `server CPU ${(server / row.sqliteCpuUs).toFixed(1)}× SQLite's (${perRow.toFixed(1)} µs/row × ${row.rowsPerEvent!.toFixed(2)} rows/event at ${perCommit} rows/commit, ${serverRows} rows into ${row.eventsBefore} events as the server's file did in its window; ${fresh.toFixed(1)} µs/row into a fresh file)`,
        );
        if (client?.serverCpuUs !== undefined) {
          const floor = client.serverCpuUs;
          notes.push(
            `server = floor ${floor.toFixed(1)} + SQLite ${row.sqliteCpuUs.toFixed(1)} + rest ${(server - floor - row.sqliteCpuUs).toFixed(1)} µs`,
          );
        }
        if (wanted('client') && row.commits) {
          // The floor again, reading at the server's cadence: as many appends per read and per write as it had.
          const paceMs = Math.max(1, Math.round(row.windowMs! / row.commits));
          const paced = await pacedFloor(connections, inFlight, paceMs);
          notes.push(
            `floor at the server's cadence (a read per socket every ${paceMs} ms): ${paced.toFixed(1)} µs, so server = floor ${paced.toFixed(1)} + SQLite ${row.sqliteCpuUs.toFixed(1)} + rest ${(server - paced - row.sqliteCpuUs).toFixed(1)} µs`,
          );
        }
      } else if (row.commitSize !== undefined) notes.push(`${Math.round(row.commitSize)} events/commit`);
      notes.push(`by thread, user+system µs/event: ${row.threads}`);
      row.note = notes.filter(Boolean).join(', ');
      rows.push(row);
    }
    if (more) rows.push(...(await more(server)));
  } finally {
    counter.close();
    await stopServer(server);
  }
  return rows;
}

async function main(): Promise<void> {
  console.log(
    `event-log benchmark: ${os.cpus().length} cores, node ${process.version}, ${SECONDS}s per append scenario, ${load()}\n`,
  );

  const ceilings = wanted('ceiling');
  const ceiling100 = ceilings ? sqliteCeiling(100, 50_000) : NaN;
  const ceilingBig = ceilings ? sqliteCeiling(5000, 100_000) : NaN;
  const readCeiling = ceilings && wanted('reads') ? openReadCeiling(100_000) : null;
  const firstReadCeiling = readCeiling?.measure() ?? { perSecond: NaN, cpuUs: NaN };

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

  const clientLimits: AppendRow[] = [];
  if (wanted('client')) {
    const ack = await startAckServer();
    try {
      for (const [connections, batchSize, inFlight] of scenarios) {
        const row = await appendScenario(ack.port, connections, batchSize, inFlight, { pid: ack.child.pid! });
        row.scenario = `client limit / floor: ${row.scenario.replace('append ', '')} (server acks, stores nothing)`;
        row.note = `${load()}, by thread: ${row.threads}`;
        clientLimits.push(row);
      }
    } finally {
      ack.child.kill('SIGTERM');
    }
  }

  if (ONLY?.has('floor')) {
    printTable(clientLimits);
    return;
  }
  const limits = { clientRows: clientLimits, ceiling100, ceilingBig };
  const readLimits: Row[] = [];
  const rows = await serverAppends(scenarios, SERVER_ARGS, '', limits, (server) =>
    wanted('reads') ? reads(server, readCeiling, readLimits, wanted('client')) : Promise.resolve([]),
  );
  const singles = scenarios.filter(([, batchSize]) => batchSize === 1);
  if (wanted('noproj') && singles.length > 0)
    rows.push(...(await serverAppends(singles, ['--run-projections', 'none'], ' (projections off)', limits)));

  rows.push(...clientLimits, ...readLimits);
  if (ceilings) {
    rows.push({ scenario: 'ceiling: SQLite insert, 100 rows per commit (FULL)', eventsPerSec: ceiling100 });
    rows.push({ scenario: 'ceiling: SQLite insert, 5000 rows per commit (FULL)', eventsPerSec: ceilingBig });
    rows.push({
      scenario: 'ceiling: SQLite select by stream, 1000-row pages (at the start; each read row has its own)',
      eventsPerSec: firstReadCeiling.perSecond,
      sqliteCpuUs: firstReadCeiling.cpuUs,
    });
  }
  readCeiling?.close();
  printTable(rows);
}

await main();
