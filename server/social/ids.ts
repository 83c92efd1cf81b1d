import crypto from 'node:crypto';

const SEQUENCE_BITS = 16n;
const SEQUENCE_MASK = (1n << SEQUENCE_BITS) - 1n;
/** Largest value of a signed 64-bit SQLite INTEGER. */
const MAX_ID = (1n << 63n) - 1n;

/**
 * Mastodon-style snowflake ids: milliseconds since the epoch shifted left 16 bits, OR-ed with a sequence.
 * The sequence starts at a random point per process so the admin CLI and a running server writing in the
 * same millisecond do not collide; it increments within one millisecond and carries into the next.
 */
export class SnowflakeGenerator {
  private lastMs = 0n;
  private sequence: bigint;
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
    this.sequence = BigInt(crypto.randomInt(0, 1 << 16));
  }

  /** A new id, strictly greater than every id this generator returned before. */
  next(): string {
    let ms = BigInt(Math.floor(this.now()));
    if (ms <= this.lastMs) {
      this.sequence += 1n;
      if (this.sequence > SEQUENCE_MASK) {
        this.sequence = 0n;
        this.lastMs += 1n;
      }
      ms = this.lastMs;
    } else {
      this.lastMs = ms;
      this.sequence = (this.sequence + 1n) & SEQUENCE_MASK;
    }
    return ((ms << SEQUENCE_BITS) | this.sequence).toString();
  }
}

/** The id a row created at `ms` would get, with a random sequence (used for remote items with a publish time). */
export function snowflakeAt(ms: number): string {
  return ((BigInt(Math.floor(ms)) << SEQUENCE_BITS) | BigInt(crypto.randomInt(0, 1 << 16))).toString();
}

/** The smallest id of a given millisecond, for time-based cursors. */
export function snowflakeLowerBound(ms: number): string {
  return (BigInt(Math.max(0, Math.floor(ms))) << SEQUENCE_BITS).toString();
}

/** The creation time encoded in a snowflake. */
export function snowflakeTime(id: string): number {
  return Number(BigInt(id) >> SEQUENCE_BITS);
}

/** True for a decimal string that fits a signed 64-bit integer, the only shape an id may have. */
export function isId(value: unknown): value is string {
  if (typeof value !== 'string' || !/^\d{1,19}$/.test(value)) return false;
  return BigInt(value) <= MAX_ID;
}
