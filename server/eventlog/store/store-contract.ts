/**
 * What the store offers the protocols and the UI (EventStore, StreamBrowser, EventLogUsers) and the shapes of its
 * reads; the data they carry (events, positions, results) is in types.ts.
 */
import type {
  Caller,
  CommittedBatch,
  DeleteResult,
  EventFilter,
  NewEvent,
  Position,
  Principal,
  ReadAllResult,
  ReadAllRowsResult,
  ReadEventResult,
  ReadStreamResult,
  ReadStreamRowsResult,
  RecordedEvent,
  ResolvedIndexedEvent,
  ScavengeProgress,
  ScavengeResult,
  StreamMetadata,
  StreamSummary,
  TransactionCommitResult,
  TransactionResult,
  WriteResult,
} from './types.ts';

export type StoreStatus = 'starting' | 'ready' | 'closing';

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
