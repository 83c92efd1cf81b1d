/** eventlog.db's prepared statements, the row shapes they return, and the connection tuning. */
import { type Database, preparingUnseen } from '../../db/index.ts';
import { EventFlags } from './migrations.ts';
import type { AllEventColumns, EventColumns, RecordedEvent } from './types.ts';

export type { AllEventColumns, EventColumns } from './types.ts';
import { uuidAt } from './uuid.ts';

export interface EventRow {
  position: number;
  commit_position: number;
  event_number: number;
  /** The event id's 16 bytes as lower-case hex, made by SQLite: a string costs the reader less than a Buffer. */
  event_id_hex: string;
  event_type: string;
  flags: number;
  data: Buffer;
  metadata: Buffer;
  created: number;
}

/** Indexes into EventColumns / AllEventColumns. */
export const Column = {
  position: 0,
  commitPosition: 1,
  eventNumber: 2,
  eventType: 3,
  flags: 4,
  dataLength: 5,
  idDataAndMetadata: 6,
  created: 7,
  streamId: 8,
} as const;
/** Bytes of an event id, at the head of a row's blob. */
const EVENT_ID_BYTES = 16;

/** What a filtered `$all` read needs to decide on a row before loading it. */
export interface LightRow {
  position: number;
  commit_position: number;
  stream_id: string;
  event_type: string;
}
export interface StreamRow {
  stream_key: number;
  last_event_number: number;
  tombstoned: number;
  event_count: number;
  created_at: number;
  updated_at: number;
}
export interface TransactionRow {
  transaction_id: number;
  stream_id: string;
  expected_version: number;
  committed: number;
  first_event_number: number | null;
  last_event_number: number | null;
  prepare_position: number | null;
  commit_position: number | null;
}

const EVENT_COLUMNS =
  'position, commit_position, event_number, lower(hex(event_id)) AS event_id_hex, event_type, flags, data, metadata, created';
/**
 * EventColumns. `||` joins the blobs' bytes as they are (all NOT NULL, the id always 16 bytes: uuidToBytes); the
 * cast makes the result a blob again.
 */
const READ_COLUMNS =
  'position, commit_position, event_number, event_type, flags, octet_length(data), CAST(event_id || data || metadata AS BLOB), created';
const ALL_COLUMNS =
  'e.position, e.commit_position, e.event_number, e.event_type, e.flags, octet_length(e.data), CAST(e.event_id || e.data || e.metadata AS BLOB), e.created, s.stream_id';

/** Connection settings for eventlog.db on top of openDatabase's WAL + synchronous=FULL. */
export function tuneEventLogConnection(db: Database): void {
  // 8 MiB of page cache (SQLite's default is 2): appends touch the tails of the table and of each written stream's
  // index run. It fills with the file, so at 64 MiB (sized for an event-id index since dropped) the process grew
  // with the log for an hour of the soak; 8 MiB is full within its warm-up, at the same CPU per append.
  db.pragma('cache_size = -8192');
  // Checkpoint every ~64 MiB of WAL instead of 4 MiB: index pages rewritten by many commits reach the
  // database file once per checkpoint (measured ~25% more appends/s); the WAL file is cut back after.
  db.pragma('wal_autocheckpoint = 16384');
  db.pragma('journal_size_limit = 67108864');
}

export type Statements = ReturnType<typeof prepareStatements>;

