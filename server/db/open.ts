import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';

export type Database = BetterSqlite3.Database;

/** One schema step. Versions start at 1 and increase by one; `up` runs inside a transaction. */
export interface Migration {
  version: number;
  name: string;
  up(db: Database): void;
}

export interface OpenDatabaseOptions {
  migrations: readonly Migration[];
  /** FULL: a commit is on disk before it is acknowledged (both databases use it). */
  synchronous: 'FULL' | 'NORMAL';
  readonly?: boolean;
  /**
   * Where SQLite keeps the small temporary b-trees a query builds (an `IN (SELECT …)` list, a materialized CTE):
   * 'memory' spares opening a temporary pager for each (a timeline page builds several per request: 80 of its
   * 360 µs of SQL measured). Set after migrations, whose index builds and table copies may sort large data.
   */
  tempStore?: 'memory';
}

export function currentSchemaVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** A database file SQLite cannot read: what happened and what the owner can do about it. */
export class DamagedDatabaseError extends Error {
  readonly code = 'HOMEPORT_DAMAGED_DATABASE';
  constructor(file: string, detail: string) {
    super(
      `${file} is damaged (${detail}). Stop Homeport, then restore it from a backup (homeport restore DIR), or move the file ` +
        `(and its -wal and -shm files) aside to start that part afresh; keep the damaged copy, "sqlite3 FILE .recover" can often rescue data from it.`,
    );
  }
}

const DAMAGE_CODES = new Set([
  'SQLITE_CORRUPT',
  'SQLITE_NOTADB',
  'SQLITE_CORRUPT_INDEX',
  'SQLITE_CORRUPT_VTAB',
  'SQLITE_IOERR_SHORT_READ',
]);

/**
 * Opens a SQLite file in WAL mode and brings its schema up to the newest migration. A file SQLite finds
 * damaged while opening it is a DamagedDatabaseError with what to do; a deeper check runs in the background
 * (see checkIntegrityInBackground).
 */
export function openDatabase(file: string, options: OpenDatabaseOptions): Database {
  try {
    return openUnchecked(file, options);
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    if (DAMAGE_CODES.has(code) || code.startsWith('SQLITE_CORRUPT'))
      throw new DamagedDatabaseError(file, (err as Error).message);
    throw err;
  }
}

function openUnchecked(file: string, options: OpenDatabaseOptions): Database {
  const db = new BetterSqlite3(file, { readonly: options.readonly ?? false });
  try {
    db.pragma('busy_timeout = 5000');
    if (!options.readonly) db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous}`);
    db.pragma('foreign_keys = ON');
    if (!options.readonly) migrate(db, options.migrations, file);
    if (options.tempStore === 'memory') db.pragma('temp_store = MEMORY');
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

function migrate(db: Database, migrations: readonly Migration[], file: string): void {
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  sorted.forEach((m, i) => {
    if (m.version !== i + 1)
      throw new Error(`migrations for ${file} must be numbered 1..n; found ${m.version} at ${i + 1}`);
  });
  const newest = sorted.length;
  // BEGIN IMMEDIATE so a second process (the admin CLI) opening at the same moment waits instead of migrating twice.
  const step = db.transaction((m: Migration) => {
    if (currentSchemaVersion(db) >= m.version) return;
    m.up(db);
    db.pragma(`user_version = ${m.version}`);
  });
  const version = currentSchemaVersion(db);
  if (version > newest) {
    throw new Error(
      `${file} has schema version ${version}, newer than this Homeport knows (${newest}); upgrade Homeport`,
    );
  }
  for (const m of sorted.slice(version)) step.immediate(m);
}

// Plain CommonJS source (eval worker), as the background checkpointer's, so it runs from sources and bundles alike.
const INTEGRITY_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.sqliteModule);
parentPort.postMessage(workerData.files.map((file) => {
  try {
    const db = new Database(file, { readonly: true });
    db.pragma('busy_timeout = 5000');
    const problems = db.pragma('quick_check(20)', { simple: false }).map((row) => row.quick_check).filter((line) => line !== 'ok');
    db.close();
    return problems;
  } catch (err) {
    return [String(err && err.message || err)];
  }
}));
`;

/**
 * Runs SQLite's quick_check over each of `files`, one after the other, on one worker thread with its own read-only
 * connections (it reads the whole file, seconds for a large log, so never on the event loop; one worker, as each
 * is a V8 isolate to start). `result` resolves with the problems found in each file, in order ([] when sound, or
 * when stopped first); `stop()` waits for the check to end and drops its findings (a closing server must not
 * leave it reading).
 */
export function checkIntegrityInBackground(files: string[]): { result: Promise<string[][]>; stop(): Promise<void> } {
  const sqliteModule = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(INTEGRITY_WORKER, { eval: true, workerData: { files, sqliteModule } });
  worker.unref();
  let stopped = false;
  const none = () => files.map((): string[] => []);
  const result = new Promise<string[][]>((resolve) => {
    worker.once('message', (problems: string[][]) => resolve(stopped ? none() : problems));
    worker.once('error', (err) => resolve(stopped ? none() : files.map(() => [err.message])));
    worker.once('exit', () => resolve(none()));
  });
  return {
    result,
    async stop() {
      // Terminating a worker inside a native SQLite call aborts the whole process (napi fatal error): let the
      // check finish instead, and ignore what it finds.
      stopped = true;
      await result;
    },
  };
}
