import path from 'node:path';
import { openDatabase, startBackgroundCheckpointer, type Database } from '../db/index.ts';
import type { Logger } from '../logger.ts';
import {
  eventlogMigrations,
  SqliteEventStore,
  type StoreLimits,
  type SystemWriter,
  type EventLogTokens,
  type EventLogUsers,
  type EventStore,
  type StreamBrowser,
  SqliteEventLogTokens,
  SqliteEventLogUsers,
} from './store/index.ts';

export interface OpenEventLogOptions {
  dataDir: string;
  logger: Logger;
  /** Unix milliseconds (tests inject a clock to exercise `$maxAge`). */
  clock?: () => number;
  /** Queue bounds, cache sizes and batch sizes of the store (defaults suit a desktop). */
  limits?: Partial<StoreLimits>;
  /** How long a successful password check is remembered. */
  authCacheMs?: number;
  /** The password check (tests count and hold checks to see which sign-ins share one). */
  verifyPassword?: (password: string, stored: string) => Promise<boolean>;
  /** Checkpoint the WAL from a worker thread instead of inside commits (default true; the admin CLI skips it). */
  backgroundCheckpoint?: boolean;
}

/** The opened event log: the store, its users, and the database behind them. */
export interface EventLog {
  store: EventStore;
  /** The same store's browsing by name and category (the UI's stream list). */
  browser: StreamBrowser;
  users: EventLogUsers;
  /** Bearer tokens issued to the users (gRPC and the HTTP API of the gRPC port). */
  tokens: EventLogTokens;
  db: Database;
  /** Absolute path of eventlog.db. */
  file: string;
  /** Runs `fn` in the next group commit as the system: writes to several streams that commit together (projections). */
  runSystemWrite<T>(fn: (writer: SystemWriter) => T): Promise<T>;
  close(): Promise<void>;
}

export const EVENTLOG_FILE = 'eventlog.db';

/**
 * Opens `<dataDir>/eventlog.db` (WAL, synchronous=FULL, migrated to the newest schema), builds the
 * store and the users, and creates the default users on a new log. Safe to call while another
 * process (a running server, or the admin CLI) has the same file open.
 */
export async function openEventLog(options: OpenEventLogOptions): Promise<EventLog> {
  const file = path.resolve(options.dataDir, EVENTLOG_FILE);
  const db = openDatabase(file, { migrations: eventlogMigrations, synchronous: 'FULL' });
  let store: SqliteEventStore | undefined;
  try {
    store = new SqliteEventStore({ db, logger: options.logger, clock: options.clock, limits: options.limits });
    const users = new SqliteEventLogUsers({
      store,
      authCacheMs: options.authCacheMs,
      verifyPassword: options.verifyPassword,
      logger: options.logger.child({ component: 'auth' }),
    });
    await users.ensureDefaultUsers();
    store.markReady();
    const opened = store;
    options.logger.debug({ file, lastPosition: opened.lastCommitPosition() }, 'event log opened');
    const checkpointer =
      options.backgroundCheckpoint === false
        ? null
        : startBackgroundCheckpointer(db, {
            onError: (err) =>
              options.logger.warn(
                { err },
                'background WAL checkpoints stopped; SQLite checkpoints inside commits again',
              ),
          });
    return {
      store: opened,
      browser: opened,
      users,
      tokens: new SqliteEventLogTokens({ store: opened, clock: options.clock }),
      db,
      file,
      runSystemWrite: (fn) => opened.runSystemWrite(fn),
      close: async () => {
        await checkpointer?.stop();
        await opened.close();
      },
    };
  } catch (err) {
    if (store) await store.close();
    else db.close();
    throw err;
  }
}
