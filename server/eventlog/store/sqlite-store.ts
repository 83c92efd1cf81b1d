/**
 * The event store on SQLite (better-sqlite3): EventStoreDB semantics for expected versions, idempotency,
 * deletes, metadata, ACLs, links and transactions, with group commit for writes.
 *
 * This class is the facade; the work is in the parts beside it: store-writes (each write checked, queued and
 * committed), group-commit (queue and transaction rules), append / delete / transactions (the writes inside
 * one commit), stream-reads and all-reads,
 * stream-cache (heads and metadata in memory), change-feed (what committed, including other processes'
 * commits), stream-listing (the browser's queries), statements (SQL).
 * Each EventStore method is a short delegation to those parts plus the access check and readiness/closing
 * rules they share.
 *
 * Requests are checked against the in-transaction state before they write anything, so a wrong expected
 * version fails alone. Reads are synchronous and index based. Caches are updated from a commit's working
 * copies only after COMMIT, and dropped whenever another process (the admin CLI) committed to the same
 * file, which `PRAGMA data_version` reveals.
 */
import type { Database } from '../../db/index.ts';
import type { Logger } from '../../logger.ts';
import { canAccess } from './access.ts';
import { readAll, readAllRows, type AllReadRequest } from './all-reads.ts';
import { ChangeFeed } from './change-feed.ts';
import type { StoreContext } from './context.ts';
import { LinkTargets } from './link-targets.ts';
import { DEFAULT_STORE_LIMITS, type StoreLimits } from './limits.ts';
import { SystemRoles, SystemStreams } from './metadata.ts';
import { RecentEventIds } from './recent-event-ids.ts';
import { Scavenger } from './scavenge.ts';
import { prepareStatements, tuneEventLogConnection, type Statements } from './statements.ts';
import { StreamCache } from './stream-cache.ts';
import { StreamListings, type StreamListing } from './stream-listing.ts';
import { readEvent, readStreamBackward, readStreamForward, readStreamRows, resolveLink } from './stream-reads.ts';
import type { SystemWriter } from './system-writer.ts';
import { StoreWrites } from './store-writes.ts';
import {
  StoreNotReadyError,
  type Caller,
  type CommittedBatch,
  type DeleteResult,
  type EventFilter,
  type NewEvent,
  type Position,
  type ReadAllResult,
  type ReadEventResult,
  type ReadStreamResult,
  type RecordedEvent,
  type ResolvedIndexedEvent,
  type ScavengeProgress,
  type ScavengeResult,
  type StreamMetadata,
  type StreamSummary,
  type TransactionCommitResult,
  type TransactionResult,
  type WriteResult,
} from './types.ts';
import {
  type EventStore,
  type StreamBrowser,
  type ReadOptions,
  type StreamRead,
  type AllRead,
  type AllRowsRead,
  type StreamRowsRead,
  type FilteredAllRead,
  type StoreStatus,
} from './store-contract.ts';

export type { SystemWriter } from './system-writer.ts';
export type { StoreLimits } from './limits.ts';
export { tuneEventLogConnection } from './statements.ts';
export type { StreamListing } from './stream-listing.ts';

export interface SqliteEventStoreOptions {
  db: Database;
  logger: Logger;
  /** Unix milliseconds; injectable so `$maxAge` can be tested without waiting. */
  clock?: () => number;
  limits?: Partial<StoreLimits>;
}

function mayScavenge(caller: Caller): boolean {
  return caller !== null && (caller.groups.includes(SystemRoles.Admins) || caller.groups.includes(SystemRoles.Ops));
}

export class SqliteEventStore implements EventStore, StreamBrowser {
  status: StoreStatus = 'starting';
  readonly db: Database;
  readonly logger: Logger;
  readonly clock: () => number;
  readonly limits: StoreLimits;

  private readonly sql: Statements;
  private readonly ctx: StoreContext;
  private readonly feed: ChangeFeed;
  private readonly writes: StoreWrites;
  private readonly listings: StreamListings;
  private readonly pollTimer: NodeJS.Timeout;
  private readonly scavenger: Scavenger;
  private closePromise: Promise<void> | null = null;
  private closed = false;

