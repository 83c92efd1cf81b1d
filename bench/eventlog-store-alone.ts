/**
 * The store alone, no network: the server's event log (openEventLog: its settings, its checkpointer) in this
 * process, `STORE_WRITERS` writers each appending one event at a time to a stream of its own, as the 10 × 64 row
 * of bench:eventlog does over TCP. Prints this process's CPU (every thread) per appended event over the measured
 * events, and SQLite's own CPU per row into the same state (sqliteCpuPerRow: as many rows, the same commit size,
 * a file prefilled as far). The difference is what the store adds to SQLite, the quietest lens on it: run it under
 * `node --cpu-prof` to see where it goes.
 *
 *   node bench/eventlog-store-alone.ts   (STORE_PREFILL=25000 STORE_EVENTS=40000 STORE_WRITERS=640)
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { openEventLog, type NewEvent, type Principal } from '../server/eventlog/index.ts';
import { DATA, METADATA, sqliteCpuPerRow } from './eventlog-append/sqlite-ceiling.ts';

const PREFILL = Number(process.env.STORE_PREFILL ?? 25_000);
const EVENTS = Number(process.env.STORE_EVENTS ?? 40_000);
const WRITERS = Number(process.env.STORE_WRITERS ?? 640);
const ADMIN: Principal = { name: 'admin', groups: ['$admins'] };

function benchEvent(): NewEvent {
  return { eventId: crypto.randomUUID(), eventType: 'BenchEvent', isJson: true, data: DATA, metadata: METADATA };
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-store-alone-'));
  const log = await openEventLog({ dataDir, logger: pino({ level: 'silent' }) });
  try {
    const { store } = log;
    const writer = async (w: number, count: number): Promise<void> => {
      for (let i = 0; i < count; i++) {
        const r = await store.appendToStream(`bench-${w}`, -2, [benchEvent()], ADMIN);
        if (r.result !== 'Success') throw new Error(`append failed: ${r.result}`);
      }
    };
    const round = (total: number) =>
      Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w, Math.ceil(total / WRITERS))));
    await round(PREFILL);
    let commits = 0;
    const stopCounting = store.onCommitted(() => commits++);
    const before = process.cpuUsage();
    await round(EVENTS);
    const used = process.cpuUsage(before);
    stopCounting();
    const measured = WRITERS * Math.ceil(EVENTS / WRITERS);
    const storeUs = (used.user + used.system) / measured;
    const perCommit = Math.round(measured / Math.max(1, commits));
    await log.close();
    const sqliteUs = await sqliteCpuPerRow(perCommit, measured, WRITERS, {
      prefillRows: PREFILL,
      serverTuning: true,
    });
    const load = os.loadavg()[0].toFixed(1);
    console.log(
      `store ${storeUs.toFixed(1)} µs/event, SQLite ${sqliteUs.toFixed(1)} µs/row, store beyond SQLite ${(storeUs - sqliteUs).toFixed(1)} µs ` +
        `(${measured} events into ${PREFILL}, ~${perCommit} per commit, load ${load})`,
    );
  } finally {
    await log.close().catch(() => {});
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
