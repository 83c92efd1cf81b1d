import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Database } from './open.ts';

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
    entry.db.pragma('wal_checkpoint(PASSIVE)');
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
      open.set(message.add.id, { db, intervalMs: message.add.intervalMs, timer: null });
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
}

let shared: SharedWorker | null = null;
let nextId = 1;

function sharedWorker(): SharedWorker {
  if (shared) return shared;
  const sqliteModule = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { sqliteModule } });
  worker.unref();
  const s: SharedWorker = { worker, users: 0, ended: new Map() };
  const end = (id: number, err: Error | null) => {
    const done = s.ended.get(id);
    s.ended.delete(id);
    done?.(err);
  };
  worker.on('message', (m: { stopped?: number; failed?: number; message?: string }) => {
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
  options: { intervalMs?: number; onError?: (err: Error) => void } = {},
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
    s.ended.set(id, (err) => {
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
  s.worker.postMessage({ add: { id, file: db.name, intervalMs: options.intervalMs ?? 1000 } });
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
