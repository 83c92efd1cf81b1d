/**
 * Group commit: write requests queue up; every request waiting when a commit starts shares one SQLite
 * transaction, and each promise settles only after COMMIT returned (synchronous=FULL, so acknowledged
 * means durable). The queue is bounded in requests and bytes; one commit is bounded too.
 */
import type { Logger } from '../../logger.ts';
import type { StoreLimits } from './limits.ts';
import { StoreBusyError } from './types.ts';

interface QueuedOp<B> {
  run(batch: B): unknown;
  resolve(value: unknown): void;
  reject(err: unknown): void;
  events: number;
  bytes: number;
}

export interface GroupCommitHost<B> {
  readonly limits: StoreLimits;
  readonly logger: Logger;
  /** Why a request may not queue now (starting, closing), or null. Internal requests skip the check. */
  refusal(internal: boolean): Error | null;
  /** Runs `fn` in one transaction with a fresh batch; throws (after rolling back) if `fn` or COMMIT throws. */
  transaction(fn: (batch: B) => void): void;
}

export class GroupCommitQueue<B> {
  private readonly host: GroupCommitHost<B>;
  private readonly queue: QueuedOp<B>[] = [];
  private queuedBytes = 0;
  private flushScheduled = false;
  private idleWaiters: (() => void)[] = [];

  constructor(host: GroupCommitHost<B>) {
    this.host = host;
  }

  enqueue<T>(run: (b: B) => T, events: number, bytes: number, internal = false): Promise<T> {
    const refusal = this.host.refusal(internal);
    if (refusal) return Promise.reject(refusal);
    const { limits } = this.host;
    if (
      !internal &&
      (this.queue.length >= limits.maxQueuedRequests || this.queuedBytes + bytes > limits.maxQueuedBytes)
    ) {
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

  private takeGroup(): QueuedOp<B>[] {
    const { maxBatchRequests, maxBatchEvents, maxBatchBytes } = this.host.limits;
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
  private runGroup(ops: QueuedOp<B>[]): void {
    const results: unknown[] = new Array(ops.length);
    let failedIndex = -1;
    try {
      this.host.transaction((b) => {
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
        this.host.logger.error({ err, requests: ops.length }, 'a group commit failed');
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
}

/** SQLite errors that say the database cannot take writes now, whatever the request. */
function isDatabaseFailure(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && /^SQLITE_(FULL|IOERR|READONLY|CORRUPT|NOTADB|CANTOPEN|PROTOCOL|NOLFS)/.test(code);
}
