/**
 * One run of the subscription benchmark's fan-out row with its limits measured beside it, and their report.
 *
 * Measured per run, in this order: (1) the server at SUBSCRIBERS volatile `$all` subscribers behind the paced
 * writer; (2) the bare fan-out loop (bench/fanout-ceiling.ts) writing same-size frames to as many sockets;
 * (3) the same server at one subscriber and the same pace: its CPU per event is the appends' share (its one
 * delivery included); (4) a bare better-sqlite3 loop committing run (1)'s commit shape (rows per commit from the
 * server's es-writer-commits, commits per second, one stream, the bench's rows, WAL, synchronous=FULL, the server's
 * connection tuning and background checkpointer, a file prefilled to the server's event count; half the run's
 * events at its pace).
 * (5) the same bare loop in run (3)'s commit shape, so the one-subscriber server stands beside SQLite alone.
 * Once per invocation, before the runs: (6) the append's protocol floor, bench/ack-server.ts answering the same
 * paced writer (read the frames, decode each WriteEvents, encode and write its WriteEventsCompleted; no store).
 * Derived: the composite floor per delivery = (2) + (4) / SUBSCRIBERS: what the kernel's socket writes and SQLite's
 * durable commits cost with nothing of the server around them; and the same + (6) / SUBSCRIBERS, the protocol's
 * minimum per append added. The latter counts each writer tick's wake-up three times (three paced processes where
 * the server is one), so it overstates the floor a little: both are printed.
 */
import os from 'node:os';
import { startAckServer } from '../eventlog-append/ack-process.ts';
import { type CeilingState, sqliteCpuPerRow, serverEventsBefore } from '../eventlog-append/sqlite-ceiling.ts';
import type { ServeProcess } from '../../server/testing/serve-process.ts';
import { type Ceiling, type FanOutResult, fanOut, fanOutCeiling, RATE, SECONDS, SUBSCRIBERS } from './fan-out.ts';
import { fmt } from './format.ts';
import { PADDING } from './persistent-group.ts';

export interface RunFigures {
  f: FanOutResult;
  ceiling: Ceiling;
  /** The same server at one subscriber. */
  one: FanOutResult;
  /** The bare better-sqlite3 loop's CPU µs per event in run (1)'s commit shape. */
  sqliteMicrosPerEvent: number;
  /** The same in the one-subscriber run's commit shape. */
  sqliteOneMicrosPerEvent: number;
  rowsPerCommit: number;
  /** Load average beside each of the four measures. */
  loads: number[];
}

/** The bench writer's event data, as large as the server's rows (a time, a counter, the padding). */
const SAMPLE_DATA = Buffer.from(JSON.stringify({ t: Date.now() + 0.123, n: 12_345, padding: PADDING }));

/**
 * The bare better-sqlite3 loop in a fan-out run's commit shape, into a file as full as the server's: CPU µs per
 * event. Half the run's events, at its pace (half its time): the figure is a per-event one.
 */
function bareSqlite(server: ServeProcess, run: FanOutResult): Promise<number> {
  const state: CeilingState = { prefillRows: serverEventsBefore(server.dataDir, Date.now() + 1), serverTuning: true };
  return sqliteCpuPerRow(run.written / Math.max(1, run.commits), Math.ceil(run.written / 2), 1, state, {
    data: SAMPLE_DATA,
    metadata: Buffer.alloc(0),
    commitsPerSecond: run.commits / run.writeSeconds,
  });
}

/** The append's protocol floor: the ack server's CPU µs per append behind the same paced writer (no subscriber). */
export async function ackFloor(): Promise<number> {
  const { child, port } = await startAckServer();
  try {
    const run = await fanOut(port, child.pid!, () => Promise.resolve(0), 0);
    return (run.serverCpuSeconds * 1e6) / Math.max(1, run.written);
  } finally {
    child.kill('SIGTERM');
  }
}

