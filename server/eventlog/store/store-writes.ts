/**
 * The store's write side: each write request checked, queued for the next group commit, and run inside
 * one SQLite transaction with the others. Caches are updated from the commit's working copies only after
 * COMMIT; a failed commit rolls back and leaves them as they were.
 */
import { SYSTEM_CALLER } from './access.ts';
import { appendInBatch, persistBatch } from './append.ts';
import type { ChangeFeed } from './change-feed.ts';
import type { StoreContext } from './context.ts';
import { deleteInBatch } from './delete.ts';
import { GroupCommitQueue } from './group-commit.ts';
import { bytesOf, prepareEvents, validateInteger, validateStreamId, type PendingEvent } from './requests.ts';
import { WriteBatch } from './stream-cache.ts';
import type { SystemWriter } from './system-writer.ts';
import { commitTransactionInBatch, startTransactionInBatch, writeTransactionInBatch } from './transactions.ts';
import {
  StoreNotReadyError,
  type Caller,
  type DeleteResult,
  type NewEvent,
  type TransactionCommitResult,
  type TransactionResult,
  type WriteResult,
} from './types.ts';

/** What the write side asks of the store it belongs to. */
export interface WriteSideOwner {
  /** Why a write is refused now (starting, closing, closed), or null. Internal writers may write while starting. */
  refusal(internal: boolean): Error | null;
  isClosed(): boolean;
}

/** Runs `check`; a thrown error becomes a rejected promise, as a failed write's answer. */
function checked<T>(check: () => void, write: () => Promise<T>): Promise<T> {
  try {
    check();
  } catch (err) {
    return Promise.reject(err);
  }
  return write();
}

export class StoreWrites {
  private readonly queue: GroupCommitQueue<WriteBatch>;
  private readonly ctx: StoreContext;
  private readonly feed: ChangeFeed;
  private readonly owner: WriteSideOwner;
  /** SQLite transactions committed so far (each group commit is one). */
  private committedCount = 0;

  constructor(ctx: StoreContext, feed: ChangeFeed, owner: WriteSideOwner) {
    this.ctx = ctx;
    this.feed = feed;
    this.owner = owner;
    this.queue = new GroupCommitQueue<WriteBatch>({
      limits: ctx.limits,
      logger: ctx.logger,
      refusal: (internal) => owner.refusal(internal),
      transaction: (fn) => this.inTransaction(fn),
    });
  }

  append(streamId: string, expectedVersion: number, events: NewEvent[], caller: Caller): Promise<WriteResult> {
    let pending: PendingEvent[] = [];
    return checked(
      () => {
        validateStreamId(streamId);
        validateInteger('Expected version', expectedVersion);
        pending = prepareEvents(events);
      },
      () =>
        this.queue.enqueue(
          (b) => appendInBatch(this.ctx, b, streamId, expectedVersion, pending, caller),
          pending.length,
          bytesOf(pending),
        ),
    );
  }

  deleteStream(streamId: string, expectedVersion: number, hardDelete: boolean, caller: Caller): Promise<DeleteResult> {
    return checked(
      () => {
        validateStreamId(streamId);
        validateInteger('Expected version', expectedVersion);
      },
      () =>
        this.queue.enqueue(
          (b) => deleteInBatch(this.ctx, b, streamId, expectedVersion, hardDelete === true, caller),
          1,
          64,
        ),
    );
  }

  startTransaction(streamId: string, expectedVersion: number, caller: Caller): Promise<TransactionResult> {
    return checked(
      () => {
        validateStreamId(streamId);
        validateInteger('Expected version', expectedVersion);
      },
      () => this.queue.enqueue((b) => startTransactionInBatch(this.ctx, b, streamId, expectedVersion, caller), 1, 64),
    );
  }

  transactionWrite(transactionId: number, events: NewEvent[], caller: Caller): Promise<TransactionResult> {
    let pending: PendingEvent[] = [];
    return checked(
      () => {
        validateInteger('Transaction id', transactionId);
        pending = prepareEvents(events);
      },
      () =>
        this.queue.enqueue(
          () => writeTransactionInBatch(this.ctx, transactionId, pending, caller),
          pending.length,
          bytesOf(pending),
        ),
    );
  }

  commitTransaction(transactionId: number, caller: Caller): Promise<TransactionCommitResult> {
    return checked(
      () => validateInteger('Transaction id', transactionId),
      () => this.queue.enqueue((b) => commitTransactionInBatch(this.ctx, b, transactionId, caller), 1, 64),
    );
  }

  /** Runs `fn` inside the next group commit as the system user (users, scavenge records). */
  runSystemWrite<T>(fn: (writer: SystemWriter) => T, internal: boolean): Promise<T> {
    const ctx = this.ctx;
    return this.queue.enqueue(
      (b) => {
        const writer: SystemWriter = {
          now: b.now,
          db: ctx.db,
          append: (streamId, expectedVersion, events) =>
            appendInBatch(ctx, b, streamId, expectedVersion, prepareEvents(events), SYSTEM_CALLER),
          deleteStream: (streamId, expectedVersion, hard) =>
            deleteInBatch(ctx, b, streamId, expectedVersion, hard, SYSTEM_CALLER),
          streamInfo: (streamId) => {
            const s = ctx.streams.get(streamId);
            return {
              key: s.key,
              lastEventNumber: s.last,
              tombstoned: s.tombstoned,
              eventCount: s.count,
              metadata: ctx.streams.metadataOf(streamId),
            };
          },
          eventsRemoved: (streamId, count) => {
            const s = ctx.streams.writable(streamId);
            s.count = Math.max(0, s.count - count);
            s.dirty = true;
          },
        };
        return fn(writer);
      },
      1,
      64,
      internal,
    );
  }

  /** Resolves once the write queue is empty. */
  whenIdle(): Promise<void> {
    return this.queue.whenIdle();
  }

  /** SQLite transactions this store committed since it opened (a group commit counts once). */
  get commits(): number {
    return this.committedCount;
  }

  private inTransaction(fn: (b: WriteBatch) => void): void {
    if (this.owner.isClosed()) throw new StoreNotReadyError('The event store is closed.');
    const { ctx } = this;
    const { sql } = ctx;
    sql.begin.run();
    let batch: WriteBatch;
    try {
      this.feed.sync();
      batch = new WriteBatch(ctx.clock(), ctx.lastPosition);
      ctx.streams.batch = batch;
      fn(batch);
      persistBatch(ctx, batch);
      sql.commit.run();
      this.committedCount++;
    } catch (err) {
      ctx.streams.batch = null;
      if (ctx.db.inTransaction) sql.rollback.run();
      throw err;
    }
    ctx.streams.batch = null;
    ctx.streams.committed(batch);
    batch.eventIds.commitTo(ctx.recentIds);
    ctx.lastPosition = batch.lastPosition;
    this.feed.committed(batch);
  }
}
