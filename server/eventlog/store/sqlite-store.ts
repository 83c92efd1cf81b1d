/**
 * The event store on SQLite (better-sqlite3): EventStoreDB semantics for expected versions, idempotency,
 * deletes, metadata, ACLs, links and transactions, with group commit for writes.
 *
 * Writes queue up; every request waiting when a commit starts shares one SQLite transaction and each
 * promise settles only after COMMIT returned (synchronous=FULL, so acknowledged means durable). Requests
 * are checked against the in-transaction state before they write anything, so a wrong expected version
 * fails alone; a request that throws is rejected and the group runs again without it.
 *
 * Reads are synchronous and index based. Stream heads and parsed metadata are cached in memory; the
 * caches are updated from a commit's working copies only after COMMIT, and dropped whenever another
 * process (the admin CLI) committed to the same file, which `PRAGMA data_version` reveals.
 */
import crypto from 'node:crypto';
import type { Database } from '../../db/index.ts';
import type { Logger } from '../../logger.ts';
import { LINK_EVENT_TYPE, parseLink } from './links.ts';
import { compileEventFilter, type EventPredicate } from './filter.ts';
import {
  aclAllows,
  EMPTY_METADATA,
  isMetastream,
  metastreamOf,
  METASTREAM_METADATA,
  minReadableEventNumber,
  originalStreamOf,
  parseStreamMetadata,
  parseSystemSettings,
  serializeMetadataDocument,
  SOFT_DELETE_METADATA,
  SystemEventTypes,
  SystemRoles,
  SystemStreams,
  categoryOf,
  type AccessKind,
  type LoadedMetadata,
  type SystemSettings,
} from './metadata.ts';
import { EventFlags } from './migrations.ts';
import { backwardEndKey, comparePositions, forwardCursorAfter, forwardStartKey, position, type CommittedTransactionSpan } from './positions.ts';
import { Scavenger } from './scavenge.ts';
import type { StreamInfo, SystemWriter } from './system-writer.ts';

export type { StreamInfo, SystemWriter } from './system-writer.ts';
import {
  EVENT_NUMBER_DELETED,
  EVENT_NUMBER_INVALID,
  ExpectedVersion,
  MAX_READ_COUNT,
  StoreBadRequestError,
  StoreBusyError,
  StoreNotReadyError,
  type Caller,
  type CommittedBatch,
  type DeleteResult,
  type EventFilter,
  type EventStore,
  type NewEvent,
  type Position,
  type Principal,
  type ReadAllResult,
  type ReadEventResult,
  type ReadStreamResult,
  type RecordedEvent,
  type ResolvedEvent,
  type ResolvedIndexedEvent,
  type ScavengeResult,
  type StoreStatus,
  type StreamMetadata,
  type StreamSummary,
  type TransactionCommitResult,
  type TransactionResult,
  type WriteResult,
} from './types.ts';
import { bytesToUuid, uuidToBytes } from './uuid.ts';

/** The store's own identity for internal writes (users, scavenge records): passes every ACL. */
export const SYSTEM_CALLER: Principal = Object.freeze({ name: '$system', groups: Object.freeze([SystemRoles.Admins]) });

export interface StoreLimits {
  /** Write requests waiting beyond this are refused with StoreBusyError. */
  maxQueuedRequests: number;
  /** Payload bytes waiting beyond this are refused with StoreBusyError. */
  maxQueuedBytes: number;
  /** Upper bounds for one group commit (a bigger backlog is split over several commits). */
  maxBatchRequests: number;
  maxBatchEvents: number;
  maxBatchBytes: number;
  /** Stream heads and metadata kept in memory. */
  streamCacheSize: number;
  /** How often an idle store looks for commits made by another process. */
  externalPollMs: number;
  /** Most events one filtered read examines, whatever max_search_window asks for (the client pages on). */
  maxSearchWindow: number;
  /** Rows one scavenge step may delete before it yields. */
  scavengeChunkRows: number;
}

export const DEFAULT_STORE_LIMITS: StoreLimits = {
  maxQueuedRequests: 50_000,
  maxQueuedBytes: 512 * 1024 * 1024,
  maxBatchRequests: 5_000,
  maxBatchEvents: 20_000,
  maxBatchBytes: 32 * 1024 * 1024,
  streamCacheSize: 100_000,
  externalPollMs: 500,
  maxSearchWindow: 100_000,
  scavengeChunkRows: 5_000,
};

export interface SqliteEventStoreOptions {
  db: Database;
  logger: Logger;
  /** Unix milliseconds; injectable so `$maxAge` can be tested without waiting. */
  clock?: () => number;
  limits?: Partial<StoreLimits>;
}

interface StreamState {
  readonly id: string;
  /** streams.stream_key; 0 while the stream has no row. */
  key: number;
  /** Last event number written (-1 none); stays the pre-deletion number when soft- or hard-deleted. */
  last: number;
  tombstoned: boolean;
  count: number;
  createdAt: number;
  updatedAt: number;
  /** This stream's metadata (from its `$$` stream), loaded lazily; unused for metastreams. */
  meta: LoadedMetadata | undefined;
  dirty: boolean;
}

interface PendingEvent {
  id: Buffer;
  eventId: string;
  eventType: string;
  isJson: boolean;
  data: Uint8Array;
  metadata: Uint8Array;
}

interface EventRow {
  position: number;
  commit_position: number;
  event_number: number;
  event_id: Buffer;
  event_type: string;
  flags: number;
  data: Buffer;
  metadata: Buffer;
  created: number;
}
interface AllEventRow extends EventRow {
  stream_id: string;
}
interface LightRow {
  position: number;
  commit_position: number;
  stream_id: string;
  event_type: string;
}
interface StreamRow {
  stream_key: number;
  last_event_number: number;
  tombstoned: number;
  event_count: number;
  created_at: number;
  updated_at: number;
}
interface TransactionRow {
  transaction_id: number;
  stream_id: string;
  expected_version: number;
  committed: number;
  first_event_number: number | null;
  last_event_number: number | null;
  prepare_position: number | null;
  commit_position: number | null;
}

type CommitCheck =
  | { decision: 'ok'; current: number; softDeleted: boolean }
  | { decision: 'deleted'; current: number }
  | { decision: 'wrong'; current: number }
  | { decision: 'idempotent'; current: number; first: number; last: number };

interface Written {
  first: number;
  last: number;
  firstPosition: number;
  lastPosition: number;
  commitPosition: number;
}

/** The working state of one group commit; merged into the caches only after COMMIT. */
class WriteBatch {
  readonly now: number;
  readonly startPosition: number;
  lastPosition: number;
  readonly streams = new Map<string, StreamState>();
  readonly events: RecordedEvent[] = [];
  readonly deleted: { streamId: string; hard: boolean }[] = [];
  settings: SystemSettings | undefined;
  constructor(now: number, lastPosition: number) {
    this.now = now;
    this.startPosition = lastPosition;
    this.lastPosition = lastPosition;
  }
}

interface QueuedOp {
  run(batch: WriteBatch): unknown;
  resolve(value: unknown): void;
  reject(err: unknown): void;
  events: number;
  bytes: number;
}

const EMPTY = Buffer.alloc(0);
const EVENT_COLUMNS = 'position, commit_position, event_number, event_id, event_type, flags, data, metadata, created';
const ALL_COLUMNS =
  'e.position, e.commit_position, e.event_number, e.event_id, e.event_type, e.flags, e.data, e.metadata, e.created, s.stream_id';
const ACCESS_DENIED = 'Access denied.';

function failedWrite(result: WriteResult['result'], message: string, currentVersion?: number): WriteResult {
  return {
    result,
    message,
    firstEventNumber: EVENT_NUMBER_INVALID,
    lastEventNumber: EVENT_NUMBER_INVALID,
    preparePosition: EVENT_NUMBER_INVALID,
    commitPosition: EVENT_NUMBER_INVALID,
    ...(currentVersion === undefined ? {} : { currentVersion }),
  };
}

function failedDelete(result: DeleteResult['result'], message: string, currentVersion?: number): DeleteResult {
  return {
    result,
    message,
    preparePosition: EVENT_NUMBER_INVALID,
    commitPosition: EVENT_NUMBER_INVALID,
    ...(currentVersion === undefined ? {} : { currentVersion }),
  };
}

