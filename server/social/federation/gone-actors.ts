import { LRUCache } from 'lru-cache';
import type { GoneActorRow } from '../store/index.ts';

/** Where the gone list is kept across restarts (social.db's gone_actors). */
export interface GoneActorStore {
  /** Those not yet expired, the latest to expire last. */
  live(): GoneActorRow[];
  remember(id: string, expiresAt: number): void;
  forget(id: string): void;
}

/** Bounds of the remote actors (and keys) known to be gone. */
export interface GoneActorLimits {
  /** How long one is refused without asking its server again (as long as the inbox keeps a verified key). */
  ttlMs: number;
  /** Most remembered at once; past it the least recently refused is forgotten first. */
  max: number;
}

export const DEFAULT_GONE_ACTOR_LIMITS: GoneActorLimits = { ttlMs: 60 * 60 * 1000, max: 10_000 };

/**
 * Remote actors deleted on their servers (a verified Delete of the actor, or its 410 Gone), and keys whose
 * server answered 410 Gone: the inbox refuses what they sign at once, before verifying anything and without
 * fetching the actor or the key again per activity (Mastodon no longer knows a deleted account: it refuses its
 * signatures). Bounded in count and time: after `ttlMs` the next activity asks the server again, so an actor its
 * server serves again is taken again. Kept in a store too (each entry with its expiry, the rows bounded as the
 * memory is: one pushed out of memory leaves the store), so a restart does not fetch a gone actor again; the
 * memory is the store's cache, read whole at start, and the inbox's check stays one lookup in it.
 */
export class GoneActors {
  private readonly gone: LRUCache<string, true>;
  private readonly listeners = new Set<(actorId: string) => void>();

  private readonly store: GoneActorStore | null;
  private readonly now: () => number;
  private readonly ttlMs: number;

  /** `store`: where the list outlives the process (none: memory only); `now`: the store's clock. */
  constructor(
    limits: Partial<GoneActorLimits> = {},
    store: GoneActorStore | null = null,
    now: () => number = Date.now,
  ) {
    const { ttlMs, max } = { ...DEFAULT_GONE_ACTOR_LIMITS, ...limits };
    this.ttlMs = ttlMs;
    this.store = store;
    this.now = now;
    this.gone = new LRUCache<string, true>({
      max,
      ttl: ttlMs,
      // Pushed out by newer ones: out of the store too, which stays as bounded as the memory.
      dispose: (_value, id, reason) => {
        if (reason === 'evict') store?.forget(id);
      },
    });
    if (!store) return;
    const at = now();
    // Oldest first, so the newest stay when the store holds more than `max` (a smaller limit than last run's).
    for (const row of store.live()) this.gone.set(row.id, true, { ttl: Math.max(1, row.expiresAt - at) });
  }

  /** The actor `actorId` is gone (its deletion was verified): its keys are forgotten by whoever holds them. */
  actorGone(actorId: string): void {
    this.add(actorId);
    for (const listener of this.listeners) listener(actorId);
  }

  /** The key `keyId` answered 410 Gone from its server. */
  keyGone(keyId: string): void {
    this.add(keyId);
  }

  private add(id: string): void {
    this.gone.set(id, true);
    this.store?.remember(id, this.now() + this.ttlMs);
  }

  /** Whether an actor id or a key id is known to be gone. */
  has(id: string): boolean {
    return this.gone.has(id);
  }

  /** `listener` is called with each actor gone from now on (a key cache forgets its keys). */
  onActorGone(listener: (actorId: string) => void): void {
    this.listeners.add(listener);
  }
}
