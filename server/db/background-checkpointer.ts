import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Database } from './open.ts';
import { betweenWriteGroups } from './write-groups.ts';

/**
 * Moves WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside the commit that
 * crosses the threshold and copies the whole WAL into the database file there and then, which stalls
 * every connection, subscriber and request for that long. A worker thread with its own connection runs
 * PASSIVE checkpoints instead (they never block writers or readers), and the writer connection's
 * automatic checkpoint is switched off while the worker is alive. Once a second: often enough to keep
 * the WAL short, rare enough that hot index pages are copied once for many commits.
 */
export interface BackgroundCheckpointer {
  stop(): Promise<void>;
}

/** The checkpoints the writer's own connection ran (on the event loop): how often, and how long they held it. */
export interface WriterCheckpoints {
  count: number;
  totalMs: number;
  longestMs: number;
}

const writerCheckpoints = new WeakMap<Database, WriterCheckpoints>();

/** What the writer's connection of `db` spent emptying its WAL so far (benchmarks print it beside p99). */
export function writerCheckpointsOf(db: Database): WriterCheckpoints {
  let stats = writerCheckpoints.get(db);
  if (!stats) writerCheckpoints.set(db, (stats = { count: 0, totalMs: 0, longestMs: 0 }));
  return stats;
}

// Plain CommonJS source (eval worker) so it runs the same from TypeScript sources and from the
// bundled Electron main process. One worker serves every database of the process: each worker thread is a V8
// isolate of its own (about 11 MiB resident and 50 ms of CPU to start), and the server has two databases.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.sqliteModule);
const open = new Map();
function tick(id) {
  const entry = open.get(id);
  if (!entry) return;
  try {
    const [passive] = entry.db.pragma('wal_checkpoint(PASSIVE)');
    // Under steady writes some frame is always newer than the last passive checkpoint, so the writer never
    // starts the WAL over and the file grows without end (282 MB in a 30-minute soak). Past the limit the
    // writer's own connection is asked to start it over (it holds the write lock; this thread would rarely win it).
    if (passive && passive.log > entry.restartAfterFrames) parentPort.postMessage({ oversized: id });
  } catch (err) {
    // SQLITE_BUSY and friends: another checkpoint is running; try again next tick.
  }
  entry.timer = setTimeout(tick, entry.intervalMs, id);
}
parentPort.on('message', (message) => {
  if (message.add) {
    try {
      const db = new Database(message.add.file);
      db.pragma('busy_timeout = 0');
      db.pragma('synchronous = FULL');
      const frameBytes = db.pragma('page_size', { simple: true }) + 24;
      const restartAfterFrames = Math.max(1, Math.floor(message.add.walLimitBytes / frameBytes));
      open.set(message.add.id, { db, intervalMs: message.add.intervalMs, restartAfterFrames, timer: null });
      tick(message.add.id);
    } catch (err) {
      parentPort.postMessage({ failed: message.add.id, message: String((err && err.message) || err) });
    }
  } else if (message.stop !== undefined) {
    const entry = open.get(message.stop);
    open.delete(message.stop);
    if (entry) {
      clearTimeout(entry.timer);
      entry.db.close();
    }
    parentPort.postMessage({ stopped: message.stop });
  }
});
`;

interface SharedWorker {
  worker: Worker;
  users: number;
  /** Per database: told when the worker stopped checkpointing it, or failed to open it, or died. */
  ended: Map<number, (err: Error | null) => void>;
  /** Per database: empties its WAL from the writer's connection when the worker finds it past its limit. */
  oversized: Map<number, () => void>;
}

/** As the event log's journal_size_limit: a desktop's disk keeps at most this much of WAL. */
const DEFAULT_WAL_LIMIT_BYTES = 64 * 1024 * 1024;

let shared: SharedWorker | null = null;
let nextId = 1;

function sharedWorker(): SharedWorker {
  if (shared) return shared;
  const sqliteModule = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { sqliteModule } });
  worker.unref();
  const s: SharedWorker = { worker, users: 0, ended: new Map(), oversized: new Map() };
  const end = (id: number, err: Error | null) => {
    const done = s.ended.get(id);
    s.ended.delete(id);
    done?.(err);
  };
  worker.on('message', (m: { stopped?: number; failed?: number; oversized?: number; message?: string }) => {
    if (m.oversized !== undefined) s.oversized.get(m.oversized)?.();
    if (m.stopped !== undefined) end(m.stopped, null);
    if (m.failed !== undefined) end(m.failed, new Error(m.message));
  });
  const died = (err: Error) => {
    if (shared === s) shared = null;
    for (const id of [...s.ended.keys()]) end(id, err);
  };
  worker.on('error', died);
  worker.on('exit', (code) => died(new Error(`the checkpoint worker exited (${code})`)));
  shared = s;
  return s;
}

export function startBackgroundCheckpointer(
  db: Database,
  options: {
    intervalMs?: number;
    /** The WAL's size past which the writer's connection starts it over (RESTART) between two transactions. */
    walLimitBytes?: number;
    onError?: (err: Error) => void;
  } = {},
): BackgroundCheckpointer {
  const previous = db.pragma('wal_autocheckpoint', { simple: true }) as number;
  const s = sharedWorker();
  const id = nextId++;
  s.users++;
  db.pragma('wal_autocheckpoint = 0');
  const restoreAutocheckpoint = () => {
    if (db.open) db.pragma(`wal_autocheckpoint = ${previous}`);
  };
  let stopping = false;
  const ended = new Promise<void>((resolve) => {
    const restart = () => {
      // Inside another transaction (not a write group's) a checkpoint cannot run: the worker asks again next tick.
      if (!db.open || db.inTransaction) return;
      // Never wait on the event loop: a reader of another connection (the admin CLI) or a checkpoint running
      // makes this one busy at once, and the worker asks again next tick.
      const busyTimeout = db.pragma('busy_timeout', { simple: true }) as number;
      db.pragma('busy_timeout = 0');
      const started = performance.now();
      try {
        // RESTART, not TRUNCATE: the next frames overwrite the file from its start, so it stays as large as the
        // limit plus a tick's frames. Cutting it to nothing was 36 of the 51 ms this took (ftruncate freeing 64 MB
        // of blocks, under strace at load 6); what is left is SQLite's copy of the frames written since the
        // worker's pass and the database file's fsync, which must come before the WAL is reused.
        db.pragma('wal_checkpoint(RESTART)');
      } catch {
        // Busy or locked: asked again next tick.
      } finally {
        db.pragma(`busy_timeout = ${busyTimeout}`);
        const stats = writerCheckpointsOf(db);
        const ms = performance.now() - started;
        stats.count++;
        stats.totalMs += ms;
        stats.longestMs = Math.max(stats.longestMs, ms);
      }
    };
    // A server under steady writes has a write group open at almost every moment the worker's message is taken
    // (the group commits in a setImmediate and the next request opens the next one): skipping then let the social
    // WAL grow to 295 MB in 3 minutes of the soak. So the checkpoint runs right after that group's COMMIT.
    s.oversized.set(id, () => betweenWriteGroups(db, restart));
    s.ended.set(id, (err) => {
      s.oversized.delete(id);
      // Never leave the WAL without anyone to checkpoint it.
      restoreAutocheckpoint();
      if (err && !stopping) options.onError?.(err);
      if (--s.users === 0) {
        if (shared === s) shared = null;
        void s.worker.terminate();
      }
      resolve();
    });
  });
  s.worker.postMessage({
    add: {
      id,
      file: db.name,
      intervalMs: options.intervalMs ?? 1000,
      walLimitBytes: options.walLimitBytes ?? DEFAULT_WAL_LIMIT_BYTES,
    },
  });
  return {
    stop() {
      if (!stopping) {
        stopping = true;
        s.worker.postMessage({ stop: id });
        // A worker stuck in a checkpoint past this is ended; its databases check themselves again.
        const timer = setTimeout(() => void s.worker.terminate(), 2000);
        timer.unref();
        void ended.then(() => clearTimeout(timer));
      }
      return ended;
    },
  };
}