function failedCommit(transactionId: number, result: TransactionCommitResult['result'], message: string): TransactionCommitResult {
  return {
    transactionId,
    result,
    message,
    firstEventNumber: EVENT_NUMBER_INVALID,
    lastEventNumber: EVENT_NUMBER_INVALID,
    preparePosition: EVENT_NUMBER_INVALID,
    commitPosition: EVENT_NUMBER_INVALID,
  };
}

/** Connection settings for eventlog.db on top of openDatabase's WAL + synchronous=FULL. */
export function tuneEventLogConnection(db: Database): void {
  // Bigger page cache: the event-id index takes random inserts.
  db.pragma('cache_size = -65536');
  // Checkpoint every ~64 MiB of WAL instead of 4 MiB: index pages rewritten by many commits reach the
  // database file once per checkpoint (measured ~25% more appends/s); the WAL file is cut back after.
  db.pragma('wal_autocheckpoint = 16384');
  db.pragma('journal_size_limit = 67108864');
}

/** Failure-shaped stream read: no events, next -1, end of stream. */
function failedStreamRead(result: ReadStreamResult['result'], lastCommitPosition: number, lastEventNumber: number, error?: string): ReadStreamResult {
  return { result, events: [], nextEventNumber: -1, lastEventNumber, isEndOfStream: true, lastCommitPosition, ...(error ? { error } : {}) };
}

function validateStreamId(streamId: unknown): asserts streamId is string {
  if (typeof streamId !== 'string' || streamId === '') throw new StoreBadRequestError('Empty stream id.');
  if (streamId === '$$') throw new StoreBadRequestError('Stream id "$$" names the metadata of an empty stream id.');
}

function validateInteger(name: string, value: unknown): asserts value is number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new StoreBadRequestError(`${name} must be an integer, got ${String(value)}.`);
}

function prepareEvents(events: unknown): PendingEvent[] {
  if (!Array.isArray(events)) throw new StoreBadRequestError('Events must be an array.');
  return events.map((e: NewEvent, i) => {
    if (!e || typeof e !== 'object') throw new StoreBadRequestError(`Event ${i} is not an event.`);
    if (typeof e.eventType !== 'string') throw new StoreBadRequestError(`Event ${i} has no event type.`);
    if (!(e.data instanceof Uint8Array)) throw new StoreBadRequestError(`Event ${i} has no data bytes.`);
    if (e.metadata !== undefined && e.metadata !== null && !(e.metadata instanceof Uint8Array)) {
      throw new StoreBadRequestError(`Event ${i} metadata must be bytes.`);
    }
    const id = uuidToBytes(e.eventId);
    return {
      id,
      eventId: e.eventId.toLowerCase(),
      eventType: e.eventType,
      isJson: e.isJson === true,
      data: e.data,
      metadata: e.metadata ?? EMPTY,
    };
  });
}

function bytesOf(events: PendingEvent[]): number {
  let n = 0;
  for (const e of events) n += e.data.byteLength + e.metadata.byteLength + e.eventType.length + 64;
  return n;
}

function systemEvent(eventType: string, data: Buffer | Uint8Array, isJson = true): PendingEvent {
  const eventId = crypto.randomUUID();
  return { id: uuidToBytes(eventId), eventId, eventType, isJson, data, metadata: EMPTY };
}

export class SqliteEventStore implements EventStore {
  status: StoreStatus = 'starting';
  readonly db: Database;
  readonly logger: Logger;
  readonly clock: () => number;
  readonly limits: StoreLimits;

  private readonly sql;
  private readonly cache = new Map<string, StreamState>();
  /** listStreams statements by SQL text (a handful of filter/order combinations). */
  private readonly listStatements = new Map<string, ReturnType<Database['prepare']>>();
  private settings: SystemSettings | undefined;
  private batch: WriteBatch | null = null;
  private readonly queue: QueuedOp[] = [];
  private queuedBytes = 0;
  private flushScheduled = false;
  private idleWaiters: (() => void)[] = [];
  private readonly listeners = new Set<(batch: CommittedBatch) => void>();
  private readonly externalChangeListeners = new Set<() => void>();
  /** Highest position handed out (by this process or another one). */
  private lastPosition: number;
  /** Highest position whose events went to onCommitted listeners. */
  private emittedPosition: number;
  private dataVersion: number;
  private externalEmitScheduled = false;
  private readonly pollTimer: NodeJS.Timeout;
  private readonly scavenger: Scavenger;
  private closePromise: Promise<void> | null = null;
  private closed = false;

