/**
 * The raw SQLite side of bench/eventlog-append.ts: the same rows inserted and selected straight into a file with
 * the event log's schema (WAL, synchronous=FULL, no server), and what the server committed, read from its file.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import BetterSqlite3 from 'better-sqlite3';
import { openDatabase, startBackgroundCheckpointer, type Database } from '../../server/db/index.ts';
import { eventlogMigrations, tuneEventLogConnection } from '../../server/eventlog/index.ts';

export const DATA = Buffer.from(JSON.stringify({ payload: 'x'.repeat(230), n: 0 }));
export const METADATA = Buffer.from(
  JSON.stringify({ correlationId: crypto.randomUUID(), source: 'bench-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' }),
);

interface CeilingDatabase {
  db: Database;
  insert: BetterSqlite3.Statement<unknown[]>;
  now: number;
  /** Closes the database and removes its file. */
  close(): void;
}

/**
 * A fresh event-log database (the server's schema, WAL, synchronous=FULL) holding one stream, key 1, with the
 * statement that inserts its events.
 */
function openCeilingDatabase(): CeilingDatabase {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-bench-sqlite-'));
  const db = openDatabase(path.join(dir, 'eventlog.db'), { migrations: eventlogMigrations, synchronous: 'FULL' });
  const now = Date.now();
  db.prepare(
    'INSERT INTO streams (stream_key, stream_id, last_event_number, created_at, updated_at) VALUES (1, ?, -1, ?, ?)',
  ).run('ceiling', now, now);
  const insert = db.prepare(
    'INSERT INTO events (position, commit_position, stream_key, event_number, event_id, event_type, flags, data, metadata, created) VALUES (?, ?, 1, ?, ?, ?, 1, ?, ?, ?)',
  );
  const close = () => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return { db, insert, now, close };
}

/** Runs `measure` on a fresh ceiling database; the database is gone afterwards. */
function withCeilingDatabase<T>(
  measure: (db: Database, insert: BetterSqlite3.Statement<unknown[]>, now: number) => T,
): T {
  const ceiling = openCeilingDatabase();
  try {
    return measure(ceiling.db, ceiling.insert, ceiling.now);
  } finally {
    ceiling.close();
  }
}

export function sqliteCeiling(rowsPerCommit: number, totalRows: number): number {
  return withCeilingDatabase((db, insert, now) => {
    const bump = db.prepare(
      'UPDATE streams SET last_event_number = ?, event_count = event_count + ?, updated_at = ? WHERE stream_key = 1',
    );
    const commit = db.transaction((from: number, count: number) => {
      for (let i = 0; i < count; i++) {
        const n = from + i;
        insert.run(n + 1, n + 1, n, crypto.randomBytes(16), 'BenchEvent', DATA, METADATA, now);
      }
      bump.run(from + count - 1, count, now);
    });
    const started = performance.now();
    for (let n = 0; n < totalRows; n += rowsPerCommit) commit(n, Math.min(rowsPerCommit, totalRows - n));
    return totalRows / ((performance.now() - started) / 1000);
  });
}

/** Where sqliteCpuPerRow inserts: a fresh file, or one like the server's at the measured window. */
export interface CeilingState {
  /** Events already in the log (as many streams, round robin) before the measured rows. */
  prefillRows: number;
  /**
   * The server's connection settings (tuneEventLogConnection: page cache, checkpoint threshold) and its background
   * checkpointer (a worker thread of this process, so its CPU is counted here as the server's is there).
   */
  serverTuning: boolean;
}

const FRESH: CeilingState = { prefillRows: 0, serverTuning: false };

/** What sqliteCpuPerRow's rows carry and how fast they come (defaults: bench:eventlog's rows, back to back). */
export interface RowShape {
  data?: Buffer;
  metadata?: Buffer;
  /**
   * Commits per second, paced as a paced writer's server commits: on a 1 ms timer, every commit that is due. The
   * timer's wake-ups are then counted too, as the server's idle waits between commits are.
   */
  commitsPerSecond?: number;
}

