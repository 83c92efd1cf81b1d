/**
 * The event store's public contract. The TCP protocol layer (../tcp), the subscription engines
 * (../subscriptions) and the UI API all talk to storage only through these types.
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

export type StoreStatus = 'starting' | 'ready' | 'closing';

/** Raised by the store when the write queue is past its bound; the TCP layer answers NotHandled TooBusy. */
export class StoreBusyError extends Error {
  readonly code = 'HOMEPORT_STORE_BUSY';
}
/** Raised when the store is not open yet or is closing; the TCP layer answers NotHandled NotReady. */
export class StoreNotReadyError extends Error {
  readonly code = 'HOMEPORT_STORE_NOT_READY';
}

/** A read's options beyond the protocol's own arguments. */
export interface ReadOptions {
  /**
   * Most bytes the entries of one reply may take, estimated as on the wire (`entryBytes`): a read stops
   * before the entry that would pass it. At least one entry is always returned, so a reader progresses.
   * Default: the store's `maxReadBytes`.
   */
  maxBytes?: number;
  /**
   * Forward `$all` reads only: leave out, in SQL before any row is loaded, the events of `$` streams other
   * than the metastreams (`$$x`) of user streams: what EventStoreDB's projections read of `$all`.
   */
  userStreamsOnly?: boolean;
}

/** ReadStreamEvents, forward or backward. */
export type StreamRead = (
  streamId: string,
  from: number,
  maxCount: number,
  resolveLinkTos: boolean,
  caller: Caller,
  options?: ReadOptions,
) => ReadStreamResult;
/** ReadAllEvents, forward or backward. */
export type AllRead = (
  from: Position,
  maxCount: number,
  resolveLinkTos: boolean,
  caller: Caller,
  options?: ReadOptions,
) => ReadAllResult;
/** ReadStreamEvents without link resolution, forward or backward, as rows. */
export type StreamRowsRead = (
  streamId: string,
  from: number,
  maxCount: number,
  caller: Caller,
  options?: ReadOptions,
) => ReadStreamRowsResult;
/** ReadAllEvents without link resolution, forward or backward, as rows. */
export type AllRowsRead = (
  from: Position,
  maxCount: number,
  caller: Caller,
  options?: ReadOptions,
) => ReadAllRowsResult;
/** FilteredReadAllEvents, forward or backward. */
export type FilteredAllRead = (
  from: Position,
  maxCount: number,
  maxSearchWindow: number,
  filter: EventFilter | null,
  resolveLinkTos: boolean,
  caller: Caller,
  options?: ReadOptions,
) => ReadAllResult;

export interface EventStore {
  readonly status: StoreStatus;

  // writes: resolve once durable (group commit); AccessDenied etc. come back as results, not throws
  appendToStream(streamId: string, expectedVersion: number, events: NewEvent[], caller: Caller): Promise<WriteResult>;
  deleteStream(streamId: string, expectedVersion: number, hardDelete: boolean, caller: Caller): Promise<DeleteResult>;
  startTransaction(streamId: string, expectedVersion: number, caller: Caller): Promise<TransactionResult>;
  transactionWrite(transactionId: number, events: NewEvent[], caller: Caller): Promise<TransactionResult>;
  commitTransaction(transactionId: number, caller: Caller): Promise<TransactionCommitResult>;

  // reads: synchronous over SQLite; a page is cut at `options.maxBytes` (default StoreLimits.maxReadBytes)
  readEvent(streamId: string, eventNumber: number, resolveLinkTos: boolean, caller: Caller): ReadEventResult;
  readStreamForward: StreamRead;
  readStreamBackward: StreamRead;
  readStreamRowsForward: StreamRowsRead;
  readStreamRowsBackward: StreamRowsRead;
  readAllForward: AllRead;
  readAllBackward: AllRead;
  readAllRowsForward: AllRowsRead;
  readAllRowsBackward: AllRowsRead;
  filteredReadAllForward: FilteredAllRead;
  filteredReadAllBackward: FilteredAllRead;

