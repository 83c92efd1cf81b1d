import type { StoreCore } from './store.ts';

/**
 * Values read by key (an account's counters, a status's), reused while nothing at all has been written to
 * the database (StoreCore.cacheStamp): any write, by this connection or another, empties it, so what it
 * returns is what the database says. Under reads alone (clients refreshing timelines) a page's authors and
 * counters are read once instead of per request. Bounded by entries.
 */
export class StampMemo<V> {
  private readonly maxEntries: number;
  private readonly stampNow: () => string | null;
  private stamp: string | null = null;
  private readonly values = new Map<string, V>();

  /** `stampNow`: what empties every value when it moves (null: keep nothing), by default the write stamp. */
  constructor(core: StoreCore, maxEntries: number, stampNow: () => string | null = () => core.cacheStamp()) {
    this.maxEntries = maxEntries;
    this.stampNow = stampNow;
  }

  /** Forgets one value (a write changed what it is made of). */
  forget(key: string): void {
    this.values.delete(key);
  }

  /** Forgets every value. */
  forgetAll(): void {
    this.values.clear();
  }

  /**
   * The values of `keys`: remembered ones, and those `read` returns for the others (keys it leaves out have
   * no value and are asked again next time).
   */
  getMany(keys: readonly string[], read: (missing: string[]) => Map<string, V>): Map<string, V> {
    const stamp = this.stampNow();
    if (stamp === null) return read([...keys]);
    if (stamp !== this.stamp) {
      this.values.clear();
      this.stamp = stamp;
    }
    const found = new Map<string, V>();
    const missing: string[] = [];
    for (const key of keys) {
      const value = this.values.get(key);
      if (value === undefined) missing.push(key);
      else found.set(key, value);
    }
    if (missing.length === 0) return found;
    for (const [key, value] of read(missing)) {
      found.set(key, value);
      if (this.values.size >= this.maxEntries) this.values.clear();
      this.values.set(key, value);
    }
    return found;
  }

  /**
   * The same as `getMany`, as values in the order of `keys` (undefined where there is none): a page asking for
   * every one of its statuses' values reads them by position, without a map made per request.
   */
  getEach(keys: readonly string[], read: (missing: string[]) => Map<string, V>): (V | undefined)[] {
    const stamp = this.stampNow();
    if (stamp !== null && stamp === this.stamp) {
      const values: (V | undefined)[] = [];
      for (const key of keys) {
        const value = this.values.get(key);
        if (value === undefined) break;
        values.push(value);
      }
      if (values.length === keys.length) return values;
    }
    const found = this.getMany(keys, read);
    return keys.map((key) => found.get(key));
  }
}
