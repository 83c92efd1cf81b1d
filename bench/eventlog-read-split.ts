/**
 * Where a read event's server CPU goes, in process (no socket): the bench's select ceiling, the store's own
 * SELECT (as it was: row objects and two blobs; as it is: arrays and one blob), the store's read (rows →
 * EventRecords, byte budget), that plus the protobuf encoding, plus the TCP framing. 50,000 events in one stream, 1,000-event pages; CPU per event (µs).
 *
 *   node bench/eventlog-read-split.ts [rounds=5]
 */
import crypto from 'node:crypto';
import { openTestStore, ADMIN } from '../server/eventlog/store/testing/store.ts';
import { encodeReadStreamEventsCompleted } from '../server/eventlog/tcp/event-encoder.ts';
import { OutgoingPackages } from '../server/eventlog/tcp/outgoing.ts';
import { DATA, METADATA } from './eventlog-append/sqlite-ceiling.ts';

const EVENTS = 50_000;
const PAGE = 1000;
const rounds = Number(process.argv[2] ?? 5);

const t = openTestStore();
const { store } = t;
for (let n = 0; n < EVENTS; n += 500)
  await store.appendToStream(
    'split',
    -2,
    Array.from({ length: 500 }, () => ({
      eventId: crypto.randomUUID(),
      eventType: 'BenchEvent',
      isJson: true,
      data: DATA,
      metadata: METADATA,
    })),
    ADMIN,
  );
const db = store.db;
const key = (db.prepare("SELECT stream_key FROM streams WHERE stream_id = 'split'").pluck().get() as number) ?? 0;
const ceiling = db.prepare(
  'SELECT * FROM events WHERE stream_key = ? AND event_number >= ? ORDER BY event_number LIMIT 1000',
);
const range =
  'FROM events WHERE stream_key = ? AND event_number >= ? AND event_number <= ? ORDER BY event_number LIMIT ?';
/** The store's SELECT before issue 31's round 5: an object per row, data and metadata as two blobs. */
const objects = db.prepare(
  `SELECT position, commit_position, event_number, lower(hex(event_id)) AS event_id_hex, event_type, flags, data, metadata, created ${range}`,
);
/** The store's SELECT now (statements.ts, READ_COLUMNS): an array per row, one blob. */
const arrays = db
  .prepare(
    `SELECT position, commit_position, event_number, lower(hex(event_id)), event_type, flags, octet_length(data), CAST(data || metadata AS BLOB), created ${range}`,
  )
  .raw();
const correlation = new Uint8Array(16);

const stages: [string, (from: number) => number][] = [
  ['ceiling: SELECT * .all()', (from) => ceiling.all(key, from).length],
  [
    'SELECT: objects, two blobs',
    (from) => {
      let n = 0;
      for (const _ of objects.iterate(key, from, from + PAGE - 1, PAGE)) n++;
      return n;
    },
  ],
  [
    'SELECT: arrays, one blob',
    (from) => {
      let n = 0;
      for (const _ of arrays.iterate(key, from, from + PAGE - 1, PAGE)) n++;
      return n;
    },
  ],
  ['store.readStreamForward', (from) => store.readStreamForward('split', from, PAGE, false, ADMIN).events.length],
  [
    '+ encode',
    (from) => {
      const r = store.readStreamForward('split', from, PAGE, false, ADMIN);
      encodeReadStreamEventsCompleted({ ...r, result: 0 });
      return r.events.length;
    },
  ],
  [
    '+ frame',
    (from) => {
      const r = store.readStreamForward('split', from, PAGE, false, ADMIN);
      const out = new OutgoingPackages();
      out.push(0xb3, correlation, encodeReadStreamEventsCompleted({ ...r, result: 0 }));
      out.take();
      return r.events.length;
    },
  ],
];

const results = new Map<string, number[]>();
for (let round = 0; round < rounds; round++) {
  for (const [name, run] of stages) {
    const before = process.cpuUsage();
    let read = 0;
    for (let from = 0; from < EVENTS; from += PAGE) read += run(from);
    const used = process.cpuUsage(before);
    if (read !== EVENTS) throw new Error(`${name} read ${read}`);
    const list = results.get(name) ?? [];
    list.push((used.user + used.system) / read);
    results.set(name, list);
  }
}
const base = Math.min(...results.get(stages[0][0])!.slice(1));
for (const [name, list] of results) {
  const best = Math.min(...list.slice(1));
  console.log(
    `${name.padEnd(32)} ${best.toFixed(2)} µs/event (best of ${rounds - 1} after a warm-up), ${(best / base).toFixed(2)}× the ceiling`,
  );
}
await t.close();
