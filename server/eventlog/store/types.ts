/**
 * The event store's data: events, positions, results and errors. The TCP protocol layer (../tcp), the subscription
 * engines (../subscriptions) and the UI API talk to storage only through these and store-contract.ts.
 *
 * Numbers: event numbers and positions are JS numbers (safe to 2^53, far beyond what a SQLite log
 * reaches). The wire's long.MaxValue ("deleted stream") is the sentinel EVENT_NUMBER_DELETED here and
 * is mapped back to 9223372036854775807 by the codec.
 */

/** Expected-version constants as EventStoreDB defines them. */
export const ExpectedVersion = {
  Any: -2,
  NoStream: -1,
  StreamExists: -4,
} as const;

/** long.MaxValue on the wire: the last event number of a hard-deleted stream and `$tb` of a soft-deleted one. */
export const EVENT_NUMBER_DELETED = Number.MAX_SAFE_INTEGER;
/** int.MinValue on the wire: first/last event number reported by a failed write. */
export const EVENT_NUMBER_INVALID = -2147483648;
export const MAX_READ_COUNT = 4096;

/** Who is asking. `null` is the anonymous user. */
export interface Principal {
  name: string;
  groups: readonly string[];
}
export type Caller = Principal | null;

export interface NewEvent {
  /** Canonical lower-case UUID text (the codec converts from .NET byte order). */
  eventId: string;
  /**
   * The same id as the store keeps it (16 bytes, text order), when the caller decoded it from bytes (the TCP
   * codec): the store takes them as they are instead of parsing `eventId` back (issue 31). Must match `eventId`.
   */
  eventIdBytes?: Buffer;
  eventType: string;
  isJson: boolean;
  data: Uint8Array;
  metadata: Uint8Array;
}

export interface RecordedEvent {
  streamId: string;
  eventNumber: number;
  eventId: string;
  /** The same id as the store keeps it (16 bytes, text order), when at hand: saves parsing the text again. */
  eventIdBytes?: Uint8Array;
  eventType: string;
  isJson: boolean;
  data: Uint8Array;
  metadata: Uint8Array;
  /** Unix milliseconds of the commit. */
  created: number;
  /** `$all` position: events of one transaction share commitPosition and differ in preparePosition. */
  commitPosition: number;
  preparePosition: number;
}

/** A stream read entry: `event` is absent for a link whose target is gone. */
export interface ResolvedIndexedEvent {
  event?: RecordedEvent;
  link?: RecordedEvent;
}

/** A `$all` read entry; the position is the link's when a link was resolved. */
export interface ResolvedEvent extends ResolvedIndexedEvent {
  commitPosition: number;
  preparePosition: number;
}

/**
 * A stored event as the reads page it: one array per row (`.raw()`, which better-sqlite3 builds for less CPU than
 * an object with named keys), the event id's 16 bytes, data and metadata in one blob (in that order): each blob
 * SQLite hands over becomes a Buffer with memory of its own, which costs as much as the rest of the row and more
 * again to collect, and the id as bytes spares SQLite a hex() and a lower() per row (a tenth of a `$all` page's
 * select) and V8 a string. READ_COLUMNS' order.
 */
export type EventColumns = [
  position: number,
  commitPosition: number,
  eventNumber: number,
  eventType: string,
  flags: number,
  dataLength: number,
  idDataAndMetadata: Buffer,
  created: number,
];
/** A `$all` row: the event's columns and its stream's id. */
export type AllEventColumns = [...EventColumns, streamId: string];
export interface Position {
  commitPosition: number;
  preparePosition: number;
}

export type OperationResult =
  | 'Success'
  | 'PrepareTimeout'
  | 'CommitTimeout'
  | 'ForwardTimeout'
  | 'WrongExpectedVersion'
  | 'StreamDeleted'
  | 'InvalidTransaction'
  | 'AccessDenied';

export interface WriteResult {
  result: OperationResult;
  message?: string;
  firstEventNumber: number;
  lastEventNumber: number;
  preparePosition: number;
  commitPosition: number;
  /** Stream's last event number at check time; set on WrongExpectedVersion. */
  currentVersion?: number;
}

export interface DeleteResult {
  result: OperationResult;
  message?: string;
  preparePosition: number;
  commitPosition: number;
  currentVersion?: number;
}

export interface TransactionResult {
  transactionId: number;
  result: OperationResult;
  message?: string;
}

