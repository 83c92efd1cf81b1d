import type {
  MessageQueue,
  MessageQueueDepth,
  MessageQueueEnqueueOptions,
  MessageQueueListenOptions,
} from '@fedify/fedify';
import type { Database } from '../../db/index.ts';
import { ownTransactions, type SharedWrites, statementsOf } from './statements.ts';

/** How long a handled message waits for others to be deleted with (one commit for all). */
const REMOVAL_WINDOW_MS = 25;
/** Most handled messages one deletion takes. */
const MAX_REMOVAL_BATCH = 256;

export interface SqliteQueueOptions {
  /** Messages handled at once (deliveries wait on other servers, so a few run in parallel). */
  concurrency?: number;
  /** Longest sleep between looks at the table (another process may have enqueued; a sleeping machine woke). */
  maxIdleMs?: number;
  now?: () => number;
  onError?: (err: unknown) => void;
  /** Runs each handling of a message (deliveries' global fetch calls go through the guard in it). */
  around?: (handle: () => Promise<void>) => Promise<void>;
  /** Where enqueues and deletions are written (default: a transaction of their own each). */
  writes?: SharedWrites;
}

interface Row {
  id: bigint;
  message: string;
  ordering_key: string | null;
}

/** Whether messages are waiting in the queue table (left by an earlier run: they are handled at start). */
export function hasQueuedMessages(db: Database): boolean {
  return Number(db.prepare('SELECT EXISTS (SELECT 1 FROM federation_queue)').pluck().get()) === 1;
}

/**
 * Fedify's message queue in social.db (outgoing deliveries with their retries, inbox work). A message stays
 * in the table until its handler returns, so a process killed mid-delivery delivers it again at the next
 * start (at least once; Fedify's inbox idempotence absorbs repeats). Fedify schedules retries itself by
 * enqueueing again with a delay, so a failed handler's message is dropped here.
 */
export class SqliteMessageQueue implements MessageQueue {
  readonly nativeRetrial = false;
  private readonly db: Database;
  private readonly sql: ReturnType<typeof statementsOf>;
  private readonly concurrency: number;
  private readonly maxIdleMs: number;
  private readonly now: () => number;
  private readonly onError: (err: unknown) => void;
  private readonly around: (handle: () => Promise<void>) => Promise<void>;
  private readonly writes: SharedWrites;
  private wake: (() => void) | null = null;
  /** Ids being handled in this process, and ordering keys in use (one message per key at a time). */
  private readonly running = new Set<string>();
  private readonly busyKeys = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();
  /** Handled messages awaiting their deletion, and the deletion that will take them. */
  private readonly handled: { row: Row; message: unknown }[] = [];
  private readonly removing = new Set<string>();
  private removal: NodeJS.Timeout | null = null;
  /** Fedify's inbox messages in the table (verified activities awaiting their listeners), and their bytes. */
  private inbox = { messages: 0, bytes: 0 };
  /**
   * The time of the last look at the table that found no other message to take (see nextDue), while nothing
   * changed since that may make one takeable (null: look again): an enqueue, a handled message's ordering key freed, deletions done, a sleep that ran out (another
   * process may have enqueued). Without it, each wake (every enqueue and every handler's end) read the table
   * once or twice for nothing: 2.5 such looks and as many delay looks per inbox message in a flood.
   */
  private seenUntil: number | null = null;
  /**
   * When the next delayed message is due (the last look at the delays, with this process's delayed enqueues since
   * folded in), until it is due or a sleep runs out (null: look again).
   */
  private nextDelayedAt: number | null = null;

  constructor(db: Database, options: SqliteQueueOptions = {}) {
    this.db = db;
    this.sql = statementsOf(db);
    this.concurrency = options.concurrency ?? 8;
    this.maxIdleMs = options.maxIdleMs ?? 1000;
    this.now = options.now ?? Date.now;
    this.onError = options.onError ?? (() => {});
    this.around = options.around ?? ((handle) => handle());
    this.writes = options.writes ?? ownTransactions(db);
    const r = this.sql(
      `SELECT COUNT(*) AS messages, COALESCE(SUM(LENGTH(CAST(message AS BLOB))), 0) AS bytes FROM federation_queue WHERE json_extract(message, '$.type') = 'inbox'`,
    ).get() as { messages: bigint; bytes: bigint };
    this.inbox = { messages: Number(r.messages), bytes: Number(r.bytes) };
  }

