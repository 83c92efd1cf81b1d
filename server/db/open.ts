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
  /** FULL for the event log (acknowledged means on disk); NORMAL is enough elsewhere under WAL. */
  synchronous: 'FULL' | 'NORMAL';
  readonly?: boolean;
}

export function currentSchemaVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Opens a SQLite file in WAL mode and brings its schema up to the newest migration. */
export function openDatabase(file: string, options: OpenDatabaseOptions): Database {
  const db = new BetterSqlite3(file, { readonly: options.readonly ?? false });
  try {
    db.pragma('busy_timeout = 5000');
    if (!options.readonly) db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous}`);
    db.pragma('foreign_keys = ON');
    if (!options.readonly) migrate(db, options.migrations, file);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

function migrate(db: Database, migrations: readonly Migration[], file: string): void {
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  sorted.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migrations for ${file} must be numbered 1..n; found ${m.version} at ${i + 1}`);
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
    throw new Error(`${file} has schema version ${version}, newer than this Homeport knows (${newest}); upgrade Homeport`);
  }
  for (const m of sorted.slice(version)) step.immediate(m);
}
