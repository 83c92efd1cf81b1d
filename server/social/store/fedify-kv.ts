import type { KvKey, KvStore, KvStoreListEntry, KvStoreSetOptions } from '@fedify/fedify';
import type { Database } from '../../db/index.ts';
import { ownTransactions, type SharedWrites, statementsOf } from './statements.ts';

/**
 * Fedify's key-value store (key cache, fetched documents, inbox idempotence) in social.db. Keys are stored as
 * JSON arrays, so a prefix of the key is a prefix of the text; expired entries read as missing and are swept.
 */
export class SqliteKvStore implements KvStore {
  private readonly db: Database;
  private readonly now: () => number;
  private readonly sql: ReturnType<typeof statementsOf>;
  /** Writes awaiting their commit, by encoded key (json null: deleted). */
  private readonly pending = new Map<string, { json: string | null; expiresAt: number | null }>();
  private flushing: Promise<void> | null = null;
  private readonly writes: SharedWrites;
  private readonly writeBehindMs: number;
  private writeBehind: NodeJS.Timeout | null = null;

  /**
   * `writes`: where its writes go (default: a transaction of their own); the server gives the store's group
   * commit. `writeBehindMs` > 0: a set or delete resolves at once (reads see it) and is written with the others
   * of that many milliseconds (see writeLater).
   */
  constructor(
    db: Database,
    now: () => number = Date.now,
    writes: SharedWrites = ownTransactions(db),
    writeBehindMs = 0,
  ) {
    this.db = db;
    this.now = now;
    this.writes = writes;
    this.writeBehindMs = writeBehindMs;
    this.sql = statementsOf(db);
  }

  async get<T = unknown>(key: KvKey): Promise<T | undefined> {
    return this.read(key) as T | undefined;
  }

  async set(key: KvKey, value: unknown, options?: KvStoreSetOptions): Promise<void> {
    const ttl = options?.ttl ? ttlMs(options.ttl) : null;
    const json = JSON.stringify(value ?? null);
    // Fedify stores, after every successful delivery, the signature spec that worked for the host (mostly the
    // one already stored): a write that changes nothing is skipped.
    if (ttl === null && this.storedForever(key) === json) return;
    this.pending.set(encodeKey(key), { json, expiresAt: ttl === null ? null : Math.round(this.now() + ttl) });
    await this.written();
  }

  async delete(key: KvKey): Promise<void> {
    this.pending.set(encodeKey(key), { json: null, expiresAt: null });
    await this.written();
  }

  private written(): Promise<void> {
    if (this.writeBehindMs <= 0) return this.flushSoon();
    this.writeLater();
    return Promise.resolve();
  }

  /**
   * Write-behind (the server): everything here is a cache (keys, documents, each host's signature spec, inbox
   * idempotence marks) no client's answer depends on, so nobody waits for its commit, and the writes of a few
   * milliseconds share one write (in the store's write group) instead of one commit per delivery to a new host.
   * The store commits groups in order, so a mark is on disk before anything written after it (the queue's
   * deletion of the message it marks). A write that fails stays pending and is tried again with the next.
   */
  private writeLater(): void {
    if (this.writeBehind) return;
    this.writeBehind = setTimeout(() => {
      this.writeBehind = null;
      try {
        this.flush();
      } catch {
        if (this.db.open && this.pending.size > 0) this.writeLater();
      }
    }, this.writeBehindMs);
    this.writeBehind.unref();
  }

  async cas(key: KvKey, expectedValue: unknown, newValue: unknown, options?: KvStoreSetOptions): Promise<boolean> {
    // One synchronous transaction: nothing else can write between the read and the write.
    this.flush();
    return this.db
      .transaction(() => {
        const current = this.read(key);
        if (JSON.stringify(current ?? null) !== JSON.stringify(expectedValue ?? null)) return false;
        if (newValue === undefined) this.sql('DELETE FROM federation_kv WHERE key = ?').run(encodeKey(key));
        else this.write(key, newValue, options);
        return true;
      })
      .immediate();
  }

  async *list(prefix?: KvKey): AsyncIterable<KvStoreListEntry> {
    this.flush();
    let rows: { key: string; value: string }[];
    if (prefix) {
      const exact = encodeKey(prefix);
      // ["a","b"] prefixes ["a","b"] itself and every ["a","b",...].
      const longer = `${exact.slice(0, -1)},`;
      rows = this.sql(
        'SELECT key, value FROM federation_kv WHERE (key = ? OR substr(key, 1, ?) = ?) AND (expires_at IS NULL OR expires_at > ?) ORDER BY key',
      ).all(exact, longer.length, longer, this.now()) as { key: string; value: string }[];
    } else {
      rows = this.sql(
        'SELECT key, value FROM federation_kv WHERE expires_at IS NULL OR expires_at > ? ORDER BY key',
      ).all(this.now()) as { key: string; value: string }[];
    }
    for (const row of rows) yield { key: JSON.parse(row.key) as KvKey, value: JSON.parse(row.value) };
  }

