import type { Database } from '../db/index.ts';
import type { Logger } from '../logger.ts';
import type { EventLogUsers, EventStore } from './store/types.ts';

export interface OpenEventLogOptions {
  dataDir: string;
  logger: Logger;
}

/** The opened event log: the store, its users, and the database behind them. */
export interface EventLog {
  store: EventStore;
  users: EventLogUsers;
  db: Database;
  /** Absolute path of eventlog.db. */
  file: string;
  close(): Promise<void>;
}

// TODO(store helper): implement: open `<dataDir>/eventlog.db` (WAL, synchronous=FULL, migrations), build the store and users.
export async function openEventLog(_options: OpenEventLogOptions): Promise<EventLog> {
  throw new Error('openEventLog is not implemented yet');
}
