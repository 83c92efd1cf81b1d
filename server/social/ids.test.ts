import { describe, expect, it } from 'vitest';
import { isId, SnowflakeGenerator, snowflakeAt, snowflakeLowerBound, snowflakeTime } from './ids.ts';

describe('snowflake ids', () => {
  it('encode the millisecond and increase strictly, also within one millisecond and when the clock goes back', () => {
    let now = 1_700_000_000_000;
    const ids = new SnowflakeGenerator(() => now);
    const a = ids.next();
    const b = ids.next();
    now -= 5000;
    const c = ids.next();
    expect(BigInt(b)).toBeGreaterThan(BigInt(a));
    expect(BigInt(c)).toBeGreaterThan(BigInt(b));
    expect(snowflakeTime(a)).toBe(1_700_000_000_000);
    now += 10_000;
    expect(snowflakeTime(ids.next())).toBe(1_700_000_005_000);
  });

  it('carry into the next millisecond once the 16-bit sequence is used up', () => {
    const ids = new SnowflakeGenerator(() => 1_700_000_000_000);
    let last = 0n;
    for (let i = 0; i < 70_000; i++) {
      const id = BigInt(ids.next());
      expect(id > last).toBe(true);
      last = id;
    }
    // The sequence starts at a random point, so 70,000 ids span into one or two further milliseconds.
    expect([1_700_000_000_001, 1_700_000_000_002]).toContain(snowflakeTime(last.toString()));
  });

  it('place past items by time and validate id strings', () => {
    expect(snowflakeTime(snowflakeAt(1_500_000_000_000))).toBe(1_500_000_000_000);
    expect(BigInt(snowflakeLowerBound(1_500_000_000_000))).toBeLessThanOrEqual(BigInt(snowflakeAt(1_500_000_000_000)));
    expect(isId('117658516342839163')).toBe(true);
    expect(isId('9223372036854775807')).toBe(true);
    expect(isId('9223372036854775808')).toBe(false);
    expect(isId('12a')).toBe(false);
    expect(isId(12)).toBe(false);
  });
});