/** Paced commits of `rowsPerCommit` rows on average (a fraction: commit k holds rows ⌊k·r⌋ to ⌊(k+1)·r⌋). */
function pacedCommits(
  commit: (from: number, count: number) => void,
  rowsPerCommit: number,
  totalRows: number,
  commitsPerSecond: number,
): Promise<void> {
  return new Promise((resolve) => {
    const started = performance.now();
    let done = 0;
    let from = 0;
    const timer = setInterval(() => {
      const due = Math.floor(((performance.now() - started) / 1000) * commitsPerSecond);
      for (; done < due && from < totalRows; done++) {
        const to = Math.min(totalRows, Math.max(from + 1, Math.floor((done + 1) * rowsPerCommit)));
        commit(from, to - from);
        from = to;
      }
      if (from >= totalRows) {
        clearInterval(timer);
        resolve();
      }
    }, 1);
  });
}

/**
 * SQLite's own CPU time per row (this process, every thread, user + system, fsyncs included) when every commit
 * holds `rowsPerCommit` single-event appends to as many streams, as the server's group commit does for
 * single-event appends: per row an event insert and its stream's head update. µs per row. With a prefill the
 * file first holds that many events of the same streams (written fast, synchronous=OFF): the indexes' size
 * decides how many pages a commit dirties (at 100,000 events about twice as many as in a fresh file).
 */
