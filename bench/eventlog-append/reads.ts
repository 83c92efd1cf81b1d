/**
 * The read side of bench/eventlog-append.ts: seeding a stream, waiting for the server to settle, and readers
 * paging a stream forward or backward or `$all` forward through node-eventstore-client.
 */
import crypto from 'node:crypto';
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
export async function settled(server: ServeProcess): Promise<void> {
  const deadline = performance.now() + 60_000;
  while (performance.now() < deadline) {
    const before = server.cpuSeconds();
    await new Promise((r) => setTimeout(r, 250));
    if (server.cpuSeconds() - before < 0.0125) return;
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
