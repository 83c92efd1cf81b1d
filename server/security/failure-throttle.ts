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

/** Credential checks of one kind, throttled per client address and per user name. */
export class CredentialThrottle {
  readonly byAddress: FailureThrottle;
  readonly byUser: FailureThrottle;

  constructor(options: { now?: () => number; addressLimit?: number; userLimit?: number; windowMs?: number } = {}) {
    const windowMs = options.windowMs ?? 15 * 60 * 1000;
    // Per address: a handful of typos. Per user: higher, so one attacker cannot lock the owner out from every
    // address, yet a distributed guesser still gets few tries.
    this.byAddress = new FailureThrottle({ limit: options.addressLimit ?? 10, windowMs, now: options.now });
    this.byUser = new FailureThrottle({ limit: options.userLimit ?? 50, windowMs, now: options.now });
  }

  /** Seconds to wait before `user` may try from `address` again (0: go ahead). */
  retryAfter(address: string, user: string): number {
    return Math.max(this.byAddress.retryAfter(address), this.byUser.retryAfter(user));
  }

  record(address: string, user: string, ok: boolean): void {
    if (ok) {
      this.byAddress.succeed(address);
      return;
    }
    this.byAddress.fail(address);
    this.byUser.fail(user);
  }
}