  /** What the inbox has queued (the inbox intake refuses deliveries beyond its bounds). */
  inboxBacklog(): { messages: number; bytes: number } {
    return { ...this.inbox };
  }

  async enqueue(message: unknown, options?: MessageQueueEnqueueOptions): Promise<void> {
    await this.enqueueMany([message], options);
  }

  async enqueueMany(messages: readonly unknown[], options?: MessageQueueEnqueueOptions): Promise<void> {
    const delay = options?.delay ? Math.max(0, options.delay.total({ unit: 'millisecond' })) : 0;
    const now = this.now();
    const insert = this.sql(
      'INSERT INTO federation_queue (message, ordering_key, deliver_at, created_at) VALUES (?, ?, ?, ?)',
    );
    const added = { messages: 0, bytes: 0 };
    this.writes.transaction(() => {
      for (const m of messages) {
        const json = JSON.stringify(m);
        insert.run(json, options?.orderingKey ?? null, Math.round(now + delay), now);
        if (isInboxMessage(m)) {
          added.messages++;
          added.bytes += Buffer.byteLength(json);
        }
      }
    });
    this.inbox.messages += added.messages;
    this.inbox.bytes += added.bytes;
    this.seenUntil = null;
    // A delayed message wakes the listener at its time; the others are for the look the wake makes.
    if (delay > 0 && this.nextDelayedAt !== null)
      this.nextDelayedAt = Math.min(this.nextDelayedAt, Math.round(now + delay));
    this.wake?.();
    // Fedify answers an inbox delivery 202 once this resolves: the message is on disk by then.
    await this.writes.durable();
  }

  async getDepth(): Promise<MessageQueueDepth> {
    const r = this.sql(
      'SELECT COUNT(*) AS queued, COUNT(*) FILTER (WHERE deliver_at <= ?) AS ready FROM federation_queue',
    ).get(this.now()) as { queued: bigint; ready: bigint };
    return { queued: Number(r.queued), ready: Number(r.ready), delayed: Number(r.queued) - Number(r.ready) };
  }

  /** Handles due messages until `signal` aborts; resolves once the handlers it started have finished. */
  async listen(
    handler: (message: unknown) => Promise<void> | void,
    options?: MessageQueueListenOptions,
  ): Promise<void> {
    const signal = options?.signal;
    while (!signal?.aborted) {
      const free = this.running.size < this.concurrency;
      const look = this.seenUntil === null || (this.nextDelayedAt !== null && this.now() >= this.nextDelayedAt);
      const row = free && look ? this.nextDue() : null;
      if (row) {
        this.start(row, handler);
        continue;
      }
      // Ran out (not woken): another process may have enqueued, the clock may have jumped; look again.
      if (!(await this.sleep(free ? this.idleDelay() : this.maxIdleMs, signal))) this.changed();
    }
    await Promise.allSettled([...this.inFlight]);
    this.removeHandled();
  }

  private start(row: Row, handler: (message: unknown) => Promise<void> | void): void {
    const id = String(row.id);
    this.running.add(id);
    if (row.ordering_key !== null) this.busyKeys.add(row.ordering_key);
    const run = async () => {
      let message: unknown = null;
      try {
        message = JSON.parse(row.message);
        await this.around(async () => handler(message));
      } catch (err) {
        this.onError(err);
      } finally {
        this.remove(row, message);
        this.running.delete(id);
        // Messages of the same key may be due now; anything else due was seen by the last look.
        if (row.ordering_key !== null) {
          this.busyKeys.delete(row.ordering_key);
          this.seenUntil = null;
        }
        this.wake?.();
      }
    };
    const task = run().finally(() => this.inFlight.delete(task));
    this.inFlight.add(task);
  }

