/**
 * The read side of bench/eventlog-append.ts: seeding a stream, waiting for the server to settle, and readers
 * paging a stream forward or backward or `$all` forward through node-eventstore-client.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { ServeProcess } from '../../server/testing/serve-process.ts';
import { connectClient, es } from '../support.ts';
import { startAckServer } from './ack-process.ts';
import { frameAllLog, frameStreamAll, connectFraming, type FramingConnection } from './framing-client.ts';
import { medianRound, spread, type ReadRound } from './read-rounds.ts';
import { DATA, firstPositionOf, logComposition, METADATA, type ReadCeiling } from './sqlite-ceiling.ts';

export const connect = (port: number, name: string) =>
  connectClient(port, name, { maxConcurrentItems: 10_000, maxQueueSize: 20_000 });
export type Connection = Awaited<ReturnType<typeof connect>>;

export const load = () => `load ${os.loadavg()[0].toFixed(1)}`;
export const share = (rate: number, ceiling: number, what: string) =>
  Number.isNaN(ceiling) ? undefined : `${Math.round((rate / ceiling) * 100)}% of the ${what}`;

export function makeBatch(size: number) {
  return Array.from({ length: size }, () =>
    es.createEventData(crypto.randomUUID(), 'BenchEvent', true, DATA, METADATA),
  );
}

/** One result row of the benchmark's table. */
export interface Row {
  scenario: string;
  eventsPerSec: number;
  p50?: number;
  p99?: number;
  /** The measured process's CPU time per event in the measured window, µs. */
  serverCpuUs?: number;
  /** The reading process's (this one's) CPU per event, µs: reads only. */
  clientCpuUs?: number;
  /** SQLite's own CPU per row (per event for appends: rows per event counted), µs. */
  sqliteCpuUs?: number;
  note?: string;
}

export async function seedStream(port: number, stream: string, count: number): Promise<void> {
  const conn = await connect(port, 'seed');
  // Eight batches in flight: all 100 at once outlasted the client's operation timeout on a loaded machine.
  let next = 0;
  const writer = async () => {
    for (let n = next; n < count; n = next) {
      next += 500;
      await conn.appendToStream(stream, es.expectedVersion.any, makeBatch(Math.min(500, count - n)));
    }
  };
  await Promise.all(Array.from({ length: 8 }, writer));
  conn.close();
}

/**
 * The server's main thread's demand for CPU so far, in seconds: the time it ran plus the time it waited, runnable,
 * for a core (/proc/<pid>/schedstat). On a loaded machine a busy process can get little CPU in a quarter second;
 * its wait shows it still has work.
 */
function mainThreadDemand(pid: number): number {
  const [ran, waited] = fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').trim().split(' ').map(Number);
  return (ran + waited) / 1e9;
}

/**
 * Waits until the server has caught up with what the seed started (the system projections index the new events
 * and write their links), so the read rows' CPU is the reads' own: for four quarter-seconds in a row its main
 * thread asked for under 5% of a core (ran or waited to run), or 120 s at most. Measuring the CPU used alone,
 * a starved server looked idle under load and the projections' link writes ran on into the read rows (a tenth
 * of the server's CPU there, in a profile at load 10-20).
 */
export async function settled(server: ServeProcess): Promise<void> {
  const pid = server.child.pid!;
  const deadline = performance.now() + 120_000;
  let quiet = 0;
  while (quiet < 4 && performance.now() < deadline) {
    const before = mainThreadDemand(pid);
    await new Promise((r) => setTimeout(r, 250));
    quiet = mainThreadDemand(pid) - before < 0.0125 ? quiet + 1 : 0;
  }
}

/** How busy a process was over a window: CPU-seconds per wall-second, and its main thread's demand (ran + waited). */
interface Busy {
  cpu: number;
  demand: number;
}

function busySince(pid: number, cpuBefore: number, demandBefore: number, cpuNow: number, wall: number): Busy {
  return { cpu: (cpuNow - cpuBefore) / wall, demand: (mainThreadDemand(pid) - demandBefore) / wall };
}