  constructor(options: SqliteEventStoreOptions) {
    this.db = options.db;
    this.logger = options.logger;
    this.clock = options.clock ?? Date.now;
    this.limits = { ...DEFAULT_STORE_LIMITS, ...options.limits };
    const db = this.db;
    tuneEventLogConnection(db);
    this.sql = {
      begin: db.prepare('BEGIN IMMEDIATE'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
      dataVersion: db.prepare('PRAGMA data_version').pluck(),
      lastPosition: db.prepare('SELECT last_position FROM log_state WHERE id = 1').pluck(),
      setLastPosition: db.prepare('UPDATE log_state SET last_position = ? WHERE id = 1'),
      streamById: db.prepare(
        'SELECT stream_key, last_event_number, tombstoned, event_count, created_at, updated_at FROM streams WHERE stream_id = ?',
      ),
      insertStream: db.prepare(
        'INSERT INTO streams (stream_id, last_event_number, tombstoned, event_count, created_at, updated_at, category, deleted) VALUES (?, ?, 0, 0, ?, ?, ?, 0)',
      ),
      updateStream: db.prepare(
        'UPDATE streams SET last_event_number = ?, tombstoned = ?, event_count = ?, updated_at = ?, deleted = ? WHERE stream_key = ?',
      ),
      bumpCategory: db.prepare(
        'INSERT INTO stream_categories (category, streams) VALUES (?, 1) ON CONFLICT (category) DO UPDATE SET streams = streams + 1',
      ),
      insertEvent: db.prepare(
        'INSERT INTO events (position, commit_position, stream_key, event_number, event_id, event_type, flags, data, metadata, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      // The index keeps equal ids in rowid (position) order, so LIMIT 1 is the first occurrence;
      // spelling out ORDER BY position makes the lookup twice as slow.
      firstByEventId: db.prepare('SELECT stream_key, event_number FROM events WHERE event_id = ? LIMIT 1'),
      eventIdAt: db.prepare('SELECT event_id FROM events WHERE stream_key = ? AND event_number = ?').pluck(),
      eventAt: db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE stream_key = ? AND event_number = ?`),
      streamForward: db.prepare(
        `SELECT ${EVENT_COLUMNS} FROM events WHERE stream_key = ? AND event_number >= ? AND event_number <= ? ORDER BY event_number LIMIT ?`,
      ),
      streamBackward: db.prepare(
        `SELECT ${EVENT_COLUMNS} FROM events WHERE stream_key = ? AND event_number >= ? AND event_number <= ? ORDER BY event_number DESC LIMIT ?`,
      ),
      firstUnexpired: db
        .prepare('SELECT event_number FROM events WHERE stream_key = ? AND event_number >= ? AND created >= ? ORDER BY event_number LIMIT 1')
        .pluck(),
      allForward: db.prepare(
        `SELECT ${ALL_COLUMNS} FROM events e JOIN streams s ON s.stream_key = e.stream_key WHERE e.position >= ? ORDER BY e.position LIMIT ?`,
      ),
      allBackward: db.prepare(
        `SELECT ${ALL_COLUMNS} FROM events e JOIN streams s ON s.stream_key = e.stream_key WHERE e.position <= ? ORDER BY e.position DESC LIMIT ?`,
      ),
      allRange: db.prepare(
        `SELECT ${ALL_COLUMNS} FROM events e JOIN streams s ON s.stream_key = e.stream_key WHERE e.position > ? AND e.position <= ? ORDER BY e.position LIMIT ?`,
      ),
      allAt: db.prepare(`SELECT ${ALL_COLUMNS} FROM events e JOIN streams s ON s.stream_key = e.stream_key WHERE e.position = ?`),
      lightForward: db.prepare(
        'SELECT e.position, e.commit_position, s.stream_id, e.event_type FROM events e JOIN streams s ON s.stream_key = e.stream_key WHERE e.position >= ? ORDER BY e.position LIMIT ?',
      ),
      lightBackward: db.prepare(
        'SELECT e.position, e.commit_position, s.stream_id, e.event_type FROM events e JOIN streams s ON s.stream_key = e.stream_key WHERE e.position <= ? ORDER BY e.position DESC LIMIT ?',
      ),
      anyAfter: db.prepare('SELECT 1 FROM events WHERE position > ? LIMIT 1').pluck(),
      anyBefore: db.prepare('SELECT 1 FROM events WHERE position < ? LIMIT 1').pluck(),
      transactionSpan: db.prepare(
        'SELECT first_position AS firstPosition, commit_position AS commitPosition FROM committed_transactions WHERE commit_position >= ? ORDER BY commit_position LIMIT 1',
      ),
      insertTransactionSpan: db.prepare('INSERT INTO committed_transactions (commit_position, first_position) VALUES (?, ?)'),
      insertTransaction: db.prepare('INSERT INTO transactions (stream_id, expected_version, created_at) VALUES (?, ?, ?)'),
      transactionById: db.prepare(
        'SELECT transaction_id, stream_id, expected_version, committed, first_event_number, last_event_number, prepare_position, commit_position FROM transactions WHERE transaction_id = ?',
      ),
      nextTransactionSeq: db.prepare('SELECT COALESCE(MAX(seq) + 1, 0) FROM transaction_events WHERE transaction_id = ?').pluck(),
      insertTransactionEvent: db.prepare(
        'INSERT INTO transaction_events (transaction_id, seq, event_id, event_type, flags, data, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      transactionEvents: db.prepare(
        'SELECT event_id, event_type, flags, data, metadata FROM transaction_events WHERE transaction_id = ? ORDER BY seq',
      ),
      markTransactionCommitted: db.prepare(
        'UPDATE transactions SET committed = 1, first_event_number = ?, last_event_number = ?, prepare_position = ?, commit_position = ? WHERE transaction_id = ?',
      ),
      deleteTransactionEvents: db.prepare('DELETE FROM transaction_events WHERE transaction_id = ?'),
      categories: db.prepare('SELECT category, streams FROM stream_categories ORDER BY streams DESC, category LIMIT ?'),
    };
    this.lastPosition = this.sql.lastPosition.get() as number;
    this.emittedPosition = this.lastPosition;
    this.dataVersion = this.sql.dataVersion.get() as number;
    this.scavenger = new Scavenger(this);
    this.pollTimer = setInterval(() => this.pollExternalChanges(), this.limits.externalPollMs);
    this.pollTimer.unref();
  }

  /** Opens the store for client requests (internal writers may run before that). */
  markReady(): void {
    if (this.status === 'starting') this.status = 'ready';
  }

  // ───────────────────────────── writes ─────────────────────────────

  appendToStream(streamId: string, expectedVersion: number, events: NewEvent[], caller: Caller): Promise<WriteResult> {
    let pending: PendingEvent[];
    try {
      validateStreamId(streamId);
      validateInteger('Expected version', expectedVersion);
      pending = prepareEvents(events);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.enqueue((b) => this.execAppend(b, streamId, expectedVersion, pending, caller), pending.length, bytesOf(pending));
  }

  deleteStream(streamId: string, expectedVersion: number, hardDelete: boolean, caller: Caller): Promise<DeleteResult> {
    try {
      validateStreamId(streamId);
      validateInteger('Expected version', expectedVersion);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.enqueue((b) => this.execDelete(b, streamId, expectedVersion, hardDelete === true, caller), 1, 64);
  }

  startTransaction(streamId: string, expectedVersion: number, caller: Caller): Promise<TransactionResult> {
    try {
      validateStreamId(streamId);
      validateInteger('Expected version', expectedVersion);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.enqueue((b): TransactionResult => {
      if (!this.canAccess(streamId, 'write', caller)) return { transactionId: -1, result: 'AccessDenied', message: ACCESS_DENIED };
      const info = this.sql.insertTransaction.run(streamId, expectedVersion, b.now);
      return { transactionId: Number(info.lastInsertRowid), result: 'Success' };
    }, 1, 64);
  }

  transactionWrite(transactionId: number, events: NewEvent[], caller: Caller): Promise<TransactionResult> {
    let pending: PendingEvent[];
    try {
      validateInteger('Transaction id', transactionId);
      pending = prepareEvents(events);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.enqueue((): TransactionResult => {
      const tx = this.sql.transactionById.get(transactionId) as TransactionRow | undefined;
      if (!tx || tx.committed) return { transactionId, result: 'InvalidTransaction', message: `Invalid transaction ${transactionId}.` };
      if (!this.canAccess(tx.stream_id, 'write', caller)) return { transactionId, result: 'AccessDenied', message: ACCESS_DENIED };
      let seq = this.sql.nextTransactionSeq.get(transactionId) as number;
      for (const e of pending) {
        this.sql.insertTransactionEvent.run(transactionId, seq++, e.id, e.eventType, e.isJson ? EventFlags.IsJson : 0, e.data, e.metadata);
      }
      return { transactionId, result: 'Success' };
    }, pending.length, bytesOf(pending));
  }

  commitTransaction(transactionId: number, caller: Caller): Promise<TransactionCommitResult> {
    try {
      validateInteger('Transaction id', transactionId);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.enqueue((b) => this.execCommit(b, transactionId, caller), 1, 64);
  }

  scavenge(caller: Caller): ScavengeResult {
    this.ensureOpen();
    const allowed = caller !== null && (caller.groups.includes(SystemRoles.Admins) || caller.groups.includes(SystemRoles.Ops));
    if (!allowed) return { result: 'Unauthorized' };
    return this.scavenger.start();
  }

  /**
   * Runs `fn` inside the next group commit as the system user (users, scavenge records). Internal
   * callers may write while the store is starting or closing.
   */
  runSystemWrite<T>(fn: (writer: SystemWriter) => T, options: { internal?: boolean } = {}): Promise<T> {
    return this.enqueue(
      (b) => {
        const writer: SystemWriter = {
          now: b.now,
          db: this.db,
          append: (streamId, expectedVersion, events) => this.execAppend(b, streamId, expectedVersion, prepareEvents(events), SYSTEM_CALLER),
          deleteStream: (streamId, expectedVersion, hard) => this.execDelete(b, streamId, expectedVersion, hard, SYSTEM_CALLER),
          streamInfo: (streamId) => {
            const s = this.stream(streamId);
            return { key: s.key, lastEventNumber: s.last, tombstoned: s.tombstoned, eventCount: s.count, metadata: this.metadataOf(streamId) };
          },
          eventsRemoved: (streamId, count) => {
            const s = this.writable(streamId);
            s.count = Math.max(0, s.count - count);
            s.dirty = true;
          },
        };
        return fn(writer);
      },
      1,
      64,
      options.internal === true,
    ) as Promise<T>;
  }

  // ───────────────────────────── reads ─────────────────────────────

  readEvent(streamId: string, eventNumber: number, resolveLinkTos: boolean, caller: Caller): ReadEventResult {
    this.ensureOpen();
    this.syncWithDatabase();
    if (typeof streamId !== 'string' || streamId === '') return { result: 'Error', error: 'Empty stream id.' };
    if (!Number.isSafeInteger(eventNumber) || eventNumber < -1) return { result: 'Error', error: `Invalid event number ${eventNumber}.` };
    if (!this.canAccess(streamId, 'read', caller)) return { result: 'AccessDenied' };
    const found = this.readOne(streamId, eventNumber);
    if (found.result !== 'Success' || !found.record) return { result: found.result, ...(found.emptySuccess ? { event: {} } : {}) };
    if (!resolveLinkTos) return { result: 'Success', event: { event: found.record } };
    const resolved = this.resolve(found.record, caller);
    if (resolved === 'denied') return { result: 'AccessDenied' };
    return { result: 'Success', event: resolved };
  }

  readStreamForward(streamId: string, from: number, maxCount: number, resolveLinkTos: boolean, caller: Caller): ReadStreamResult {
    this.ensureOpen();
    this.syncWithDatabase();
    const lastCommitPosition = this.lastPosition;
    const fail = (result: ReadStreamResult['result'], lastEventNumber = -1, error?: string) => failedStreamRead(result, lastCommitPosition, lastEventNumber, error);
    const invalid = this.validateStreamRead(streamId, maxCount);
    if (invalid) return fail('Error', -1, invalid);
    if (!Number.isSafeInteger(from) || from < 0) return fail('Error', -1, `Invalid from event number ${from}.`);
    if (!this.canAccess(streamId, 'read', caller)) return fail('AccessDenied');
    const last = this.lastNumberOf(streamId);
    if (last === EVENT_NUMBER_DELETED) return fail('StreamDeleted', EVENT_NUMBER_DELETED);
    const metadata = this.metadataOf(streamId);
    if (last === -1 || metadata.truncateBefore === EVENT_NUMBER_DELETED) return fail('NoStream', last);

    const ok = (records: EventRow[], nextEventNumber: number, isEndOfStream: boolean): ReadStreamResult => {
      const events = this.resolveAll(records, streamId, resolveLinkTos, caller);
      if (!events) return fail('AccessDenied');
      return { result: 'Success', events, nextEventNumber, lastEventNumber: last, isEndOfStream, lastCommitPosition };
    };
    const end = Math.min(from + maxCount - 1, EVENT_NUMBER_DELETED - 1);
    const min = minReadableEventNumber(metadata, last);
    if (end < min) return ok([], min, false);
    const start = Math.max(from, min);
    if (start > last) return ok([], last + 1, true);
    const key = this.stream(streamId).key;
    const rows = this.sql.streamForward.all(key, start, end, maxCount) as EventRow[];
    if (metadata.maxAge === undefined) {
      const next = rows.length > 0 ? rows[rows.length - 1].event_number + 1 : Math.min(end + 1, last + 1);
      return ok(rows, next, end >= last);
    }
    const threshold = this.clock() - metadata.maxAge * 1000;
    const fresh = rows.filter((r) => r.created >= threshold);
    if (fresh.length > 0) return ok(fresh, fresh[fresh.length - 1].event_number + 1, end >= last);
    const lastRow = this.sql.eventAt.get(key, last) as EventRow | undefined;
    if (!lastRow || lastRow.created < threshold || last < from) return ok([], last + 1, true);
    // Everything in range expired: point the reader at the first event still young enough.
    const firstFresh = this.sql.firstUnexpired.get(key, start, threshold) as number | undefined;
    return ok([], firstFresh ?? last + 1, firstFresh === undefined);
  }

  readStreamBackward(streamId: string, from: number, maxCount: number, resolveLinkTos: boolean, caller: Caller): ReadStreamResult {
    this.ensureOpen();
    this.syncWithDatabase();
    const lastCommitPosition = this.lastPosition;
    const fail = (result: ReadStreamResult['result'], lastEventNumber = -1, error?: string) => failedStreamRead(result, lastCommitPosition, lastEventNumber, error);
    const invalid = this.validateStreamRead(streamId, maxCount);
    if (invalid) return fail('Error', -1, invalid);
    if (!Number.isSafeInteger(from)) return fail('Error', -1, `Invalid from event number ${from}.`);
    if (!this.canAccess(streamId, 'read', caller)) return fail('AccessDenied');
    const last = this.lastNumberOf(streamId);
    if (last === EVENT_NUMBER_DELETED) return fail('StreamDeleted', EVENT_NUMBER_DELETED);
    const metadata = this.metadataOf(streamId);
    if (last === -1 || metadata.truncateBefore === EVENT_NUMBER_DELETED) return fail('NoStream', last);

    const end = from < 0 ? last : from;
    let start = Math.max(0, end - maxCount + 1);
    let isEndOfStream = false;
    const min = minReadableEventNumber(metadata, last);
    if (end < min) return { result: 'Success', events: [], nextEventNumber: -1, lastEventNumber: last, isEndOfStream: true, lastCommitPosition };
    if (start <= min) {
      isEndOfStream = true;
      start = min;
    }
    let rows = this.sql.streamBackward.all(this.stream(streamId).key, start, end, maxCount) as EventRow[];
    if (metadata.maxAge !== undefined) {
      const threshold = this.clock() - metadata.maxAge * 1000;
      rows = rows.filter((r) => r.created >= threshold);
    }
    isEndOfStream =
      isEndOfStream || start === 0 || (start <= last && (rows.length === 0 || rows[rows.length - 1].event_number !== start));
    const events = this.resolveAll(rows, streamId, resolveLinkTos, caller);
    if (!events) return fail('AccessDenied');
    return {
      result: 'Success',
      events,
      nextEventNumber: isEndOfStream ? -1 : Math.min(start - 1, last),
      lastEventNumber: last,
      isEndOfStream,
      lastCommitPosition,
    };
  }

  readAllForward(from: Position, maxCount: number, resolveLinkTos: boolean, caller: Caller): ReadAllResult {
    return this.readAll('forward', from, maxCount, maxCount, null, resolveLinkTos, caller, false);
  }

  readAllBackward(from: Position, maxCount: number, resolveLinkTos: boolean, caller: Caller): ReadAllResult {
    return this.readAll('backward', from, maxCount, maxCount, null, resolveLinkTos, caller, false);
  }

  filteredReadAllForward(
    from: Position,
    maxCount: number,
    maxSearchWindow: number,
    filter: EventFilter | null,
    resolveLinkTos: boolean,
    caller: Caller,
  ): ReadAllResult {
    return this.readAll('forward', from, maxCount, maxSearchWindow, filter, resolveLinkTos, caller, true);
  }

  filteredReadAllBackward(
    from: Position,
    maxCount: number,
    maxSearchWindow: number,
    filter: EventFilter | null,
    resolveLinkTos: boolean,
    caller: Caller,
  ): ReadAllResult {
    return this.readAll('backward', from, maxCount, maxSearchWindow, filter, resolveLinkTos, caller, true);
  }

  checkReadAccess(streamId: string, caller: Caller): boolean {
    this.ensureOpen();
    this.syncWithDatabase();
    return this.canAccess(streamId === '' ? SystemStreams.All : streamId, 'read', caller);
  }

  lastEventNumber(streamId: string): number {
    this.ensureOpen();
    this.syncWithDatabase();
    return this.lastNumberOf(streamId);
  }

  lastCommitPosition(): number {
    this.ensureOpen();
    this.syncWithDatabase();
    return this.lastPosition;
  }

  getStreamMetadata(streamId: string): StreamMetadata {
    this.ensureOpen();
    this.syncWithDatabase();
    return this.metadataOf(streamId);
  }

  resolveLink(link: RecordedEvent, caller: Caller): ResolvedIndexedEvent {
    this.ensureOpen();
    this.syncWithDatabase();
    const resolved = this.resolve(link, caller);
    return resolved === 'denied' ? { link } : resolved;
  }

  onCommitted(listener: (batch: CommittedBatch) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Picks up commits another process (the admin CLI) made since this store last looked. */
  checkForOutsideChanges(): void {
    this.ensureOpen();
    if (!this.batch) this.syncWithDatabase();
  }

  /** Called when another process committed to the database (caches were dropped). */
  onExternalChange(listener: () => void): () => void {
    this.externalChangeListeners.add(listener);
    return () => this.externalChangeListeners.delete(listener);
  }

  /** SQLite's plan for the query listStreams runs with these options (the browse tests check it uses an index). */
  explainListStreams(options: StreamListing): string {
    const { sql, params } = listStreamsQuery(options);
    return (this.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[]).map((r) => r.detail).join('; ');
  }

  listStreams(options: StreamListing): StreamSummary[] {
    this.ensureOpen();
    this.syncWithDatabase();
    const { sql, params } = listStreamsQuery(options);
    let statement = this.listStatements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.listStatements.set(sql, statement);
    }
    const rows = statement.all(params) as (StreamRow & { stream_id: string; deleted: number })[];
    return rows.map((r) => ({
      streamId: r.stream_id,
      lastEventNumber: r.last_event_number,
      eventCount: r.event_count,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
      deleted: r.deleted === 2 ? 'hard' : r.deleted === 1 ? 'soft' : 'no',
    }));
  }

  streamCategories(limit: number): { category: string; streams: number }[] {
    this.ensureOpen();
    this.syncWithDatabase();
    return this.sql.categories.all(Math.max(0, Math.min(Math.trunc(limit) || 0, 10_000))) as { category: string; streams: number }[];
  }

  close(): Promise<void> {
    this.closePromise ??= (async () => {
      this.status = 'closing';
      await this.scavenger.stop();
      await this.whenIdle();
      clearInterval(this.pollTimer);
      this.closed = true;
      this.db.close();
    })();
    return this.closePromise;
  }

  // ──────────────────────── group commit machinery ────────────────────────

  private enqueue<T>(run: (b: WriteBatch) => T, events: number, bytes: number, internal = false): Promise<T> {
    if (this.closed || (!internal && this.status !== 'ready')) {
      return Promise.reject(new StoreNotReadyError(this.closed || this.status === 'closing' ? 'The event store is closing.' : 'The event store is starting.'));
    }
    if (!internal && (this.queue.length >= this.limits.maxQueuedRequests || this.queuedBytes + bytes > this.limits.maxQueuedBytes)) {
      return Promise.reject(new StoreBusyError('The event store write queue is full.'));
    }
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run, resolve: resolve as (v: unknown) => void, reject, events, bytes });
      this.queuedBytes += bytes;
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        // setImmediate: everything that arrives in this turn of the event loop joins the same commit.
        setImmediate(() => this.flush());
      }
    });
  }

  /** Resolves once the write queue is empty. */
  whenIdle(): Promise<void> {
    if (this.queue.length === 0 && !this.flushScheduled) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private flush(): void {
    this.flushScheduled = false;
    const ops = this.takeGroup();
    if (ops.length > 0) this.runGroup(ops);
    if (this.queue.length > 0) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    } else {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  private takeGroup(): QueuedOp[] {
    const { maxBatchRequests, maxBatchEvents, maxBatchBytes } = this.limits;
    let n = 0;
    let events = 0;
    let bytes = 0;
    while (n < this.queue.length && n < maxBatchRequests) {
      const op = this.queue[n];
      if (n > 0 && (events + op.events > maxBatchEvents || bytes + op.bytes > maxBatchBytes)) break;
      events += op.events;
      bytes += op.bytes;
      n++;
    }
    this.queuedBytes -= bytes;
    return this.queue.splice(0, n);
  }

  /**
   * Runs requests in one transaction. A request that throws (a bug, or an internal writer refusing)
   * is rejected alone: the transaction is rolled back and the others run again without it. A failure
   * outside the requests (BEGIN, COMMIT: locked or broken database) fails the whole group.
   */
  private runGroup(ops: QueuedOp[]): void {
    const results: unknown[] = new Array(ops.length);
    let failedIndex = -1;
    try {
      this.inTransaction((b) => {
        for (let i = 0; i < ops.length; i++) {
          failedIndex = i;
          results[i] = ops[i].run(b);
        }
        failedIndex = -1;
      });
    } catch (err) {
      // The database itself failing (disk full, I/O error, read-only file) is no request's fault: retrying
      // the others one by one would repeat the failing transaction for each of them on the event loop.
      if (failedIndex < 0 || isDatabaseFailure(err)) {
        this.logger.error({ err, requests: ops.length }, 'a group commit failed');
        for (const op of ops) op.reject(err);
        return;
      }
      ops[failedIndex].reject(err);
      const rest = ops.filter((_, i) => i !== failedIndex);
      if (rest.length > 0) this.runGroup(rest);
      return;
    }
    for (let i = 0; i < ops.length; i++) ops[i].resolve(results[i]);
  }

  private inTransaction(fn: (b: WriteBatch) => void): void {
    if (this.closed) throw new StoreNotReadyError('The event store is closed.');
    this.sql.begin.run();
    let batch: WriteBatch;
    try {
      this.syncWithDatabase();
      batch = new WriteBatch(this.clock(), this.lastPosition);
      this.batch = batch;
      fn(batch);
      this.persist(batch);
      this.sql.commit.run();
    } catch (err) {
      this.batch = null;
      if (this.db.inTransaction) this.sql.rollback.run();
      throw err;
    }
    this.batch = null;
    this.applyCommitted(batch);
  }

  private persist(b: WriteBatch): void {
    for (const s of b.streams.values()) {
      if (!s.dirty || s.key === 0) continue;
      const deleted = s.tombstoned ? 2 : !isMetastream(s.id) && this.loadedMetadataOf(s).metadata.truncateBefore === EVENT_NUMBER_DELETED ? 1 : 0;
      this.sql.updateStream.run(s.last, s.tombstoned ? 1 : 0, s.count, s.updatedAt, deleted, s.key);
    }
    if (b.lastPosition !== b.startPosition) this.sql.setLastPosition.run(b.lastPosition);
  }

  private applyCommitted(b: WriteBatch): void {
    for (const [id, s] of b.streams) {
      s.dirty = false;
      this.cache.delete(id);
      this.cache.set(id, s);
    }
    this.evictStreams();
    if (b.settings !== undefined) this.settings = b.settings;
    this.lastPosition = b.lastPosition;
    // Commits another process made before ours go out first, so listeners see `$all` order.
    if (b.startPosition > this.emittedPosition) this.emitStored(this.emittedPosition, b.startPosition);
    this.emittedPosition = b.lastPosition;
    if (b.events.length > 0 || b.deleted.length > 0) this.emit({ events: b.events, deleted: b.deleted });
  }

  private emit(batch: CommittedBatch): void {
    for (const listener of this.listeners) {
      try {
        listener(batch);
      } catch (err) {
        this.logger.error({ err }, 'an onCommitted listener threw');
      }
    }
  }

  /** Emits stored events in (from, to] (commits made by another process), in chunks. */
  private emitStored(from: number, to: number): void {
    let cursor = from;
    while (cursor < to) {
      const rows = this.sql.allRange.all(cursor, to, 1000) as AllEventRow[];
      if (rows.length === 0) break;
      const events = rows.map((r) => this.toRecorded(r, r.stream_id));
      const deleted: { streamId: string; hard: boolean }[] = [];
      for (const e of events) {
        if (e.eventType === SystemEventTypes.StreamDeleted && e.eventNumber === EVENT_NUMBER_DELETED) {
          deleted.push({ streamId: e.streamId, hard: true });
        } else if (e.eventType === SystemEventTypes.Metadata && isMetastream(e.streamId)) {
          if (parseStreamMetadata(e.isJson, e.data).metadata.truncateBefore === EVENT_NUMBER_DELETED) {
            deleted.push({ streamId: originalStreamOf(e.streamId), hard: false });
          }
        }
      }
      this.emit({ events, deleted });
      cursor = rows[rows.length - 1].position;
    }
  }

  /** Notices commits by another process: drops caches and catches up the log head. */
  private syncWithDatabase(): void {
    const version = this.sql.dataVersion.get() as number;
    if (version === this.dataVersion) return;
    this.dataVersion = version;
    this.cache.clear();
    this.settings = undefined;
    const last = this.sql.lastPosition.get() as number;
    if (last > this.lastPosition) this.lastPosition = last;
    for (const listener of this.externalChangeListeners) {
      try {
        listener();
      } catch (err) {
        this.logger.error({ err }, 'an external-change listener threw');
      }
    }
    if (!this.externalEmitScheduled && this.lastPosition > this.emittedPosition) {
      this.externalEmitScheduled = true;
      setImmediate(() => {
        this.externalEmitScheduled = false;
        if (this.closed || this.batch) return;
        if (this.lastPosition > this.emittedPosition) {
          const to = this.lastPosition;
          this.emitStored(this.emittedPosition, to);
          this.emittedPosition = to;
        }
      });
    }
  }

  private pollExternalChanges(): void {
    if (this.closed || this.batch) return;
    try {
      this.syncWithDatabase();
    } catch (err) {
      this.logger.warn({ err }, 'checking the event log for outside changes failed');
    }
  }

  private ensureOpen(): void {
    if (this.closed) throw new StoreNotReadyError('The event store is closed.');
  }

  // ───────────────────────────── stream state ─────────────────────────────

  private stream(id: string): StreamState {
    const b = this.batch;
    if (b) {
      const s = b.streams.get(id);
      if (s) return s;
    }
    let s = this.cache.get(id);
    if (!s) {
      s = this.loadStream(id);
      this.cache.set(id, s);
      if (!b) this.evictStreams();
    }
    return s;
  }

  /** The batch's working copy of a stream, created on first use. */
  private writable(id: string): StreamState {
    const b = this.batch;
    if (!b) throw new Error('writable() outside a group commit');
    let s = b.streams.get(id);
    if (!s) {
      s = { ...this.stream(id) };
      b.streams.set(id, s);
    }
    return s;
  }

  private loadStream(id: string): StreamState {
    const row = this.sql.streamById.get(id) as StreamRow | undefined;
    if (!row) return { id, key: 0, last: -1, tombstoned: false, count: 0, createdAt: 0, updatedAt: 0, meta: undefined, dirty: false };
    return {
      id,
      key: row.stream_key,
      last: row.last_event_number,
      tombstoned: row.tombstoned === 1,
      count: row.event_count,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      meta: undefined,
      dirty: false,
    };
  }

  private evictStreams(): void {
    const max = this.limits.streamCacheSize;
    if (this.cache.size <= max) return;
    let excess = this.cache.size - max;
    for (const id of this.cache.keys()) {
      if (excess-- <= 0) break;
      this.cache.delete(id);
    }
  }

  /** Last event number as EventStoreDB's index reports it: DELETED for hard-deleted streams and their metastreams. */
  private lastNumberOf(id: string): number {
    if (isMetastream(id) && this.stream(originalStreamOf(id)).tombstoned) return EVENT_NUMBER_DELETED;
    const s = this.stream(id);
    return s.tombstoned ? EVENT_NUMBER_DELETED : s.last;
  }

  private metadataOf(id: string): StreamMetadata {
    if (isMetastream(id)) return METASTREAM_METADATA;
    return this.loadedMetadataOf(this.stream(id)).metadata;
  }

  private loadedMetadataOf(s: StreamState): LoadedMetadata {
    if (s.meta === undefined) s.meta = this.readMetadataFromLog(s);
    return s.meta;
  }

  private readMetadataFromLog(s: StreamState): LoadedMetadata {
    if (s.tombstoned) return EMPTY_METADATA;
    const meta = this.stream(metastreamOf(s.id));
    if (meta.key === 0 || meta.last < 0) return EMPTY_METADATA;
    const row = this.sql.eventAt.get(meta.key, meta.last) as EventRow | undefined;
    if (!row) return EMPTY_METADATA;
    return parseStreamMetadata((row.flags & EventFlags.IsJson) !== 0, row.data);
  }

  private isSoftDeleted(id: string): boolean {
    return !isMetastream(id) && this.metadataOf(id).truncateBefore === EVENT_NUMBER_DELETED;
  }

  private systemSettings(): SystemSettings {
    if (this.batch?.settings !== undefined) return this.batch.settings;
    if (this.settings === undefined) {
      const s = this.stream(SystemStreams.Settings);
      const row = s.key !== 0 && s.last >= 0 && !s.tombstoned ? (this.sql.eventAt.get(s.key, s.last) as EventRow | undefined) : undefined;
      this.settings = row ? parseSystemSettings((row.flags & EventFlags.IsJson) !== 0, row.data) : {};
    }
    return this.settings;
  }

  private canAccess(streamId: string, access: AccessKind, caller: Caller): boolean {
    if (isMetastream(streamId)) {
      const original = originalStreamOf(streamId);
      if (access === 'read') return this.canAccess(original, 'metaRead', caller);
      if (access === 'write') return this.canAccess(original, 'metaWrite', caller);
      return false;
    }
    if ((access === 'write' || access === 'delete') && streamId === SystemStreams.All) return false;
    if (caller === SYSTEM_CALLER) return true;
    return aclAllows(streamId, access, caller, this.metadataOf(streamId).acl, this.systemSettings());
  }

  // ───────────────────────────── write operations ─────────────────────────────

  /** EventStoreDB's IndexWriter.CheckCommit: expected version, idempotency by event id, deletion. */
  private checkCommit(streamId: string, expected: number, ids: Buffer[]): CommitCheck {
    const current = this.lastNumberOf(streamId);
    if (current === EVENT_NUMBER_DELETED) return { decision: 'deleted', current };
    if (expected === ExpectedVersion.StreamExists) {
      if (this.isSoftDeleted(streamId)) return { decision: 'deleted', current };
      if (current < 0 && this.lastNumberOf(metastreamOf(streamId)) < 0) return { decision: 'wrong', current };
    }
    const key = this.stream(streamId).key;
    if (expected === ExpectedVersion.Any || expected === ExpectedVersion.StreamExists) {
      if (ids.length === 0) return { decision: 'ok', current, softDeleted: this.isSoftDeleted(streamId) };
      let first = -1;
      let last = -1;
      for (let i = 0; i < ids.length; i++) {
        const hit = key === 0 ? undefined : (this.sql.firstByEventId.get(ids[i]) as { stream_key: number; event_number: number } | undefined);
        if (!hit || hit.stream_key !== key) {
          // First id unknown: a new write. A later one unknown: "corrupted idempotency".
          return i === 0 ? { decision: 'ok', current, softDeleted: this.isSoftDeleted(streamId) } : { decision: 'wrong', current };
        }
        if (i === 0) first = hit.event_number;
        last = hit.event_number;
      }
      return { decision: 'idempotent', current, first, last };
    }
    if (expected < current) {
      let eventNumber = expected;
      for (const id of ids) {
        eventNumber += 1;
        const stored = key === 0 ? undefined : (this.sql.eventIdAt.get(key, eventNumber) as Buffer | undefined);
        if (stored && stored.equals(id)) continue;
        if (eventNumber !== expected + 1) return { decision: 'wrong', current };
        if (expected === ExpectedVersion.NoStream && this.isSoftDeleted(streamId)) return { decision: 'ok', current, softDeleted: true };
        return { decision: 'wrong', current };
      }
      if (eventNumber === expected) return { decision: 'wrong', current };
      return { decision: 'idempotent', current, first: expected + 1, last: eventNumber };
    }
    if (expected > current) return { decision: 'wrong', current };
    return { decision: 'ok', current, softDeleted: this.isSoftDeleted(streamId) };
  }

  private execAppend(b: WriteBatch, streamId: string, expected: number, events: PendingEvent[], caller: Caller): WriteResult {
    if (!this.canAccess(streamId, 'write', caller)) return failedWrite('AccessDenied', ACCESS_DENIED);
    const check = this.checkCommit(
      streamId,
      expected,
      events.map((e) => e.id),
    );
    switch (check.decision) {
      case 'deleted':
        return failedWrite('StreamDeleted', 'Stream is deleted.', check.current);
      case 'wrong':
        return failedWrite('WrongExpectedVersion', 'Wrong expected version.', check.current);
      case 'idempotent': {
        const row = this.sql.eventAt.get(this.stream(streamId).key, check.last) as EventRow | undefined;
        return {
          result: 'Success',
          firstEventNumber: check.first,
          lastEventNumber: check.last,
          preparePosition: row ? row.position : -1,
          commitPosition: row ? row.commit_position : -1,
        };
      }
    }
    const written = this.writeWithSideEffects(b, streamId, check.current, check.softDeleted, events, false);
    if (!written) {
      return { result: 'Success', firstEventNumber: check.current + 1, lastEventNumber: check.current, preparePosition: -1, commitPosition: -1 };
    }
    return {
      result: 'Success',
      firstEventNumber: written.first,
      lastEventNumber: written.last,
      preparePosition: written.lastPosition,
      commitPosition: written.commitPosition,
    };
  }

  /** Writes events after a successful check, plus the soft-undelete metadata EventStoreDB writes. */
  private writeWithSideEffects(
    b: WriteBatch,
    streamId: string,
    current: number,
    softDeleted: boolean,
    events: PendingEvent[],
    transactional: boolean,
  ): Written | null {
    const undeleteFromMetastream = isMetastream(streamId) && this.isSoftDeleted(originalStreamOf(streamId));
    const written = events.length > 0 ? this.writeEvents(b, streamId, current, events, transactional) : null;
    if (softDeleted) this.softUndelete(b, streamId, current + 1);
    if (undeleteFromMetastream) {
      const original = originalStreamOf(streamId);
      this.softUndelete(b, original, this.stream(original).last + 1);
    }
    return written;
  }

  private writeEvents(b: WriteBatch, streamId: string, current: number, events: PendingEvent[], transactional: boolean): Written {
    const s = this.writable(streamId);
    this.ensureRow(b, s);
    const n = events.length;
    const first = current + 1;
    const firstPosition = b.lastPosition + 1;
    const stride = transactional ? 2 : 1;
    const commit = transactional ? firstPosition + 2 * n - 1 : 0;
    let p = firstPosition;
    for (let i = 0; i < n; i++) {
      const e = events[i];
      p = firstPosition + i * stride;
      const c = transactional ? commit : p;
      this.sql.insertEvent.run(p, c, s.key, first + i, e.id, e.eventType, e.isJson ? EventFlags.IsJson : 0, e.data, e.metadata, b.now);
      b.events.push({
        streamId,
        eventNumber: first + i,
        eventId: e.eventId,
        eventType: e.eventType,
        isJson: e.isJson,
        data: e.data,
        metadata: e.metadata,
        created: b.now,
        commitPosition: c,
        preparePosition: p,
      });
    }
    if (transactional) this.sql.insertTransactionSpan.run(commit, firstPosition);
    b.lastPosition = transactional ? commit : p;
    s.last = first + n - 1;
    s.count += n;
    s.updatedAt = b.now;
    s.dirty = true;
    const lastEvent = events[n - 1];
    if (isMetastream(streamId)) {
      const original = this.writable(originalStreamOf(streamId));
      original.meta = parseStreamMetadata(lastEvent.isJson, lastEvent.data);
      if (original.key !== 0) original.dirty = true;
      // `$tb` = deleted is a soft delete, whether DeleteStream or a client wrote it.
      if (original.meta.metadata.truncateBefore === EVENT_NUMBER_DELETED) b.deleted.push({ streamId: original.id, hard: false });
    } else if (streamId === SystemStreams.Settings) {
      b.settings = parseSystemSettings(lastEvent.isJson, lastEvent.data);
    }
    return { first, last: s.last, firstPosition, lastPosition: p, commitPosition: transactional ? commit : p };
  }

  private ensureRow(b: WriteBatch, s: StreamState): void {
    if (s.key !== 0) return;
    const category = categoryOf(s.id);
    const info = this.sql.insertStream.run(s.id, s.last, b.now, b.now, category);
    s.key = Number(info.lastInsertRowid);
    s.createdAt = b.now;
    s.updatedAt = b.now;
    s.dirty = true;
    if (category) this.sql.bumpCategory.run(category);
  }

  /** Recreates a soft-deleted stream: its metadata document again, with `$tb` = the first new number. */
  private softUndelete(b: WriteBatch, streamId: string, recreateFrom: number): void {
    const loaded = this.loadedMetadataOf(this.stream(streamId));
    if (!loaded.doc) return;
    const meta = metastreamOf(streamId);
    const doc = serializeMetadataDocument({ ...loaded.doc, $tb: recreateFrom });
    this.writeEvents(b, meta, this.lastNumberOf(meta), [systemEvent(SystemEventTypes.Metadata, doc)], false);
  }

  private execDelete(b: WriteBatch, streamId: string, expected: number, hard: boolean, caller: Caller): DeleteResult {
    if (!this.canAccess(streamId, 'delete', caller)) return failedDelete('AccessDenied', ACCESS_DENIED);
    const check = this.checkCommit(streamId, expected, [crypto.randomBytes(16)]);
    if (check.decision === 'deleted') return failedDelete('StreamDeleted', 'Stream is deleted.', check.current);
    if (check.decision !== 'ok') return failedDelete('WrongExpectedVersion', 'Wrong expected version.', check.current);
    if (hard) {
      const s = this.writable(streamId);
      this.ensureRow(b, s);
      const p = b.lastPosition + 1;
      const tombstone = systemEvent(SystemEventTypes.StreamDeleted, EMPTY, false);
      this.sql.insertEvent.run(p, p, s.key, EVENT_NUMBER_DELETED, tombstone.id, tombstone.eventType, 0, EMPTY, EMPTY, b.now);
      b.lastPosition = p;
      b.events.push({
        streamId,
        eventNumber: EVENT_NUMBER_DELETED,
        eventId: tombstone.eventId,
        eventType: tombstone.eventType,
        isJson: false,
        data: EMPTY,
        metadata: EMPTY,
        created: b.now,
        commitPosition: p,
        preparePosition: p,
      });
      s.tombstoned = true;
      s.meta = EMPTY_METADATA;
      s.count += 1;
      s.updatedAt = b.now;
      s.dirty = true;
      b.deleted.push({ streamId, hard: true });
      return { result: 'Success', preparePosition: p, commitPosition: p };
    }
    const meta = metastreamOf(streamId);
    // EventStoreDB 20+: soft-deleting a stream that never existed (nor its metadata) is a wrong expected version.
    if (this.stream(streamId).last < 0 && this.lastNumberOf(meta) < 0) return failedDelete('WrongExpectedVersion', 'Wrong expected version.', -1);
    const written = this.writeEvents(b, meta, this.lastNumberOf(meta), [systemEvent(SystemEventTypes.Metadata, SOFT_DELETE_METADATA)], false);
    return { result: 'Success', preparePosition: written.lastPosition, commitPosition: written.commitPosition };
  }

  private execCommit(b: WriteBatch, transactionId: number, caller: Caller): TransactionCommitResult {
    const tx = this.sql.transactionById.get(transactionId) as TransactionRow | undefined;
    if (!tx) return failedCommit(transactionId, 'InvalidTransaction', `Invalid transaction ${transactionId}.`);
    if (tx.committed) {
      // A retried commit (the first answer was lost): the same answer again.
      return {
        transactionId,
        result: 'Success',
        firstEventNumber: tx.first_event_number ?? EVENT_NUMBER_INVALID,
        lastEventNumber: tx.last_event_number ?? EVENT_NUMBER_INVALID,
        preparePosition: tx.prepare_position ?? -1,
        commitPosition: tx.commit_position ?? -1,
      };
    }
    if (!this.canAccess(tx.stream_id, 'write', caller)) return failedCommit(transactionId, 'AccessDenied', ACCESS_DENIED);
    const rows = this.sql.transactionEvents.all(transactionId) as { event_id: Buffer; event_type: string; flags: number; data: Buffer; metadata: Buffer }[];
    const events: PendingEvent[] = rows.map((r) => ({
      id: r.event_id,
      eventId: bytesToUuid(r.event_id),
      eventType: r.event_type,
      isJson: (r.flags & EventFlags.IsJson) !== 0,
      data: r.data,
      metadata: r.metadata,
    }));
    const check = this.checkCommit(
      tx.stream_id,
      tx.expected_version,
      events.map((e) => e.id),
    );
    let result: TransactionCommitResult;
    switch (check.decision) {
      case 'deleted':
        return failedCommit(transactionId, 'StreamDeleted', 'Stream is deleted.');
      case 'wrong':
        return failedCommit(transactionId, 'WrongExpectedVersion', 'Wrong expected version.');
      case 'idempotent': {
        const row = this.sql.eventAt.get(this.stream(tx.stream_id).key, check.last) as EventRow | undefined;
        result = {
          transactionId,
          result: 'Success',
          firstEventNumber: check.first,
          lastEventNumber: check.last,
          preparePosition: row ? row.position : -1,
          commitPosition: row ? row.commit_position : -1,
        };
        break;
      }
      case 'ok': {
        const written = this.writeWithSideEffects(b, tx.stream_id, check.current, check.softDeleted, events, true);
        result = written
          ? {
              transactionId,
              result: 'Success',
              firstEventNumber: written.first,
              lastEventNumber: written.last,
              preparePosition: written.firstPosition,
              commitPosition: written.commitPosition,
            }
          : { transactionId, result: 'Success', firstEventNumber: check.current + 1, lastEventNumber: check.current, preparePosition: -1, commitPosition: -1 };
        break;
      }
    }
    this.sql.markTransactionCommitted.run(result.firstEventNumber, result.lastEventNumber, result.preparePosition, result.commitPosition, transactionId);
    this.sql.deleteTransactionEvents.run(transactionId);
    return result;
  }

  // ───────────────────────────── read helpers ─────────────────────────────

  private validateStreamRead(streamId: string, maxCount: number): string | null {
    if (typeof streamId !== 'string' || streamId === '') return 'Empty stream id.';
    if (!Number.isSafeInteger(maxCount)) return `Invalid max count ${maxCount}.`;
    if (maxCount > MAX_READ_COUNT) return `Read size too big, should be less than ${MAX_READ_COUNT} items`;
    if (maxCount <= 0) return `Invalid max count ${maxCount}, should be positive.`;
    return null;
  }

  /** ReadEvent without the access check: EventStoreDB's IndexReader.ReadEvent. */
  private readOne(streamId: string, eventNumber: number): { result: ReadEventResult['result']; record?: RecordedEvent; emptySuccess?: boolean } {
    const last = this.lastNumberOf(streamId);
    if (last === EVENT_NUMBER_DELETED) return { result: 'StreamDeleted' };
    const metadata = this.metadataOf(streamId);
    if (last === -1 || metadata.truncateBefore === EVENT_NUMBER_DELETED) {
      if (isMetastream(streamId) && eventNumber === -1) {
        // `$$X` with no metadata yet but X exists: success with an empty event ("no metadata").
        const originalLast = this.lastNumberOf(originalStreamOf(streamId));
        if (originalLast !== -1 && originalLast !== EVENT_NUMBER_DELETED) return { result: 'Success', emptySuccess: true };
      }
      return { result: 'NoStream' };
    }
    const n = eventNumber === -1 ? last : eventNumber;
    if (n < minReadableEventNumber(metadata, last) || n > last) return { result: 'NotFound' };
    const row = this.sql.eventAt.get(this.stream(streamId).key, n) as EventRow | undefined;
    if (!row) return { result: 'NotFound' };
    if (metadata.maxAge !== undefined && row.created < this.clock() - metadata.maxAge * 1000) return { result: 'NotFound' };
    return { result: 'Success', record: this.toRecorded(row, streamId) };
  }

  private toRecorded(row: EventRow, streamId: string): RecordedEvent {
    return {
      streamId,
      eventNumber: row.event_number,
      eventId: bytesToUuid(row.event_id),
      eventType: row.event_type,
      isJson: (row.flags & EventFlags.IsJson) !== 0,
      data: row.data,
      metadata: row.metadata,
      created: row.created,
      commitPosition: row.commit_position,
      preparePosition: row.position,
    };
  }

  /**
   * Resolves a `$>` link: `N@stream`. A payload that does not parse stays an ordinary event; a target
   * the caller may not read makes the whole read AccessDenied (EventStoreDB's ResolveLinkToEvent).
   */
  private resolve(record: RecordedEvent, caller: Caller): ResolvedIndexedEvent | 'denied' {
    if (record.eventType !== LINK_EVENT_TYPE) return { event: record };
    const parsed = parseLink(record.data);
    if (parsed.kind === 'not-a-link') return { event: record };
    if (parsed.kind === 'broken') return { link: record };
    if (!this.canAccess(parsed.streamId, 'read', caller)) return 'denied';
    const found = this.readOne(parsed.streamId, parsed.eventNumber);
    return found.result === 'Success' && found.record ? { event: found.record, link: record } : { link: record };
  }

  private resolveAll(rows: EventRow[], streamId: string, resolveLinkTos: boolean, caller: Caller): ResolvedIndexedEvent[] | null {
    const out: ResolvedIndexedEvent[] = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const record = this.toRecorded(rows[i], streamId);
      if (!resolveLinkTos) {
        out[i] = { event: record };
        continue;
      }
      const resolved = this.resolve(record, caller);
      if (resolved === 'denied') return null;
      out[i] = resolved;
    }
    return out;
  }

  private transactionSpan(c: number): CommittedTransactionSpan | undefined {
    return this.sql.transactionSpan.get(c) as CommittedTransactionSpan | undefined;
  }

  private readAll(
    direction: 'forward' | 'backward',
    from: Position,
    maxCount: number,
    maxSearchWindow: number,
    filter: EventFilter | null,
    resolveLinkTos: boolean,
    caller: Caller,
    filtered: boolean,
  ): ReadAllResult {
    this.ensureOpen();
    this.syncWithDatabase();
    const head = position(this.lastPosition + 1, 0);
    let pos = from;
    const fail = (result: ReadAllResult['result'], error?: string): ReadAllResult => ({
      result,
      position: pos,
      events: [],
      nextPosition: position(-1, -1),
      isEndOfStream: false,
      ...(error ? { error } : {}),
    });
    if (!from || !Number.isSafeInteger(from.commitPosition) || !Number.isSafeInteger(from.preparePosition)) {
      return fail('Error', 'Invalid position.');
    }
    if (!Number.isSafeInteger(maxCount) || maxCount > MAX_READ_COUNT) return fail('Error', `Read size too big, should be less than ${MAX_READ_COUNT} items`);
    if (maxCount <= 0) return fail('Error', `Invalid max count ${maxCount}, should be positive.`);
    if (from.commitPosition === -1 && from.preparePosition === -1) pos = head;
    if (pos.commitPosition < 0 || pos.preparePosition < 0) return fail('Error', 'Invalid position.');
    if (!this.canAccess(SystemStreams.All, 'read', caller)) return fail('AccessDenied');
    let predicate: EventPredicate | null = null;
    if (filtered) {
      try {
        predicate = compileEventFilter(filter);
      } catch (err) {
        return fail('Error', (err as Error).message);
      }
    }
    const span = this.transactionSpan(pos.commitPosition);
    const forward = direction === 'forward';
    const startKey = forward
      ? forwardStartKey(pos.commitPosition, pos.preparePosition, span)
      : backwardEndKey(pos.commitPosition, pos.preparePosition, span);

    let rows: AllEventRow[];
    let lastExamined: { position: number; commit_position: number } | undefined;
    let reachedEnd: boolean;
    if (!predicate) {
      const fetched = (forward ? this.sql.allForward : this.sql.allBackward).all(startKey, maxCount + 1) as AllEventRow[];
      reachedEnd = fetched.length <= maxCount;
      rows = reachedEnd ? fetched : fetched.slice(0, maxCount);
      lastExamined = rows[rows.length - 1];
    } else {
      const window = Math.min(Number.isSafeInteger(maxSearchWindow) && maxSearchWindow > 0 ? maxSearchWindow : maxCount, this.limits.maxSearchWindow);
      const matches: number[] = [];
      let examined = 0;
      let key = startKey;
      reachedEnd = false;
      while (examined < window && matches.length < maxCount) {
        const want = Math.min(window - examined, MAX_READ_COUNT);
        const chunk = (forward ? this.sql.lightForward : this.sql.lightBackward).all(key, want) as LightRow[];
        for (const row of chunk) {
          examined++;
          lastExamined = row;
          if (predicate(row.stream_id, row.event_type)) {
            matches.push(row.position);
            if (matches.length === maxCount) break;
          }
        }
        if (chunk.length < want && (matches.length < maxCount || lastExamined === chunk[chunk.length - 1])) {
          reachedEnd = true;
          break;
        }
        if (lastExamined) key = forward ? lastExamined.position + 1 : lastExamined.position - 1;
      }
      if (!reachedEnd) {
        reachedEnd = lastExamined
          ? !(forward ? this.sql.anyAfter.get(lastExamined.position) : this.sql.anyBefore.get(lastExamined.position))
          : true;
      }
      rows = matches.map((p) => this.sql.allAt.get(p) as AllEventRow);
    }

    const events: ResolvedEvent[] = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      const record = this.toRecorded(row, row.stream_id);
      let entry: ResolvedIndexedEvent = { event: record };
      if (resolveLinkTos) {
        const resolved = this.resolve(record, caller);
        if (resolved === 'denied') return fail('AccessDenied');
        entry = resolved;
      }
      events[i] = { ...entry, commitPosition: row.commit_position, preparePosition: row.position };
    }

    let nextPosition: Position;
    if (lastExamined) {
      nextPosition = forward
        ? forwardCursorAfter(lastExamined.commit_position, lastExamined.position)
        : position(lastExamined.commit_position, lastExamined.position);
    } else if (forward) {
      // Nothing left: the head of the log (rows past the requested position may have been scavenged).
      nextPosition = comparePositions(pos, head) < 0 ? head : pos;
    } else {
      nextPosition = pos;
    }
    return { result: 'Success', position: pos, events, nextPosition, isEndOfStream: reachedEnd };
  }
}

/** The smallest string greater than every string starting with `prefix`. */
function prefixUpperBound(prefix: string): string {
  return prefix + '\u{10FFFF}';
}

/** SQLite errors that say the database cannot take writes now, whatever the request. */
function isDatabaseFailure(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && /^SQLITE_(FULL|IOERR|READONLY|CORRUPT|NOTADB|CANTOPEN|PROTOCOL|NOLFS)/.test(code);
}

export interface StreamListing {
  prefix?: string;
  pattern?: string;
  orderBy: 'created' | 'updated' | 'name';
  limit: number;
  includeSystem: boolean;
}

function listStreamsQuery(options: StreamListing): { sql: string; params: (string | number)[] } {
  const where: string[] = [];
  const params: (string | number)[] = [];
  if (options.prefix) {
    where.push('stream_id >= ?', 'stream_id < ?');
    params.push(options.prefix, prefixUpperBound(options.prefix));
  }
  if (options.pattern) {
    where.push(/[*?[]/.test(options.pattern) ? 'stream_id GLOB ?' : 'stream_id = ?');
    params.push(options.pattern);
  }
  if (!options.includeSystem) where.push("substr(stream_id, 1, 1) <> '$'");
  const order = options.orderBy === 'created' ? 'created_at DESC, stream_key DESC' : options.orderBy === 'updated' ? 'updated_at DESC, stream_key DESC' : 'stream_id';
  params.push(Math.max(0, Math.min(Math.trunc(options.limit) || 0, 10_000)));
  const sql = `SELECT stream_id, last_event_number, tombstoned, event_count, created_at, updated_at, deleted FROM streams ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ${order} LIMIT ?`;
  return { sql, params };
}