  constructor(options: SqliteEventStoreOptions) {
    this.db = options.db;
    this.logger = options.logger;
    this.clock = options.clock ?? Date.now;
    this.limits = { ...DEFAULT_STORE_LIMITS, ...options.limits };
    tuneEventLogConnection(this.db);
    this.sql = prepareStatements(this.db);
    this.ctx = {
      db: this.db,
      sql: this.sql,
      logger: this.logger,
      clock: this.clock,
      limits: this.limits,
      streams: new StreamCache(this.sql, this.limits.streamCacheSize),
      recentIds: new RecentEventIds(this.limits.idempotencyWindow),
      linkTargets: new LinkTargets(),
      lastPosition: this.sql.lastPosition.get() as number,
    };
    this.ctx.recentIds.warm(this.db);
    this.feed = new ChangeFeed(this.ctx, () => !this.closed && this.ctx.streams.batch === null);
    this.writes = new StoreWrites(this.ctx, this.feed, {
      refusal: (internal) =>
        this.closed || (!internal && this.status !== 'ready')
          ? new StoreNotReadyError(
              this.closed || this.status === 'closing' ? 'The event store is closing.' : 'The event store is starting.',
            )
          : null,
      isClosed: () => this.closed,
    });
    this.listings = new StreamListings(this.db);
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
    return this.writes.append(streamId, expectedVersion, events, caller);
  }

  deleteStream(streamId: string, expectedVersion: number, hardDelete: boolean, caller: Caller): Promise<DeleteResult> {
    return this.writes.deleteStream(streamId, expectedVersion, hardDelete, caller);
  }

  startTransaction(streamId: string, expectedVersion: number, caller: Caller): Promise<TransactionResult> {
    return this.writes.startTransaction(streamId, expectedVersion, caller);
  }

  transactionWrite(transactionId: number, events: NewEvent[], caller: Caller): Promise<TransactionResult> {
    return this.writes.transactionWrite(transactionId, events, caller);
  }

  commitTransaction(transactionId: number, caller: Caller): Promise<TransactionCommitResult> {
    return this.writes.commitTransaction(transactionId, caller);
  }

  scavenge(caller: Caller): ScavengeResult {
    this.ensureOpen();
    if (!mayScavenge(caller)) return { result: 'Unauthorized' };
    return this.scavenger.start();
  }

  scavengeProgress(): ScavengeProgress | null {
    return this.scavenger.progress();
  }

  async stopScavenge(scavengeId: string, caller: Caller): Promise<'Stopped' | 'NotFound' | 'Unauthorized'> {
    if (!mayScavenge(caller)) return 'Unauthorized';
    if (this.scavenger.currentId !== scavengeId) return 'NotFound';
    await this.scavenger.stop();
    return 'Stopped';
  }

  /**
   * Runs `fn` inside the next group commit as the system user (users, scavenge records). Internal
   * callers may write while the store is starting or closing.
   */
  runSystemWrite<T>(fn: (writer: SystemWriter) => T, options: { internal?: boolean } = {}): Promise<T> {
    return this.writes.runSystemWrite(fn, options.internal === true);
  }

  /** Resolves once the write queue is empty. */
  whenIdle(): Promise<void> {
    return this.writes.whenIdle();
  }

  // ───────────────────────────── reads ─────────────────────────────

  readEvent(streamId: string, eventNumber: number, resolveLinkTos: boolean, caller: Caller): ReadEventResult {
    return readEvent(this.current(), streamId, eventNumber, resolveLinkTos, caller);
  }

  readonly readStreamForward: StreamRead = (streamId, from, maxCount, resolveLinkTos, caller, options) =>
    readStreamForward(this.current(), streamId, from, maxCount, resolveLinkTos, caller, options);

  readonly readStreamBackward: StreamRead = (streamId, from, maxCount, resolveLinkTos, caller, options) =>
    readStreamBackward(this.current(), streamId, from, maxCount, resolveLinkTos, caller, options);

  readonly readStreamRowsForward: StreamRowsRead = (streamId, from, maxCount, caller, options) =>
    readStreamRows(this.current(), true, streamId, from, maxCount, caller, options);