  /**
   * Deletes a handled message later, with the others handled within REMOVAL_WINDOW_MS, in one write (in the
   * store's write group on the server): a few commits (and fsyncs) for a fan-out of deliveries finishing one by
   * one instead of one each. Nobody waits for it: the handler's place is free at once (the message is skipped
   * meanwhile), and a crash before the deletion hands the message to the next start, as one during its
   * handling would.
   */
  private remove(row: Row, message: unknown): void {
    this.handled.push({ row, message });
    this.removing.add(String(row.id));
    if (this.handled.length >= MAX_REMOVAL_BATCH) this.removeHandled();
    else if (!this.removal) {
      this.removal = setTimeout(() => this.removeHandled(), REMOVAL_WINDOW_MS);
      this.removal.unref();
    }
  }

  private removeHandled(): void {
    if (this.removal) clearTimeout(this.removal);
    this.removal = null;
    const batch = this.handled.splice(0);
    if (batch.length === 0) return;
    try {
      this.writes.transaction(() => {
        for (const done of batch) {
          const { changes } = this.sql('DELETE FROM federation_queue WHERE id = ?').run(done.row.id);
          if (changes > 0 && isInboxMessage(done.message)) {
            this.inbox.messages--;
            this.inbox.bytes -= Buffer.byteLength(done.row.message);
          }
        }
      });
    } catch (err) {
      this.onError(err);
    }
    // Deleted (or, if that failed, handed to the next look at the table: at least once).
    for (const done of batch) this.removing.delete(String(done.row.id));
    // The rows skipped while awaiting their deletion are gone (they were due: the next delayed time stays).
    this.seenUntil = null;
  }

  /** Anything may have changed (another process's enqueue, a jump of the clock): both looks again. */
  private changed(): void {
    this.seenUntil = null;
    this.nextDelayedAt = null;
  }

  private nextDue(): Row | null {
    // Ids first: the rows skipped (running, awaiting their deletion) are not read whole, only the one taken.
    const limit = this.concurrency + this.running.size + this.busyKeys.size + this.removing.size;
    const now = this.now();
    // Its parameters become `+?` (statementsOf): a bare bound LIMIT made SQLite compile it again at every run.
    const rows = this.sql(
      'SELECT id, ordering_key FROM federation_queue WHERE deliver_at <= ? ORDER BY deliver_at, id LIMIT ?',
    ).all(now, limit) as Omit<Row, 'message'>[];
    const takeable = rows.filter(
      (r) =>
        !this.running.has(String(r.id)) &&
        !this.removing.has(String(r.id)) &&
        (r.ordering_key === null || !this.busyKeys.has(r.ordering_key)),
    );
    // Every due row was read and none but the one taken now could be: no need to look again until a change.
    this.seenUntil = rows.length < limit && takeable.length <= 1 ? now : null;
    // The next delayed time holds until it is due: this process's enqueues fold theirs in, the rows taken and
    // deleted were due already (it was read after every look before: once per inbox message in a flood).
    if (this.nextDelayedAt !== null && this.nextDelayedAt <= now) this.nextDelayedAt = null;
    const due = takeable[0];
    if (!due) return null;
    const message = this.sql('SELECT message FROM federation_queue WHERE id = ?').pluck().get(due.id) as
      | string
      | undefined;
    return message === undefined ? null : { ...due, message };
  }

  /** Until the next delayed message is due, at most maxIdleMs (the table read again only after a change). */
  private idleDelay(): number {
    if (this.nextDelayedAt === null) {
      // Past the last look (a message due since then is taken at once), else past now.
      const r = this.sql('SELECT MIN(deliver_at) AS next FROM federation_queue WHERE deliver_at > ?').get(
        this.seenUntil ?? this.now(),
      ) as { next: bigint | null };
      this.nextDelayedAt = r.next === null ? Number.POSITIVE_INFINITY : Number(r.next);
    }
    return Math.max(1, Math.min(this.maxIdleMs, this.nextDelayedAt - this.now()));
  }

  /** Resolves true when woken (or aborted), false when `ms` ran out. */
  private sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
    return new Promise((resolve) => {
      let woken = true;
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        if (this.wake === done) this.wake = null;
        resolve(woken);
      };
      const timer = setTimeout(() => {
        woken = false;
        done();
      }, ms);
      this.wake = done;
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}

function isInboxMessage(message: unknown): boolean {
  return (message as { type?: unknown } | null)?.type === 'inbox';
}