export async function sqliteCpuPerRow(
  rowsPerCommit: number,
  totalRows: number,
  streams: number,
  state: CeilingState = FRESH,
  shape: RowShape = {},
): Promise<number> {
  const data = shape.data ?? DATA;
  const metadata = shape.metadata ?? METADATA;
  const ceiling = openCeilingDatabase();
  const { db, now } = ceiling;
  try {
    if (state.serverTuning) tuneEventLogConnection(db);
    const insertStream = db.prepare(
      'INSERT INTO streams (stream_key, stream_id, last_event_number, created_at, updated_at) VALUES (?, ?, -1, ?, ?)',
    );
    db.transaction(() => {
      for (let k = 2; k < streams + 2; k++) insertStream.run(k, `ceiling-${k}`, now, now);
    })();
    const insert = db.prepare(
      'INSERT INTO events (position, commit_position, stream_key, event_number, event_id, event_type, flags, data, metadata, created) VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?)',
    );
    const bump = db.prepare(
      'UPDATE streams SET last_event_number = ?, event_count = event_count + 1, updated_at = ? WHERE stream_key = ?',
    );
    const append = (n: number, id: Buffer, created: number) => {
      const stream = 2 + (n % streams);
      const number = Math.floor(n / streams);
      insert.run(n + 1, n + 1, stream, number, id, 'BenchEvent', data, metadata, created);
      bump.run(number, created, stream);
    };
    if (state.prefillRows > 0) {
      db.pragma('synchronous = OFF');
      const fill = db.transaction((from: number, count: number) => {
        for (let n = from; n < from + count; n++) append(n, crypto.randomBytes(16), now);
      });
      for (let n = 0; n < state.prefillRows; n += 10_000) fill(n, Math.min(10_000, state.prefillRows - n));
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.pragma('synchronous = FULL');
    }
    const checkpointer = state.serverTuning ? startBackgroundCheckpointer(db) : null;
    try {
      let base = state.prefillRows;
      if (checkpointer) {
        // The worker thread's start (~50 ms of CPU) must not land in the measure: one commit, then wait until the
        // worker has copied it into the database file (only it checkpoints now).
        const file = db.name;
        const mtime = fs.statSync(file).mtimeMs;
        db.transaction(() => append(base, crypto.randomBytes(16), Date.now()))();
        base++;
        const deadline = performance.now() + 10_000;
        while (fs.statSync(file).mtimeMs === mtime) {
          if (performance.now() > deadline) throw new Error('the background checkpointer never checkpointed');
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
      const ids = Array.from({ length: totalRows }, () => crypto.randomBytes(16)); // made outside the measure
      // The server's commits carry their own clock: the streams' updated_at index moves on every commit.
      const commit = db.transaction((from: number, count: number) => {
        const created = Date.now();
        for (let n = from; n < from + count; n++) append(base + n, ids[n], created);
      });
      const before = process.cpuUsage();
      if (shape.commitsPerSecond) await pacedCommits(commit, rowsPerCommit, totalRows, shape.commitsPerSecond);
      else for (let n = 0; n < totalRows; n += rowsPerCommit) commit(n, Math.min(rowsPerCommit, totalRows - n));
      const used = process.cpuUsage(before);
      return (used.user + used.system) / totalRows;
    } finally {
      await checkpointer?.stop();
    }
  } finally {
    ceiling.close();
  }
}

/** How many events the server's log held at a wall-clock time (by their commit clock), read from its file. */
export function serverEventsBefore(dataDir: string, time: number): number {
  const db = new BetterSqlite3(path.join(dataDir, 'eventlog.db'), { readonly: true });
  try {
    return (db.prepare('SELECT COUNT(*) FROM events WHERE created < ?').pluck().get(time) as number) ?? 0;
  } finally {
    db.close();
  }
}

/**
 * How many event rows the server committed between two wall-clock times (every event of a commit carries the
 * commit's clock, `created`). Its commits are the server's own count (server-commits.ts): two commits within
 * one millisecond share a clock.
 */
export function serverEventsBetween(dataDir: string, from: number, to: number): number {
  const db = new BetterSqlite3(path.join(dataDir, 'eventlog.db'), { readonly: true });
  try {
    return db.prepare('SELECT COUNT(*) FROM events WHERE created >= ? AND created < ?').pluck().get(from, to) as number;
  } finally {
    db.close();
  }
}

export interface ReadCeiling {
  perSecond: number;
  cpuUs: number;
}

/**
 * The select ceiling, kept open: `measure()` selects a stream of `totalRows` rows in 1,000-row pages now (rows
 * per second, CPU µs per row), so each read row can sit beside a ceiling taken under the same machine load.
 */
export function openReadCeiling(totalRows: number): { measure(): ReadCeiling; close(): void } {
  const { db, insert, now, close } = openCeilingDatabase();
  try {
    db.transaction(() => {
      for (let n = 0; n < totalRows; n++)
        insert.run(n + 1, n + 1, n, crypto.randomBytes(16), 'BenchEvent', DATA, METADATA, now);
    })();
  } catch (err) {
    close();
    throw err;
  }
  const page = db.prepare(
    'SELECT * FROM events WHERE stream_key = 1 AND event_number >= ? ORDER BY event_number LIMIT 1000',
  );
  const measure = () => {
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    let read = 0;
    for (let from = 0; from < totalRows; from += 1000) read += page.all(from).length;
    const cpu = process.cpuUsage(cpuBefore);
    return { perSecond: read / ((performance.now() - started) / 1000), cpuUs: (cpu.user + cpu.system) / read };
  };
  return { measure, close };
}

/** What a `$all` read of the log's first events met: how many, how many were links, of how many streams, bytes each. */
export interface LogComposition {
  events: number;
  links: number;
  streams: number;
  bytesPerEvent: number;
}

/**
 * The first `limit` events of the server's log from `from` on (by position), read from its file: the `$all` row's
 * cost per event depends on this mix (a link row is a few dozen bytes, a bench event ~400), which the append rows
 * before it and the system projections' pace decide.
 */
export function logComposition(dataDir: string, from: number, limit: number): LogComposition {
  const db = new BetterSqlite3(path.join(dataDir, 'eventlog.db'), { readonly: true });
  try {
    return db
      .prepare(
        `SELECT COUNT(*) AS events, COALESCE(SUM(event_type = '$>'), 0) AS links, COUNT(DISTINCT stream_key) AS streams,
           COALESCE(AVG(octet_length(data) + octet_length(metadata)), 0) AS bytesPerEvent
         FROM (SELECT stream_key, event_type, data, metadata FROM events WHERE position >= ? ORDER BY position LIMIT ?)`,
      )
      .get(from, limit) as LogComposition;
  } finally {
    db.close();
  }
}

/** A stream's first event's place in `$all` (commit and prepare position), read from the server's file. */
export function firstPositionOf(dataDir: string, streamId: string): { commit: number; prepare: number } {
  const db = new BetterSqlite3(path.join(dataDir, 'eventlog.db'), { readonly: true });
  try {
    const found = db
      .prepare(
        'SELECT commit_position AS "commit", position AS prepare FROM events WHERE stream_key = (SELECT stream_key FROM streams WHERE stream_id = ?) ORDER BY event_number LIMIT 1',
      )
      .get(streamId) as { commit: number; prepare: number } | undefined;
    if (!found) throw new Error(`no event in ${streamId}`);
    return found;
  } finally {
    db.close();
  }
}