export function prepareStatements(db: Database) {
  const prepare = preparingUnseen(db);
  return {
    begin: prepare('BEGIN IMMEDIATE'),
    commit: prepare('COMMIT'),
    rollback: prepare('ROLLBACK'),
    dataVersion: prepare('PRAGMA data_version').pluck(),
    lastPosition: prepare('SELECT last_position FROM log_state WHERE id = 1').pluck(),
    setLastPosition: prepare('UPDATE log_state SET last_position = ? WHERE id = 1'),
    streamById: prepare(
      'SELECT stream_key, last_event_number, tombstoned, event_count, created_at, updated_at FROM streams WHERE stream_id = ?',
    ),
    insertStream: prepare(
      'INSERT INTO streams (stream_id, last_event_number, tombstoned, event_count, created_at, updated_at, category, deleted) VALUES (?, ?, 0, 0, ?, ?, ?, 0)',
    ),
    updateStream: prepare(
      'UPDATE streams SET last_event_number = ?, tombstoned = ?, event_count = ?, updated_at = ?, deleted = ? WHERE stream_key = ?',
    ),
    bumpCategory: prepare(
      'INSERT INTO stream_categories (category, streams) VALUES (?, 1) ON CONFLICT (category) DO UPDATE SET streams = streams + 1',
    ),
    insertEvent: prepare(
      'INSERT INTO events (position, commit_position, stream_key, event_number, event_id, event_type, flags, data, metadata, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    eventIdAt: prepare('SELECT event_id FROM events WHERE stream_key = ? AND event_number = ?').pluck(),
    positionAt: prepare('SELECT position FROM events WHERE stream_key = ? AND event_number = ?').pluck(),
    eventAt: prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE stream_key = ? AND event_number = ?`),
    recordAt: prepare(`SELECT ${READ_COLUMNS} FROM events WHERE stream_key = ? AND event_number = ?`).raw(),
    streamForward: prepare(
      `SELECT ${READ_COLUMNS} FROM events WHERE stream_key = ? AND event_number >= ? AND event_number <= ? ORDER BY event_number LIMIT ?`,
    ).raw(),
    streamBackward: prepare(
      `SELECT ${READ_COLUMNS} FROM events WHERE stream_key = ? AND event_number >= ? AND event_number <= ? ORDER BY event_number DESC LIMIT ?`,
    ).raw(),
    firstUnexpired: prepare(
      'SELECT event_number FROM events WHERE stream_key = ? AND event_number >= ? AND created >= ? ORDER BY event_number LIMIT 1',
    ).pluck(),
    allForward: prepare(
      `SELECT ${ALL_COLUMNS} FROM events e JOIN streams s ON s.stream_key = e.stream_key WHERE e.position >= ? ORDER BY e.position LIMIT ?`,
    ).raw(),
    // The projections' reads: user streams and their metastreams (`$$x`, x not a `$` stream) only.
    allForwardUserStreams: prepare(
      `SELECT ${ALL_COLUMNS} FROM events e JOIN streams s ON s.stream_key = e.stream_key WHERE e.position >= ? AND (substr(s.stream_id, 1, 1) <> '$' OR (substr(s.stream_id, 1, 2) = '$$' AND substr(s.stream_id, 3, 1) <> '$')) ORDER BY e.position LIMIT ?`,
    ).raw(),
    allBackward: prepare(
      `SELECT ${ALL_COLUMNS} FROM events e JOIN streams s ON s.stream_key = e.stream_key WHERE e.position <= ? ORDER BY e.position DESC LIMIT ?`,
    ).raw(),
    allRange: prepare(
      `SELECT ${ALL_COLUMNS} FROM events e JOIN streams s ON s.stream_key = e.stream_key WHERE e.position > ? AND e.position <= ? ORDER BY e.position LIMIT ?`,
    ).raw(),
    allAt: prepare(
      `SELECT ${ALL_COLUMNS} FROM events e JOIN streams s ON s.stream_key = e.stream_key WHERE e.position = ?`,
    ).raw(),
    lightForward: prepare(
      'SELECT e.position, e.commit_position, s.stream_id, e.event_type FROM events e JOIN streams s ON s.stream_key = e.stream_key WHERE e.position >= ? ORDER BY e.position LIMIT ?',
    ),
    lightBackward: prepare(
      'SELECT e.position, e.commit_position, s.stream_id, e.event_type FROM events e JOIN streams s ON s.stream_key = e.stream_key WHERE e.position <= ? ORDER BY e.position DESC LIMIT ?',
    ),
    anyAfter: prepare('SELECT 1 FROM events WHERE position > ? LIMIT 1').pluck(),
    anyBefore: prepare('SELECT 1 FROM events WHERE position < ? LIMIT 1').pluck(),
    transactionSpan: prepare(
      'SELECT first_position AS firstPosition, commit_position AS commitPosition FROM committed_transactions WHERE commit_position >= ? ORDER BY commit_position LIMIT 1',
    ),
    insertTransactionSpan: prepare(
      'INSERT INTO committed_transactions (commit_position, first_position) VALUES (?, ?)',
    ),
    insertTransaction: prepare('INSERT INTO transactions (stream_id, expected_version, created_at) VALUES (?, ?, ?)'),
    transactionById: prepare(
      'SELECT transaction_id, stream_id, expected_version, committed, first_event_number, last_event_number, prepare_position, commit_position FROM transactions WHERE transaction_id = ?',
    ),
    nextTransactionSeq: prepare(
      'SELECT COALESCE(MAX(seq) + 1, 0) FROM transaction_events WHERE transaction_id = ?',
    ).pluck(),
    insertTransactionEvent: prepare(
      'INSERT INTO transaction_events (transaction_id, seq, event_id, event_type, flags, data, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    transactionEvents: prepare(
      'SELECT event_id, event_type, flags, data, metadata FROM transaction_events WHERE transaction_id = ? ORDER BY seq',
    ),
    markTransactionCommitted: prepare(
      'UPDATE transactions SET committed = 1, first_event_number = ?, last_event_number = ?, prepare_position = ?, commit_position = ? WHERE transaction_id = ?',
    ),
    deleteTransactionEvents: prepare('DELETE FROM transaction_events WHERE transaction_id = ?'),
  };
}

export function toRecorded(row: EventColumns | AllEventColumns, streamId: string): RecordedEvent {
  const blob = row[Column.idDataAndMetadata];
  const dataEnd = EVENT_ID_BYTES + row[Column.dataLength];
  return {
    streamId,
    eventNumber: row[Column.eventNumber],
    eventId: uuidAt(blob, 0),
    eventType: row[Column.eventType],
    isJson: (row[Column.flags] & EventFlags.IsJson) !== 0,
    data: Buffer.from(blob.buffer, blob.byteOffset + EVENT_ID_BYTES, dataEnd - EVENT_ID_BYTES),
    metadata: Buffer.from(blob.buffer, blob.byteOffset + dataEnd, blob.byteLength - dataEnd),
    created: row[Column.created],
    commitPosition: row[Column.commitPosition],
    preparePosition: row[Column.position],
  };
}