/** A read row's measures beside the rate: CPU per event of the server and of the reading process, how busy each was. */
interface ReadRow extends Row {
  clientCpuUs: number;
  server?: Busy;
  client: Busy;
}

/** "0.62 (asks 0.97)": CPU-seconds per wall-second and the main thread's demand; saturated when it asks a core. */
const formatBusy = (b: Busy) => `${b.cpu.toFixed(2)} of a core (main thread asks ${b.demand.toFixed(2)})`;
/** A main thread that asked for this much of a core (ran + waited to run) over the window had work all along. */
const SATURATED_DEMAND = 0.9;

/**
 * Runs `readers` readers at once, each on its own connection from `open`, and measures over the window the
 * server's CPU (when given) and this process's (the readers'), per event and per wall-second.
 */
export async function readScenario<C extends { close(): void }>(
  port: number,
  label: string,
  readers: number,
  read: (conn: C, reader: number) => Promise<number>,
  server?: ServeProcess,
  open: (port: number, name: string) => Promise<C> = connect as unknown as (port: number, name: string) => Promise<C>,
): Promise<ReadRow> {
  const conns = await Promise.all(Array.from({ length: readers }, (_, i) => open(port, `reader-${i}`)));
  const pid = server?.child.pid;
  const started = performance.now();
  const cpuBefore = server?.cpuSeconds() ?? NaN;
  const demandBefore = pid === undefined ? NaN : mainThreadDemand(pid);
  const clientBefore = process.cpuUsage();
  const clientDemandBefore = mainThreadDemand(process.pid);
  const counts = await Promise.all(conns.map((c, i) => read(c, i)));
  const cpuNow = server ? server.cpuSeconds() : NaN;
  const clientUsed = process.cpuUsage(clientBefore);
  const elapsed = (performance.now() - started) / 1000;
  const serverBusy = pid === undefined ? undefined : busySince(pid, cpuBefore, demandBefore, cpuNow, elapsed);
  const clientCpu = (clientUsed.user + clientUsed.system) / 1e6;
  const clientBusy = busySince(process.pid, 0, clientDemandBefore, clientCpu, elapsed);
  for (const c of conns) c.close();
  const events = counts.reduce((a, b) => a + b, 0);
  return {
    scenario: label,
    eventsPerSec: events / elapsed,
    serverCpuUs: ((cpuNow - cpuBefore) / events) * 1e6,
    clientCpuUs: (clientCpu / events) * 1e6,
    server: serverBusy,
    client: clientBusy,
  };
}

