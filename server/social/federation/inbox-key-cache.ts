import type { KeyCache } from '@fedify/fedify';
import type { CryptographicKey, Multikey } from '@fedify/vocab';
import { LRUCache } from 'lru-cache';

/** Verified keys are kept this long (peers rotate keys rarely; a failing check fetches the key again). */
const KEY_TTL_MS = 60 * 60 * 1000;
/** A key that could not be fetched is not asked for again this soon (Fedify's own cache waits as long). */
const UNAVAILABLE_KEY_TTL_MS = 10 * 60 * 1000;

type Key = CryptographicKey | Multikey;
interface KeyFetchFailure {
  status: number;
  response: Response;
}

/** Longest wait for another request's fetch of the same key (longer than a remote fetch may take). */
const SHARED_FETCH_WAIT_MS = 15_000;

/**
 * The keys the intake verified signatures with, in memory and bounded (Fedify's own key cache is internal to
 * its inbox handler, which verifies again once the intake let a request through). Requests signed with a key
 * being fetched wait for that fetch instead of fetching and parsing the same actor again (a burst from a new
 * peer would otherwise fetch its key once per request).
 */
export class IntakeKeyCache implements KeyCache {
  private readonly keys = new LRUCache<string, { key: Key | null }>({ max: 2_000, ttl: KEY_TTL_MS });
  /** Only the status of a failed fetch is kept, not the answer's body (that could be large). */
  private readonly failures = new LRUCache<string, { status: number }>({ max: 2_000, ttl: UNAVAILABLE_KEY_TTL_MS });
  /** Keys as handed to the verifier's worker (exported once per key). */
  private readonly jwks = new WeakMap<Key, JsonWebKey>();
  /** Keys being fetched: settled when the fetch stores its result (or after SHARED_FETCH_WAIT_MS). */
  private readonly fetching = new Map<string, { done: Promise<void>; settle: () => void }>();

  /** The key held for `keyId`, as an RSA public key of a JWK, or null (not held, not RSA, being fetched). */
  async heldRsaKey(keyId: string): Promise<{ owner: string; jwk: JsonWebKey } | null> {
    const key = this.keys.get(keyId)?.key;
    if (!key || !('ownerId' in key)) return null;
    const { publicKey } = key;
    const owner = key.ownerId?.href;
    if (!publicKey || !owner || publicKey.algorithm.name !== 'RSASSA-PKCS1-v1_5') return null;
    let jwk = this.jwks.get(key);
    if (!jwk) {
      jwk = await crypto.subtle.exportKey('jwk', publicKey);
      this.jwks.set(key, jwk);
    }
    return { owner, jwk };
  }

  async get(keyId: URL): Promise<Key | null | undefined> {
    const cached = this.keys.get(keyId.href);
    if (cached) return cached.key;
    const inFlight = this.fetching.get(keyId.href);
    if (inFlight) {
      await inFlight.done;
      return this.keys.get(keyId.href)?.key;
    }
    // This caller fetches the key (Fedify does, on this miss); others wait for it.
    let settle = () => {};
    const done = new Promise<void>((resolve) => (settle = resolve));
    const timer = setTimeout(() => this.settle(keyId.href), SHARED_FETCH_WAIT_MS);
    timer.unref();
    this.fetching.set(keyId.href, {
      done,
      settle: () => {
        clearTimeout(timer);
        settle();
      },
    });
    return undefined;
  }

  async set(keyId: URL, key: Key | null): Promise<void> {
    this.keys.set(keyId.href, { key }, key === null ? { ttl: UNAVAILABLE_KEY_TTL_MS } : {});
    this.settle(keyId.href);
  }

  /** Why a key was unavailable, kept beside it (a 410 Gone says its account was deleted); null clears it. */
  async getFetchError(keyId: URL): Promise<KeyFetchFailure | undefined> {
    const failure = this.failures.get(keyId.href);
    return failure ? { status: failure.status, response: new Response(null, { status: failure.status }) } : undefined;
  }

  async setFetchError(keyId: URL, failure: KeyFetchFailure | null): Promise<void> {
    if (failure) this.failures.set(keyId.href, { status: failure.status });
    else this.failures.delete(keyId.href);
  }

  /** Forgets the keys `owner` owns (its account is gone); returns their ids. */
  forgetOwner(owner: string): string[] {
    const ids: string[] = [];
    for (const [id, { key }] of this.keys.entries()) {
      if (key && 'ownerId' in key && key.ownerId?.href === owner) ids.push(id);
    }
    for (const id of ids) this.keys.delete(id);
    return ids;
  }

  private settle(href: string): void {
    const inFlight = this.fetching.get(href);
    this.fetching.delete(href);
    inFlight?.settle();
  }
}