export async function measureRun(server: ServeProcess, commits: () => Promise<number>): Promise<RunFigures> {
  const pid = server.child.pid!;
  const loads: number[] = [];
  const f = await fanOut(server.tcpPort, pid, commits, SUBSCRIBERS);
  loads.push(os.loadavg()[0]);
  const ceiling = await fanOutCeiling(f.frameBytes, SUBSCRIBERS);
  loads.push(os.loadavg()[0]);
  const one = await fanOut(server.tcpPort, pid, commits, 1);
  loads.push(os.loadavg()[0]);
  const rowsPerCommit = f.written / Math.max(1, f.commits);
  const sqliteMicrosPerEvent = await bareSqlite(server, f);
  loads.push(os.loadavg()[0]);
  const sqliteOneMicrosPerEvent = await bareSqlite(server, one);
  loads.push(os.loadavg()[0]);
  return { f, ceiling, one, sqliteMicrosPerEvent, sqliteOneMicrosPerEvent, rowsPerCommit, loads };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const range = (values: number[], digits: number) =>
  `median ${fmt(median(values), digits)} (${fmt(Math.min(...values), digits)}–${fmt(Math.max(...values), digits)})`;

/** The writer's appends per 1 ms tick: what a commit holds when the server keeps up. */
const PER_TICK = RATE / 1000;

/**
 * Whether the server kept up: the writer kept its pace (95 % of RATE) and a commit held at most 4 ticks' appends.
 * When this machine's load starves the server or the benchmark's own process, the server gets its appends in
 * bursts, batches hundreds per commit and per socket write, and costs less per delivery than in the steady state
 * the row is about (with seconds of latency); such runs are printed but left out of the verdict.
 */
const keptUp = (r: RunFigures) => r.f.writtenPerSec >= 0.95 * RATE && r.rowsPerCommit <= 4 * PER_TICK;

/** Derived per-delivery figures of one run, beside the invocation's ack floor (µs per append). */
function derived(r: RunFigures, ackMicros: number) {
  const n = r.f.subscribers;
  const server = r.f.serverCpuMicrosPerDelivery;
  const appendsShare = r.one.serverCpuMicrosPerDelivery / n;
  const sqlitePerDelivery = r.sqliteMicrosPerEvent / n;
  const floor = r.ceiling.cpuMicrosPerFrame + sqlitePerDelivery;
  const floorWithAck = floor + ackMicros / n;
  return {
    server,
    appendsShare,
    sqlitePerDelivery,
    floor,
    floorWithAck,
    toBare: server / r.ceiling.cpuMicrosPerFrame,
    toFloor: server / floor,
    toFloorWithAck: server / floorWithAck,
  };
}

export function printRuns(runs: RunFigures[], ackMicros: number): void {
  const n = runs[0].f.subscribers;
  console.log(
    `1. ${n} volatile $all subscribers, one writer paced at ${fmt(RATE)} events/s for ${SECONDS}s, ${runs.length} runs (M: measured, D: derived)`,
  );
  for (const [i, r] of runs.entries()) {
    const { f, ceiling, one } = r;
    const d = derived(r, ackMicros);
    console.log(
      `   run ${i + 1}${keptUp(r) ? '' : ' (the server fell behind: left out of the verdict)'}: written ${fmt(f.writtenPerSec)} events/s in ${fmt(f.commits)} commits (${fmt(r.rowsPerCommit, 1)} per commit), delivered ${fmt(f.delivered)} of ${fmt(f.expectedDeliveries)} (dropped subscriptions: ${f.dropped}); latency p50 ${fmt(f.p50, 2)} ms, p99 ${fmt(f.p99, 2)} ms, max ${fmt(f.max, 2)} ms; append round trip p99 ${fmt(f.appendP99, 2)} ms; load ${r.loads.map((l) => fmt(l, 1)).join('/')}`,
    );
    console.log(
      `          M server ${fmt(d.server, 2)} µs CPU per delivery (${fmt(f.serverCpu * 100)}% of a core, appends included); M bare fan-out loop ${fmt(ceiling.cpuMicrosPerFrame, 2)} µs per ${fmt(f.frameBytes)}-byte frame`,
    );
    console.log(
      `          M server at 1 subscriber ${fmt(one.serverCpuMicrosPerDelivery, 1)} µs per event (${fmt(one.written / Math.max(1, one.commits), 1)} per commit; M bare SQLite in that shape ${fmt(r.sqliteOneMicrosPerEvent, 1)}: ${fmt(one.serverCpuMicrosPerDelivery / r.sqliteOneMicrosPerEvent, 2)}x) -> D appends' share ${fmt(d.appendsShare, 2)} µs per delivery at ${n}`,
    );
    console.log(
      `          M bare better-sqlite3 ${fmt(r.sqliteMicrosPerEvent, 1)} µs per event (this run's commit shape, synchronous=FULL) -> D ${fmt(d.sqlitePerDelivery, 2)} µs per delivery; D composite floor (bare fan-out + SQLite / ${n}) ${fmt(d.floor, 2)} µs, with the ack floor ${fmt(d.floorWithAck, 2)}`,
    );
    console.log(
      `          D server / bare fan-out ${fmt(d.toBare, 2)}x; server / composite floor ${fmt(d.toFloor, 2)}x (with the ack floor ${fmt(d.toFloorWithAck, 2)}x); write system calls per delivery: server ${fmt(f.serverWritesPerDelivery, 3)}, bare loop ${fmt(ceiling.writesPerFrame, 3)}`,
    );
  }
  const all = runs.map((r) => derived(r, ackMicros));
  const pick = (key: keyof ReturnType<typeof derived>) => all.map((d) => d[key]);
  console.log(
    `   M ack floor (bench/ack-server.ts behind the same writer, one read per writer tick, once before the runs): ${fmt(ackMicros, 1)} µs per append -> D ${fmt(ackMicros / n, 2)} µs per delivery`,
  );
  console.log(`   over ${runs.length} runs (median, range):`);
  console.log(
    `     delivery p99 ms             ${range(
      runs.map((r) => r.f.p99),
      2,
    )}`,
  );
  console.log(`     M server µs/delivery        ${range(pick('server'), 2)}`);
  console.log(
    `     M bare fan-out µs/frame     ${range(
      runs.map((r) => r.ceiling.cpuMicrosPerFrame),
      2,
    )}`,
  );
  console.log(
    `     M 1-subscriber µs/event     ${range(
      runs.map((r) => r.one.serverCpuMicrosPerDelivery),
      1,
    )}`,
  );
  console.log(
    `     M bare SQLite µs/event      ${range(
      runs.map((r) => r.sqliteMicrosPerEvent),
      1,
    )}`,
  );
  console.log(`     D appends' share µs/deliv.  ${range(pick('appendsShare'), 2)}`);
  console.log(`     D composite floor µs/deliv. ${range(pick('floor'), 2)}`);
  console.log(`     D server / bare fan-out     ${range(pick('toBare'), 2)}x`);
  console.log(`     D server / composite floor  ${range(pick('toFloor'), 2)}x`);
  console.log(`     D same, ack floor added     ${range(pick('toFloorWithAck'), 2)}x`);
  const paced = runs.filter(keptUp).map((r) => derived(r, ackMicros));
  const verdict =
    paced.length === 0
      ? 'the server fell behind in every run (more than 4 ticks per commit): no verdict'
      : `${median(paced.map((d) => d.toBare)) <= 1.3 ? 'met' : 'NOT met'} (median ${fmt(median(paced.map((d) => d.toBare)), 2)}x over the ${paced.length} runs where the server kept up); against the composite floor ${fmt(median(paced.map((d) => d.toFloor)), 2)}x (${fmt(median(paced.map((d) => d.toFloorWithAck)), 2)}x with the ack floor)`;
  console.log(
    `   target: CPU <= 1.3x the bare fan-out loop -> ${verdict}; benchmark clients used ${fmt(runs[0].f.benchCpu * 100)}% of a core in run 1\n`,
  );
}
