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
// bundled Electron main process.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.sqliteModule);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 0');
db.pragma('synchronous = FULL');
let timer = null;
function tick() {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    // SQLITE_BUSY and friends: another checkpoint is running; try again next tick.
  }
  timer = setTimeout(tick, workerData.intervalMs);
}
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearTimeout(timer);
  db.close();
  parentPort.postMessage('stopped');
});
tick();
`;

export function startBackgroundCheckpointer(
  db: Database,
  options: { intervalMs?: number; onError?: (err: Error) => void } = {},
): BackgroundCheckpointer {
  const previous = db.pragma('wal_autocheckpoint', { simple: true }) as number;
  const sqliteModule = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { file: db.name, sqliteModule, intervalMs: options.intervalMs ?? 1000 },
  });
  worker.unref();
  db.pragma('wal_autocheckpoint = 0');
  let stopped = false;
  const restoreAutocheckpoint = () => {
    if (db.open) db.pragma(`wal_autocheckpoint = ${previous}`);
  };
  worker.on('error', (err) => {
    // Never leave the WAL without anyone to checkpoint it.
    restoreAutocheckpoint();
    options.onError?.(err);
  });
  return {
    stop() {
      if (stopped) return Promise.resolve();
      stopped = true;
      return new Promise<void>((resolve) => {
        const done = () => {
          restoreAutocheckpoint();
          resolve();
        };
        worker.once('exit', done);
        worker.once('message', () => void worker.terminate());
        worker.postMessage('stop');
        setTimeout(() => void worker.terminate(), 2000).unref();
      });
    },
  };
}
