/**
 * Measures the store's write and read throughput on a temporary file (no network):
 *
 *   node server/eventlog/store/testing/measure-throughput.ts [--seconds 3] [--json]
 *
 * Scenarios: N concurrent writers each appending one event per request (ExpectedVersion.Any, 1,000
 * streams, ~256-byte JSON payloads as EventStore's TestClient WRFL sends); writers appending
 * 100-event batches; the raw SQLite ceiling for 100-row transactions into the same schema with the
 * same pragmas; and paged stream and `$all` reads. Numbers are events per second.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { openDatabase } from '../../../db/index.ts';
import { eventlogMigrations } from '../migrations.ts';
import { tuneEventLogConnection } from '../sqlite-store.ts';
import { openTestStore } from './store.ts';
import { ExpectedVersion, type NewEvent, type Principal } from '../types.ts';

const ADMIN: Principal = { name: 'admin', groups: ['$admins'] };
const PAYLOAD = Buffer.from(JSON.stringify({ payload: 'x'.repeat(230) }));
const META = Buffer.from(JSON.stringify({ meta: 'y'.repeat(80) }));
const STREAMS = 1000;

function newEvent(): NewEvent {
  return { eventId: crypto.randomUUID(), eventType: 'benchmark-event', isJson: true, data: PAYLOAD, metadata: META };
}

export interface ThroughputReport {
  singleEventAppends: { writers: number; eventsPerSecond: number }[];
  batchAppends: { writers: number; batchSize: number; eventsPerSecond: number }[];
  rawSqliteBatchInserts: { batchSize: number; eventsPerSecond: number };
  streamReads: { pageSize: number; eventsPerSecond: number };
  allReads: { pageSize: number; eventsPerSecond: number };
}

async function appendFor(seconds: number, writers: number, batchSize: number): Promise<number> {
  const t = openTestStore();
  try {
    let written = 0;
    const deadline = performance.now() + seconds * 1000;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        let i = w;
        while (performance.now() < deadline) {
          const batch = Array.from({ length: batchSize }, newEvent);
          const r = await t.store.appendToStream(`bench-${i++ % STREAMS}`, ExpectedVersion.Any, batch, null);
          if (r.result !== 'Success') throw new Error(`append failed: ${r.result}`);
          written += batchSize;
        }
      }),
    );
    return written / ((performance.now() - start) / 1000);
  } finally {
    await t.close();
  }
}

/** The same schema and pragmas, 100-row transactions, no store logic: the ceiling to compare with. */
async function rawSqlite(seconds: number, batchSize: number): Promise<number> {
  const t = openTestStore();
  const file = path.join(t.dir, 'raw.db');
  const db = openDatabase(file, { migrations: eventlogMigrations, synchronous: 'FULL' });
  try {
    tuneEventLogConnection(db);
    const insert = db.prepare(
      'INSERT INTO events (position, commit_position, stream_key, event_number, event_id, event_type, flags, data, metadata, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const numbers = new Array<number>(STREAMS).fill(0);
    let position = 0;
    const insertBatch = db.transaction(() => {
      const stream = position % STREAMS;
      for (let i = 0; i < batchSize; i++) {
        position++;
        insert.run(
          position,
          position,
          stream,
          numbers[stream]++,
          crypto.randomBytes(16),
          'benchmark-event',
          1,
          PAYLOAD,
          META,
          Date.now(),
        );
      }
    });
    const start = performance.now();
    const deadline = start + seconds * 1000;
    while (performance.now() < deadline) insertBatch.immediate();
    return position / ((performance.now() - start) / 1000);
  } finally {
    db.close();
    await t.close();
  }
}

async function readRates(seconds: number): Promise<{ stream: number; all: number }> {
  const t = openTestStore();
  try {
    const total = 200_000;
    for (let i = 0; i < total; i += 1000) {
      await t.store.appendToStream(
        i < total / 2 ? 'read-a' : `read-b-${i % 10}`,
        ExpectedVersion.Any,
        Array.from({ length: 1000 }, newEvent),
        null,
      );
    }
    let read = 0;
    let start = performance.now();
    let deadline = start + (seconds * 1000) / 2;
    while (performance.now() < deadline) {
      for (let from = 0; from >= 0 && performance.now() < deadline; ) {
        const r = t.store.readStreamForward('read-a', from, 500, false, null);
        read += r.events.length;
        from = r.isEndOfStream ? -1 : r.nextEventNumber;
      }
    }
    const stream = read / ((performance.now() - start) / 1000);
    read = 0;
    start = performance.now();
    deadline = start + (seconds * 1000) / 2;
    while (performance.now() < deadline) {
      let pos = { commitPosition: 0, preparePosition: 0 };
      while (performance.now() < deadline) {
        const r = t.store.readAllForward(pos, 1000, false, ADMIN);
        if (r.events.length === 0) break;
        read += r.events.length;
        pos = r.nextPosition;
      }
    }
    return { stream, all: read / ((performance.now() - start) / 1000) };
  } finally {
    await t.close();
  }
}

export async function measureStoreThroughput(options: { seconds?: number } = {}): Promise<ThroughputReport> {
  const seconds = options.seconds ?? 3;
  const singleEventAppends = [];
  for (const writers of [10, 100, 1000])
    singleEventAppends.push({ writers, eventsPerSecond: await appendFor(seconds, writers, 1) });
  const batchAppends = [];
  for (const writers of [1, 4])
    batchAppends.push({ writers, batchSize: 100, eventsPerSecond: await appendFor(seconds, writers, 100) });
  const rawSqliteBatchInserts = { batchSize: 100, eventsPerSecond: await rawSqlite(seconds, 100) };
  const reads = await readRates(seconds);
  return {
    singleEventAppends,
    batchAppends,
    rawSqliteBatchInserts,
    streamReads: { pageSize: 500, eventsPerSecond: reads.stream },
    allReads: { pageSize: 1000, eventsPerSecond: reads.all },
  };
}

if (process.argv[1] && fs.realpathSync(process.argv[1]) === fs.realpathSync(new URL(import.meta.url).pathname)) {
  const args = process.argv.slice(2);
  const secondsArg = args.indexOf('--seconds');
  const seconds = secondsArg >= 0 ? Number(args[secondsArg + 1]) : 3;
  const report = await measureStoreThroughput({ seconds });
  if (args.includes('--json')) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    const f = (n: number) => Math.round(n).toLocaleString('en-US');
    for (const s of report.singleEventAppends)
      console.log(`single-event appends, ${s.writers} concurrent writers: ${f(s.eventsPerSecond)} events/s`);
    const raw = report.rawSqliteBatchInserts.eventsPerSecond;
    console.log(`raw SQLite, 100-row transactions: ${f(raw)} events/s`);
    for (const b of report.batchAppends) {
      console.log(
        `100-event batch appends, ${b.writers} writer(s): ${f(b.eventsPerSecond)} events/s (${Math.round((100 * b.eventsPerSecond) / raw)}% of raw SQLite)`,
      );
    }
    console.log(`stream reads (pages of 500): ${f(report.streamReads.eventsPerSecond)} events/s`);
    console.log(`$all reads (pages of 1000): ${f(report.allReads.eventsPerSecond)} events/s`);
  }
}
