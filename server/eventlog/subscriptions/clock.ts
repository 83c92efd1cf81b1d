import { performance } from 'node:perf_hooks';

/**
 * Time as the subscription engines see it. Message timeouts and timed checkpoints run off a Clock so
 * tests can drive them with a ManualClock instead of waiting on wall-clock time.
 */
export interface Clock {
  now(): number;
  /** Calls `fn` every `ms` milliseconds until the returned function is called. */
  every(ms: number, fn: () => void): () => void;
}

export const systemClock: Clock = {
  // Monotonic (a wall-clock jump must not time out, or freeze, every message in flight), in Unix ms.
  now: () => performance.timeOrigin + performance.now(),
  every(ms, fn) {
    const timer = setInterval(fn, ms);
    // Subscription housekeeping must never keep the process alive on its own.
    timer.unref();
    return () => clearInterval(timer);
  },
};

/** A clock that only moves when told to; `advance` fires the timers that fall due, in time order. */
export class ManualClock implements Clock {
  private current: number;
  private timers = new Set<{ ms: number; due: number; fn: () => void }>();

  constructor(start = 1_700_000_000_000) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  every(ms: number, fn: () => void): () => void {
    const timer = { ms: Math.max(1, ms), due: this.current + Math.max(1, ms), fn };
    this.timers.add(timer);
    return () => this.timers.delete(timer);
  }

  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      let next: { ms: number; due: number; fn: () => void } | undefined;
      for (const t of this.timers) if (t.due <= target && (!next || t.due < next.due)) next = t;
      if (!next) break;
      this.current = next.due;
      next.due += next.ms;
      next.fn();
    }
    this.current = target;
  }
}