  /** Read-access check as ReadStreamEvents does it (for subscriptions). `''` or `'$all'` means the global log. */
  checkReadAccess(streamId: string, caller: Caller): boolean;
  /** Stream's last event number, -1 if it never existed; pre-deletion number when soft-deleted. */
  lastEventNumber(streamId: string): number;
  /** Last committed `$all` commit position (0 on an empty log). */
  lastCommitPosition(): number;
  /** SQLite transactions committed since the store opened (one per group commit: many appends may share one). */
  commitsMade(): number;
  getStreamMetadata(streamId: string): StreamMetadata;
  /** Resolves a `$>` link record to its target (undefined when gone); used by subscriptions. */
  resolveLink(link: RecordedEvent, caller: Caller): ResolvedIndexedEvent;

  scavenge(caller: Caller): ScavengeResult;
  /** Stops the scavenge with this id after its current step ($admins/$ops); NotFound when none such runs. */
  stopScavenge(scavengeId: string, caller: Caller): Promise<'Stopped' | 'NotFound' | 'Unauthorized'>;
  /** The scavenge under way and how far it has got; null when none runs. */
  scavengeProgress(): ScavengeProgress | null;

  /** Called synchronously after every durable commit, in commit order. Returns an unsubscribe function. */
  onCommitted(listener: (batch: CommittedBatch) => void): () => void;

  /** Finishes queued writes, then closes the database. */
  close(): Promise<void>;
}

/**
 * Browsing streams by name, category and time (the UI's stream list): not part of the protocols' store, which
 * EventStoreDB's clients reach only by stream, `$all` and the system projections' streams.
 */
export interface StreamBrowser {
  listStreams(options: {
    prefix?: string;
    pattern?: string;
    orderBy: 'created' | 'updated' | 'name';
    limit: number;
    includeSystem: boolean;
  }): StreamSummary[];
  streamCategories(limit: number): { category: string; streams: number }[];
}

export interface EventLogUser {
  name: string;
  fullName: string;
  groups: string[];
  disabled: boolean;
  createdAt: number;
}

/**
 * Event-log accounts (`admin`/`changeit` in `$admins` and `ops`/`changeit` in `$ops` on a new log).
 * Changes are also recorded as events in `$user-<name>` / `$users` system streams, as EventStoreDB does.
 */
export interface EventLogUsers {
  /**
   * Resolves the principal for good credentials, null for bad ones. Successful checks are cached briefly.
   * `from` (the client's address) throttles repeated failures per address as well as per user.
   */
  authenticate(name: string, password: string, from?: string): Promise<Principal | null>;
  /**
   * Whether `name`'s password is `password`, checked quietly (no throttle, no log, no cache): the server asking
   * itself, e.g. whether an account still has the public default password.
   */
  hasPassword(name: string, password: string): Promise<boolean>;
  list(): EventLogUser[];
  get(name: string): EventLogUser | undefined;
  /**
   * A digest of the user's credential state (password hash, groups, disabled flag), null for an unknown user:
   * sessions compare it to end when the password changes or the user is disabled or removed.
   */
  credentialStamp(name: string): string | null;
  add(user: { name: string; password: string; fullName?: string; groups?: string[] }): Promise<EventLogUser>;
  changePassword(name: string, newPassword: string): Promise<void>;
  /** Replaces the full name (empty: the login name) and groups. */
  update(name: string, changes: { fullName?: string; groups?: string[] }): Promise<EventLogUser>;
  setDisabled(name: string, disabled: boolean): Promise<EventLogUser>;
  remove(name: string): Promise<void>;
}

/** Raised for malformed requests (empty stream id, an event id that is not a UUID); the TCP layer answers BadRequest. */
export class StoreBadRequestError extends Error {
  readonly code = 'HOMEPORT_STORE_BAD_REQUEST';
}
