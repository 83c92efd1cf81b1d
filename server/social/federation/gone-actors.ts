import { LRUCache } from 'lru-cache';

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
 * signatures). Kept in memory, bounded in count and time: after `ttlMs` the next activity asks the server again,
 * so an actor its server serves again is taken again.
 */
export class GoneActors {
  private readonly gone: LRUCache<string, true>;
  private readonly listeners = new Set<(actorId: string) => void>();

  constructor(limits: Partial<GoneActorLimits> = {}) {
    const { ttlMs, max } = { ...DEFAULT_GONE_ACTOR_LIMITS, ...limits };
    this.gone = new LRUCache<string, true>({ max, ttl: ttlMs });
  }

  /** The actor `actorId` is gone (its deletion was verified): its keys are forgotten by whoever holds them. */
  actorGone(actorId: string): void {
    this.gone.set(actorId, true);
    for (const listener of this.listeners) listener(actorId);
  }

  /** The key `keyId` answered 410 Gone from its server. */
  keyGone(keyId: string): void {
    this.gone.set(keyId, true);
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
