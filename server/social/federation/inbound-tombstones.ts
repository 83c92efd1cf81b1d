import type { KvKey, KvStore } from '@fedify/fedify';
import { duration } from './time.ts';

/** Bounds of the deletions remembered for posts not seen yet. */
export interface TombstoneLimits {
  /** How long one is remembered (Mastodon's `delete_upon_arrival` lasts 6 hours). */
  ttlMs: number;
  /** Most remembered at once by this process; past it the oldest is forgotten first. */
  max: number;
}

export const DEFAULT_TOMBSTONE_LIMITS: TombstoneLimits = { ttlMs: 6 * 60 * 60 * 1000, max: 10_000 };

/**
 * Deletions of remote posts that arrived before the posts themselves (deliveries are not ordered: a Delete
 * sent a second after its Create may be handled first). Mastodon remembers such a deletion for 6 hours and drops
 * a Create (or an Update) of that post by that author meanwhile; without it the deleted post would appear
 * later and stay. Kept in Fedify's key-value store (on disk, so a restart between the two keeps it; expired
 * ones read as missing and are swept) and bounded in time and in count: a sender deleting posts nobody here
 * ever saw cannot grow it past `max`.
 */
export class InboundTombstones {
  private readonly kv: KvStore;
  private readonly limits: TombstoneLimits;
  private readonly now: () => number;
  /** What this process remembered, oldest first (a Map keeps insertion order), with when each expires. */
  private readonly remembered = new Map<string, number>();

  constructor(kv: KvStore, now: () => number, limits: Partial<TombstoneLimits> = {}) {
    this.kv = kv;
    this.now = now;
    this.limits = { ...DEFAULT_TOMBSTONE_LIMITS, ...limits };
  }

  /** The author `accountId` deleted the post `uri`, which is not here (yet). */
  async remember(accountId: string, uri: string): Promise<void> {
    const name = JSON.stringify([accountId, uri]);
    const now = this.now();
    this.remembered.delete(name);
    this.remembered.set(name, now + this.limits.ttlMs);
    const forgotten: string[] = [];
    for (const [oldest, expiresAt] of this.remembered) {
      if (this.remembered.size - forgotten.length <= this.limits.max && expiresAt > now) break;
      forgotten.push(oldest);
    }
    for (const oldest of forgotten) this.remembered.delete(oldest);
    await Promise.all([
      this.kv.set(keyOf(accountId, uri), true, { ttl: duration(this.limits.ttlMs) }),
      ...forgotten.map((oldest) => this.kv.delete(keyOf(...(JSON.parse(oldest) as [string, string])))),
    ]);
  }

  /** Whether the author deleted the post `uri` before it arrived, within the bounds. */
  async deletedFirst(accountId: string, uri: string): Promise<boolean> {
    const name = JSON.stringify([accountId, uri]);
    const expiresAt = this.remembered.get(name);
    if (expiresAt !== undefined && expiresAt <= this.now()) {
      this.remembered.delete(name);
      return false;
    }
    // Not remembered by this process: one remembered before a restart, still in the store until it expires.
    return (await this.kv.get(keyOf(accountId, uri))) === true;
  }
}

function keyOf(accountId: string, uri: string): KvKey {
  return ['homeport', 'deleted-before-arrival', accountId, uri];
}