export interface TransactionCommitResult extends TransactionResult {
  firstEventNumber: number;
  lastEventNumber: number;
  preparePosition: number;
  commitPosition: number;
}

export type ReadEventResultCode = 'Success' | 'NotFound' | 'NoStream' | 'StreamDeleted' | 'Error' | 'AccessDenied';
export interface ReadEventResult {
  result: ReadEventResultCode;
  event?: ResolvedIndexedEvent;
  error?: string;
}

export type ReadStreamResultCode = 'Success' | 'NoStream' | 'StreamDeleted' | 'NotModified' | 'Error' | 'AccessDenied';
export interface ReadStreamResult {
  result: ReadStreamResultCode;
  events: ResolvedIndexedEvent[];
  nextEventNumber: number;
  lastEventNumber: number;
  isEndOfStream: boolean;
  lastCommitPosition: number;
  error?: string;
}

export type ReadAllResultCode = 'Success' | 'NotModified' | 'Error' | 'AccessDenied';
export interface ReadAllResult {
  result: ReadAllResultCode;
  /** The position actually used (after substituting the end of the log for (-1,-1)). */
  position: Position;
  events: ResolvedEvent[];
  nextPosition: Position;
  /** Filtered reads only: the scan reached the end (forward) or beginning (backward) of the log. */
  isEndOfStream: boolean;
  error?: string;
}

/**
 * A plain `$all` page (no filter, no link resolution) as SQLite's rows: the TCP encoder writes each row as it is,
 * without a record, an entry and three Buffers per event. Otherwise as ReadAllResult.
 */
export interface ReadAllRowsResult extends Omit<ReadAllResult, 'events'> {
  rows: AllEventColumns[];
}

/** A stream's page read without link resolution, as SQLite's rows (as ReadAllRowsResult). */
export interface ReadStreamRowsResult extends Omit<ReadStreamResult, 'events'> {
  streamId: string;
  rows: EventColumns[];
}

export interface EventFilter {
  context: 'StreamId' | 'EventType';
  type: 'Regex' | 'Prefix';
  data: string[];
}

export type ScavengeResultCode = 'Started' | 'InProgress' | 'Unauthorized';
export interface ScavengeResult {
  result: ScavengeResultCode;
  scavengeId?: string;
}

/** How far the scavenge under way has got: streams it visited of those it has to visit. */
export interface ScavengeProgress {
  scavengeId: string;
  startedAt: number;
  /** Metadata streams (truncation, max count, max age, soft deletes) first, then hard-deleted streams. */
  phase: 'metastreams' | 'tombstones';
  streamsDone: number;
  streamsTotal: number;
  /** 0-100; 100 only once the last stream is done. */
  percent: number;
  eventsRemoved: number;
}

/** Parsed stream metadata (`$$stream`), reserved keys plus everything else verbatim in `custom`. */
export interface StreamMetadata {
  maxCount?: number;
  maxAge?: number;
  truncateBefore?: number;
  cacheControl?: number;
  acl?: StreamAcl;
  raw: Record<string, unknown>;
}
export interface StreamAcl {
  readRoles?: string[];
  writeRoles?: string[];
  deleteRoles?: string[];
  metaReadRoles?: string[];
  metaWriteRoles?: string[];
}

/** What a commit made visible, in `$all` order; subscriptions are fed from this. */
export interface CommittedBatch {
  events: RecordedEvent[];
  /** Streams deleted by this commit (soft or hard), for dropping their subscribers. */
  deleted: { streamId: string; hard: boolean }[];
}

export interface StreamSummary {
  streamId: string;
  lastEventNumber: number;
  eventCount: number;
  createdAt: number;
  updatedAt: number;
  deleted: 'no' | 'soft' | 'hard';
}

/** Raised by the store when the write queue is past its bound; the TCP layer answers NotHandled TooBusy. */
export class StoreBusyError extends Error {
  readonly code = 'HOMEPORT_STORE_BUSY';
}
/** Raised when the store is not open yet or is closing; the TCP layer answers NotHandled NotReady. */
export class StoreNotReadyError extends Error {
  readonly code = 'HOMEPORT_STORE_NOT_READY';
}

/** Raised for malformed requests (empty stream id, an event id that is not a UUID); the TCP layer answers BadRequest. */
export class StoreBadRequestError extends Error {
  readonly code = 'HOMEPORT_STORE_BAD_REQUEST';
}