export async function readStreamAll(conn: Connection, stream: string, forward: boolean, page: number): Promise<number> {
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

/** Where a `$all` read starts: a commit and prepare position. */
export interface AllStart {
  commit: number;
  prepare: number;
}

export async function readAllLog(conn: Connection, page: number, limit: number, from?: AllStart): Promise<number> {
  let read = 0;
  let position = from ? new es.Position(from.commit, from.prepare) : es.positions.start;
  while (read < limit) {
    const slice = await conn.readAllEventsForward(position, page, false);
    read += slice.events.length;
    if (slice.isEndOfStream) break;
    position = slice.nextPosition;
  }
  return read;
}

const READ_STREAM = 'bench-read';
const READ_EVENTS = 50_000;
const PAGE = 1000;
const READERS = 4;

/**
 * The three read scenarios, each with the real client's read and the framing reader's same read. `$all` reads from
 * the read stream's first event to the end of the log: that stream's events and the links the system projections
 * made of them (`$ce-bench`, `$et-BenchEvent`), the same mix every run. From the start of the log it read the
 * append rows' events and whatever links the projections had written between them by then (a mix that moved
 * with the append rows' warm-up and the projections' pace).
 */
const ALL_READ_SCENARIOS = [
  {
    key: 'forward',
    label: 'read stream forward',
    read: (c: Connection) => readStreamAll(c, READ_STREAM, true, PAGE),
    frame: (c: FramingConnection) => frameStreamAll(c, READ_STREAM, true, PAGE),
  },
  {
    key: 'backward',
    label: 'read stream backward',
    read: (c: Connection) => readStreamAll(c, READ_STREAM, false, PAGE),
    frame: (c: FramingConnection) => frameStreamAll(c, READ_STREAM, false, PAGE),
  },
  {
    key: 'all',
    label: 'read $all forward',
    read: (c: Connection, from: AllStart) => readAllLog(c, PAGE, Number.POSITIVE_INFINITY, from),
    frame: (c: FramingConnection, from: AllStart) => frameAllLog(c, PAGE, Number.POSITIVE_INFINITY, from),
  },
] as const;
/**
 * Which read rows run, in this order: BENCH_READS=backward,forward,all (default forward,backward,all). The first
 * row measured after the seed paid more per event than the same read later (see the README): reordering shows it.
 */
const READ_SCENARIOS = (process.env.BENCH_READS?.split(',') ?? ['forward', 'backward', 'all']).map((key) => {
  const found = ALL_READ_SCENARIOS.find((s) => s.key === key);
  if (!found) throw new Error(`BENCH_READS: no read row "${key}" (forward, backward, all)`);
  return found;
});

/**
 * "client CPU 1.2× SQLite's select (≤ 83% of the ceiling on a whole core)": a process spending that much per event
 * cannot read faster than that share of the select ceiling, whatever the other process does.
 */
function timesSelect(who: string, cpuUs: number, selectUs: number): string | undefined {
  if (Number.isNaN(selectUs)) return undefined;
  const times = cpuUs / selectUs;
  return `${who} CPU ${times.toFixed(2)}× SQLite's select (≤ ${Math.round(100 / times)}% of the ceiling on a whole core)`;
}

/** "read 150,000 events: 66% links, 5 streams, 301 bytes each": what the `$all` row's readers met. */
function composition(dataDir: string, from: AllStart): string {
  const c = logComposition(dataDir, from.prepare, Number.MAX_SAFE_INTEGER);
  const links = Math.round((c.links / Math.max(c.events, 1)) * 100);
  return `read ${c.events.toLocaleString('en-US')} events: ${links}% links, ${c.streams} streams, ${Math.round(c.bytesPerEvent)} bytes each`;
}

/** Which process held the rate back: the one whose main thread asked for a whole core. */
function verdict(row: ReadRow): string {
  const server = (row.server?.demand ?? 0) >= SATURATED_DEMAND;
  const client = row.client.demand >= SATURATED_DEMAND;
  if (server && client) return 'both saturated';
  if (client) return 'limit: the client (saturated)';
  if (server) return 'limit: the server (saturated)';
  return 'neither saturated (the machine is shared)';
}

/** Rounds of the read rows (BENCH_READ_ROUNDS, default 3): each row is the median round, its note the spread. */
const READ_ROUNDS = Number(process.env.BENCH_READ_ROUNDS ?? 3);

/**
 * The read rows, on a server seeded here: node-eventstore-client readers; the same reads by readers that only
 * frame (the server's own limit, same run); the select ceiling measured again right before each (the machine's
 * load moves); with `clientLimit`, the client's limit (a proxy replaying the server's answers). Every row runs
 * READ_ROUNDS times, the scenarios taking turns; each shown row is its median round, with the rounds' spread. Each
 * real row's note carries the ceiling, both limits, CPU per event of the server and of the reading process, how busy
 * each was and which one was saturated.
 */
export async function reads(
  server: ServeProcess,
  selectCeiling: { measure(): ReadCeiling } | null,
  clientLimits: Row[],
  clientLimit: boolean,
): Promise<Row[]> {
  // Settled before the seed too: links the projections still owed the append rows would land among the seed's.
  await settled(server);
  await seedStream(server.tcpPort, READ_STREAM, READ_EVENTS);
  await settled(server);
  const allFrom = firstPositionOf(server.dataDir, READ_STREAM);
  // One pass of every read, unmeasured, by both kinds of reader: the first row measured used to pay V8's compiling
  // of the read path (server and client) and came out dearer than the same work in the next rows.
  for (const s of READ_SCENARIOS) {
    await readScenario(server.tcpPort, s.label, 1, (c) => s.read(c, allFrom));
    await readScenario(server.tcpPort, s.label, 1, (c) => s.frame(c, allFrom), undefined, connectFraming);
  }
  const label = (what: string) => `${what}, ${READERS} readers, ${PAGE}/page`;
  const measureCeiling = () => selectCeiling?.measure() ?? { perSecond: NaN, cpuUs: NaN };
  const rounds = READ_SCENARIOS.map((): ReadRound<ReadRow>[] => []);
  for (let round = 0; round < READ_ROUNDS; round++) {
    for (const [i, s] of READ_SCENARIOS.entries()) {
      const ceiling = measureCeiling();
      const row = await readScenario(server.tcpPort, label(s.label), READERS, (c) => s.read(c, allFrom), server);
      const framed = await readScenario(
        server.tcpPort,
        label(s.label),
        READERS,
        (c) => s.frame(c, allFrom),
        server,
        connectFraming,
      );
      rounds[i].push({ ceiling, row, framed });
    }
  }
  const rows: Row[] = [];
  for (const [i, s] of READ_SCENARIOS.entries()) {
    const { ceiling: readCeiling, row, framed } = medianRound(rounds[i]);
    const ceiling = (rate: number) => share(rate, readCeiling.perSecond, 'read ceiling');
    row.sqliteCpuUs = readCeiling.cpuUs;
    row.note = [
      load(),
      ceiling(row.eventsPerSec),
      timesSelect('server', row.serverCpuUs!, readCeiling.cpuUs),
      timesSelect('client', row.clientCpuUs, readCeiling.cpuUs),
      `server ${formatBusy(row.server!)}`,
      `client ${formatBusy(row.client)}`,
      verdict(row),
      `frame-only readers: ${Math.round(framed.eventsPerSec).toLocaleString('en-US')} events/s`,
      ceiling(framed.eventsPerSec),
      Number.isNaN(readCeiling.perSecond) ? undefined : spread(rounds[i]),
      s.key === 'all' ? composition(server.dataDir, allFrom) : undefined,
    ]
      .filter(Boolean)
      .join(', ');
    framed.scenario = `server limit: ${label(s.label.replace('read ', 'reading '))} (readers only frame)`;
    framed.sqliteCpuUs = readCeiling.cpuUs;
    framed.note = [
      load(),
      ceiling(framed.eventsPerSec),
      `server ${formatBusy(framed.server!)}`,
      `readers ${formatBusy(framed.client)}`,
    ].join(', ');
    rows.push(row, framed);
  }
  if (clientLimit) {
    // The client's own read limit: the same pages answered by a proxy that replays the server's answers.
    const proxy = await startAckServer(server.tcpPort);
    try {
      for (const s of READ_SCENARIOS) await readScenario(proxy.port, s.label, READERS, (c) => s.read(c, allFrom)); // fills the proxy
      for (const [i, s] of READ_SCENARIOS.entries()) {
        const readCeiling = measureCeiling();
        const limit = await readScenario(proxy.port, label(s.label), READERS, (c) => s.read(c, allFrom));
        rows[2 * i].note += `, ${share(rows[2 * i].eventsPerSec, limit.eventsPerSec, 'client limit')}`;
        limit.scenario = `client limit: ${label(s.label.replace('read ', 'reading '))} (answers replayed)`;
        limit.note = [
          load(),
          share(limit.eventsPerSec, readCeiling.perSecond, 'read ceiling'),
          `client ${formatBusy(limit.client)}`,
        ].join(', ');
        clientLimits.push(limit);
      }
    } finally {
      proxy.child.kill('SIGTERM');
    }
  }
  return rows;
}

export function printTable(rows: Row[]): void {
  const headers = [
    'scenario',
    'events/s',
    'p50 ms',
    'p99 ms',
    'server CPU µs/ev',
    'client CPU µs/ev',
    'SQLite CPU µs/ev',
    'note',
  ];
  const micros = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? '' : v.toFixed(1));
  const cells = rows.map((r) => [
    r.scenario,
    Math.round(r.eventsPerSec).toLocaleString('en-US'),
    r.p50 === undefined ? '' : r.p50.toFixed(2),
    r.p99 === undefined ? '' : r.p99.toFixed(2),
    micros(r.serverCpuUs),
    micros(r.clientCpuUs),
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
