/**
 * The read side of bench/eventlog-append.ts: seeding a stream, waiting for the server to settle, and readers
 * paging a stream forward or backward or `$all` forward through node-eventstore-client.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { ServeProcess } from '../../server/testing/serve-process.ts';
import { connectClient, es } from '../support.ts';
import { DATA, METADATA } from './sqlite-ceiling.ts';

export const connect = (port: number, name: string) =>
  connectClient(port, name, { maxConcurrentItems: 10_000, maxQueueSize: 20_000 });
export type Connection = Awaited<ReturnType<typeof connect>>;

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

export async function readScenario(
  port: number,
  label: string,
  readers: number,
  read: (conn: Connection, reader: number) => Promise<number>,
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

export async function readAllLog(conn: Connection, page: number, limit: number): Promise<number> {
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

export function printTable(rows: Row[]): void {
  const headers = ['scenario', 'events/s', 'p50 ms', 'p99 ms', 'server CPU µs/ev', 'SQLite CPU µs/ev', 'note'];
  const micros = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? '' : v.toFixed(1));
  const cells = rows.map((r) => [
    r.scenario,
    Math.round(r.eventsPerSec).toLocaleString('en-US'),
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