  readonly readStreamRowsBackward: StreamRowsRead = (streamId, from, maxCount, caller, options) =>
    readStreamRows(this.current(), false, streamId, from, maxCount, caller, options);

  readonly readAllForward: AllRead = (from, maxCount, resolveLinkTos, caller, options) =>
    this.readAll('forward', from, maxCount, maxCount, undefined, resolveLinkTos, caller, options);

  readonly readAllBackward: AllRead = (from, maxCount, resolveLinkTos, caller, options) =>
    this.readAll('backward', from, maxCount, maxCount, undefined, resolveLinkTos, caller, options);

  readonly readAllRowsForward: AllRowsRead = (from, maxCount, caller, options = {}) =>
    readAllRows(
      this.current(),
      { direction: 'forward', from, maxCount, maxSearchWindow: maxCount, ...options },
      caller,
    );

  readonly readAllRowsBackward: AllRowsRead = (from, maxCount, caller, options = {}) =>
    readAllRows(
      this.current(),
      { direction: 'backward', from, maxCount, maxSearchWindow: maxCount, ...options },
      caller,
    );

  readonly filteredReadAllForward: FilteredAllRead = (...read) => this.readAll('forward', ...read);

  readonly filteredReadAllBackward: FilteredAllRead = (...read) => this.readAll('backward', ...read);

  /** `filter` undefined: a plain read; null: a filtered read matching everything. */
  private readAll(
    direction: AllReadRequest['direction'],
    from: Position,
    maxCount: number,
    maxSearchWindow: number,
    filter: EventFilter | null | undefined,
    resolveLinkTos: boolean,
    caller: Caller,
    options: ReadOptions = {},
  ): ReadAllResult {
    const request = {
      direction,
      from,
      maxCount,
      maxSearchWindow,
      filter,
      resolveLinkTos,
      maxBytes: options.maxBytes,
      userStreamsOnly: options.userStreamsOnly,
    };
    return readAll(this.current(), request, caller);
  }

  checkReadAccess(streamId: string, caller: Caller): boolean {
    return canAccess(this.current().streams, streamId === '' ? SystemStreams.All : streamId, 'read', caller);
  }

  lastEventNumber(streamId: string): number {
    return this.current().streams.lastNumberOf(streamId);
  }

  lastCommitPosition(): number {
    return this.current().lastPosition;
  }

  commitsMade(): number {
    return this.writes.commits;
  }

  getStreamMetadata(streamId: string): StreamMetadata {
    return this.current().streams.metadataOf(streamId);
  }

  resolveLink(link: RecordedEvent, caller: Caller): ResolvedIndexedEvent {
    const resolved = resolveLink(this.current(), link, caller);
    return resolved === 'denied' ? { link } : resolved;
  }

  onCommitted(listener: (batch: CommittedBatch) => void): () => void {
    return this.feed.onCommitted(listener);
  }

  /** Picks up commits another process (the admin CLI) made since this store last looked. */
  checkForOutsideChanges(): void {
    this.ensureOpen();
    if (!this.ctx.streams.batch) this.feed.sync();
  }

  /** Called when another process committed to the database (caches were dropped). */
  onExternalChange(listener: () => void): () => void {
    return this.feed.onExternalChange(listener);
  }

  /** SQLite's plan for the query listStreams runs with these options (the browse tests check it uses an index). */
  explainListStreams(options: StreamListing): string {
    return this.listings.explain(options);
  }

  listStreams(options: StreamListing): StreamSummary[] {
    this.current();
    return this.listings.list(options);
  }

  streamCategories(limit: number): { category: string; streams: number }[] {
    this.current();
    return this.listings.categories(limit);
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

  // ──────────────────────── commit and freshness ────────────────────────

  /** The shared state, checked open and caught up with other processes' commits: every read starts here. */
  private current(): StoreContext {
    this.ensureOpen();
    this.feed.sync();
    return this.ctx;
  }

  private pollExternalChanges(): void {
    if (this.closed || this.ctx.streams.batch) return;
    try {
      this.feed.sync();
    } catch (err) {
      this.logger.warn({ err }, 'checking the event log for outside changes failed');
    }
  }

  private ensureOpen(): void {
    if (this.closed) throw new StoreNotReadyError('The event store is closed.');
  }
}
