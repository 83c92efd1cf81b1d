/**
 * A bounded map that forgets the least recently used entries. Used for serialized parts of entities
 * whose key includes everything they depend on (so entries never go stale, they only age out). Bounded
 * by entries and, when a weigh function is given, by the bytes its entries hold.
 */
export class LruCache<K, V> {
  private readonly map = new Map<K, { value: V; bytes: number }>();
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private readonly weigh: ((value: V) => number) | null;
  private bytes = 0;

  constructor(maxEntries: number, bytes?: { max: number; weigh: (value: V) => number }) {
    this.maxEntries = maxEntries;
    this.maxBytes = bytes?.max ?? Infinity;
    this.weigh = bytes?.weigh ?? null;
  }

  get(key: K): V | undefined {
    const entry = this.map.get(key);
    if (entry !== undefined) {
      this.map.delete(key);
      this.map.set(key, entry);
    }
    return entry?.value;
  }

  set(key: K, value: V): void {
    this.delete(key);
    const bytes = this.weigh ? this.weigh(value) : 0;
    if (bytes > this.maxBytes) return;
    this.map.set(key, { value, bytes });
    this.bytes += bytes;
    while (this.map.size > this.maxEntries || this.bytes > this.maxBytes) this.delete(this.map.keys().next().value as K);
  }

  delete(key: K): void {
    const entry = this.map.get(key);
    if (entry === undefined) return;
    this.map.delete(key);
    this.bytes -= entry.bytes;
  }

  get size(): number {
    return this.map.size;
  }

  /** Bytes held, as the weigh function counts them (0 without one). */
  get weight(): number {
    return this.bytes;
  }
}
