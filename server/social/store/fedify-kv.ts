import type { KvKey, KvStore, KvStoreListEntry, KvStoreSetOptions } from '@fedify/fedify';
import type { Database } from '../../db/index.ts';

/**
 * Fedify's key-value store (key cache, fetched documents, inbox idempotence) in social.db. Keys are stored as
 * JSON arrays, so a prefix of the key is a prefix of the text; expired entries read as missing and are swept.
 */
export class SqliteKvStore implements KvStore {
  private readonly db: Database;
  private readonly now: () => number;

  constructor(db: Database, now: () => number = Date.now) {
    this.db = db;
    this.now = now;
  }

  async get<T = unknown>(key: KvKey): Promise<T | undefined> {
    return this.read(key) as T | undefined;
  }

  async set(key: KvKey, value: unknown, options?: KvStoreSetOptions): Promise<void> {
    this.write(key, value, options);
  }

  async delete(key: KvKey): Promise<void> {
    this.db.prepare('DELETE FROM federation_kv WHERE key = ?').run(encodeKey(key));
  }

  async cas(key: KvKey, expectedValue: unknown, newValue: unknown, options?: KvStoreSetOptions): Promise<boolean> {
    // One synchronous transaction: nothing else can write between the read and the write.
    return this.db
      .transaction(() => {
        const current = this.read(key);
        if (JSON.stringify(current ?? null) !== JSON.stringify(expectedValue ?? null)) return false;
        if (newValue === undefined) this.db.prepare('DELETE FROM federation_kv WHERE key = ?').run(encodeKey(key));
        else this.write(key, newValue, options);
        return true;
      })
      .immediate();
  }

  async *list(prefix?: KvKey): AsyncIterable<KvStoreListEntry> {
    let rows: { key: string; value: string }[];
    if (prefix) {
      const exact = encodeKey(prefix);
      // ["a","b"] prefixes ["a","b"] itself and every ["a","b",...].
      const longer = `${exact.slice(0, -1)},`;
      rows = this.db
        .prepare(
          'SELECT key, value FROM federation_kv WHERE (key = ? OR substr(key, 1, ?) = ?) AND (expires_at IS NULL OR expires_at > ?) ORDER BY key',
        )
        .all(exact, longer.length, longer, this.now()) as { key: string; value: string }[];
    } else {
      rows = this.db
        .prepare('SELECT key, value FROM federation_kv WHERE expires_at IS NULL OR expires_at > ? ORDER BY key')
        .all(this.now()) as { key: string; value: string }[];
    }
    for (const row of rows) yield { key: JSON.parse(row.key) as KvKey, value: JSON.parse(row.value) };
  }

  /** Removes expired entries; returns how many. */
  sweep(): number {
    return Number(
      this.db.prepare('DELETE FROM federation_kv WHERE expires_at IS NOT NULL AND expires_at <= ?').run(this.now())
        .changes,
    );
  }

  private write(key: KvKey, value: unknown, options?: KvStoreSetOptions): void {
    const ttl = options?.ttl ? options.ttl.total({ unit: 'millisecond' }) : null;
    this.db
      .prepare(
        'INSERT INTO federation_kv (key, value, expires_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at',
      )
      .run(encodeKey(key), JSON.stringify(value ?? null), ttl === null ? null : Math.round(this.now() + ttl));
  }

  private read(key: KvKey): unknown {
    const row = this.db.prepare('SELECT value, expires_at FROM federation_kv WHERE key = ?').get(encodeKey(key)) as
      | { value: string; expires_at: bigint | number | null }
      | undefined;
    if (!row || (row.expires_at !== null && Number(row.expires_at) <= this.now())) return undefined;
    return JSON.parse(row.value);
  }
}

function encodeKey(key: KvKey): string {
  return JSON.stringify(key);
}
