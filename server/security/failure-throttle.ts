/**
 * Counts failed credential checks per key (a client address, a user name) in a sliding window and says when a
 * key has failed too often. Bounded: at most `maxKeys` keys are tracked, the oldest dropped first.
 */
export interface FailureThrottleOptions {
  /** Failures allowed per key within the window; the next attempt is refused until old failures age out. */
  limit: number;
  windowMs: number;
  maxKeys?: number;
  now?: () => number;
}

export class FailureThrottle {
  private readonly failures = new Map<string, number[]>();
  private readonly limit: number;
  private readonly windowMs: number;
  private readonly maxKeys: number;
  private readonly now: () => number;

  constructor(options: FailureThrottleOptions) {
    this.limit = options.limit;
    this.windowMs = options.windowMs;
    this.maxKeys = options.maxKeys ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /** Seconds until `key` may try again, or 0 when it may try now. */
  retryAfter(key: string): number {
    const recent = this.recent(key);
    if (recent.length < this.limit) return 0;
    return Math.max(1, Math.ceil((recent[recent.length - this.limit] + this.windowMs - this.now()) / 1000));
  }

  fail(key: string): void {
    const recent = this.recent(key);
    recent.push(this.now());
    this.failures.delete(key);
    this.failures.set(key, recent.slice(-this.limit));
    if (this.failures.size > this.maxKeys) this.failures.delete(this.failures.keys().next().value!);
  }

  succeed(key: string): void {
    this.failures.delete(key);
  }

  private recent(key: string): number[] {
    const since = this.now() - this.windowMs;
    return (this.failures.get(key) ?? []).filter((t) => t > since);
  }
}

/**
 * Credential checks of one kind, throttled per (user name, client address) and per client address over all user
 * names. Nothing is counted per user name alone: failures from one address must never lock the right password
 * out from another (a page in the owner's browser, or a guesser on the internet, would otherwise lock the owner
 * out of their own server).
 */
export class CredentialThrottle {
  /** Guesses at one user's password from one address: a handful of typos. */
  readonly byUserAndAddress: FailureThrottle;
  /** Guesses from one address over every user name (password spraying): a few accounts' worth of typos. */
  readonly byAddress: FailureThrottle;

  constructor(
    options: { now?: () => number; userAndAddressLimit?: number; addressLimit?: number; windowMs?: number } = {},
  ) {
    const windowMs = options.windowMs ?? 15 * 60 * 1000;
    this.byUserAndAddress = new FailureThrottle({
      limit: options.userAndAddressLimit ?? 10,
      windowMs,
      now: options.now,
    });
    this.byAddress = new FailureThrottle({ limit: options.addressLimit ?? 30, windowMs, now: options.now });
  }

  /** Seconds to wait before `user` may try from `address` again (0: go ahead). */
  retryAfter(address: string, user: string): number {
    return Math.max(this.byUserAndAddress.retryAfter(pairKey(address, user)), this.byAddress.retryAfter(address));
  }

  /**
   * A success clears that user's typos from that address only: the address's count over all names stays, so
   * signing in to one's own account between guesses at others does not reset the spraying bound.
   */
  record(address: string, user: string, ok: boolean): void {
    if (ok) {
      this.byUserAndAddress.succeed(pairKey(address, user));
      return;
    }
    this.byUserAndAddress.fail(pairKey(address, user));
    this.byAddress.fail(address);
  }
}

// NUL cannot occur in an address, so no (address, user) pair can collide with another.
function pairKey(address: string, user: string): string {
  return `${address}\0${user}`;
}