  /** Removes expired entries; returns how many. */
  sweep(): number {
    this.flush();
    return Number(
      this.sql('DELETE FROM federation_kv WHERE expires_at IS NOT NULL AND expires_at <= ?').run(this.now()).changes,
    );
  }

  /**
   * Writes made in the same turn of the event loop commit together at its end (one fsync for a burst of
   * deliveries, each storing its host's signature spec); each set or delete resolves once its commit is done,
   * and reads see pending writes.
   */
  private flushSoon(): Promise<void> {
    this.flushing ??= new Promise<void>((resolve, reject) => {
      setImmediate(() => {
        try {
          this.flush();
        } catch (err) {
          reject(err);
          return;
        }
        this.writes.durable().then(resolve, reject);
      });
    });
    return this.flushing;
  }

  /** Writes what waits to be written now (before the database closes). */
  flush(): void {
    this.flushing = null;
    if (this.pending.size === 0) return;
    const writes = [...this.pending];
    this.writes.transaction(() => {
      for (const [key, { json, expiresAt }] of writes) {
        if (json === null) this.sql('DELETE FROM federation_kv WHERE key = ?').run(key);
        else this.upsert(key, json, expiresAt);
      }
    });
    // Only once committed (a failed commit keeps them, and its waiters see the error); a newer write stays.
    for (const [key, write] of writes) if (this.pending.get(key) === write) this.pending.delete(key);
  }

  private write(key: KvKey, value: unknown, options?: KvStoreSetOptions): void {
    const ttl = options?.ttl ? ttlMs(options.ttl) : null;
    this.upsert(encodeKey(key), JSON.stringify(value ?? null), ttl === null ? null : Math.round(this.now() + ttl));
  }

  private upsert(key: string, json: string, expiresAt: number | null): void {
    this.sql(
      'INSERT INTO federation_kv (key, value, expires_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at',
    ).run(key, json, expiresAt);
  }

  /** The stored text of a key that never expires, else undefined. */
  private storedForever(key: KvKey): string | undefined {
    const pending = this.pending.get(encodeKey(key));
    if (pending) return pending.expiresAt === null ? (pending.json ?? undefined) : undefined;
    const row = this.sql('SELECT value FROM federation_kv WHERE key = ? AND expires_at IS NULL').get(encodeKey(key)) as
      | { value: string }
      | undefined;
    return row?.value;
  }

  private read(key: KvKey): unknown {
    const pending = this.pending.get(encodeKey(key));
    if (pending) {
      if (pending.json === null || (pending.expiresAt !== null && pending.expiresAt <= this.now())) return undefined;
      return JSON.parse(pending.json);
    }
    const row = this.sql('SELECT value, expires_at FROM federation_kv WHERE key = ?').get(encodeKey(key)) as
      | { value: string; expires_at: bigint | number | null }
      | undefined;
    if (!row || (row.expires_at !== null && Number(row.expires_at) <= this.now())) return undefined;
    return JSON.parse(row.value);
  }
}

function encodeKey(key: KvKey): string {
  return JSON.stringify(key);
}

/**
 * A time-to-live in milliseconds, as Temporal's `total` counts it without a reference date (a day is 24 hours),
 * by plain arithmetic on its fields: the Temporal polyfill's `total` (BigInt emulated in JavaScript) took about 1 %
 * of the main thread in an inbound flood, where Fedify marks each activity handled for a day. Years, months and
 * weeks need a reference date: those go to `total` (which refuses them, as before).
 */
export function ttlMs(ttl: NonNullable<KvStoreSetOptions['ttl']>): number {
  if (ttl.years !== 0 || ttl.months !== 0 || ttl.weeks !== 0) return ttl.total({ unit: 'millisecond' });
  return (
    ttl.days * 86_400_000 +
    ttl.hours * 3_600_000 +
    ttl.minutes * 60_000 +
    ttl.seconds * 1_000 +
    ttl.milliseconds +
    ttl.microseconds / 1_000 +
    ttl.nanoseconds / 1_000_000
  );
}
