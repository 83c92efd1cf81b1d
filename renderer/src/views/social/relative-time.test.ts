import { describe, expect, it } from 'vitest';
import { relativeTime } from './RelativeTime.tsx';

describe('relativeTime', () => {
  const at = Date.parse('2026-06-15T12:00:00Z');
  it('reads as the clients people use write it', () => {
    expect(relativeTime('2026-06-15T11:59:50Z', at)).toBe('now');
    expect(relativeTime('2026-06-15T11:55:00Z', at)).toBe('5 min');
    expect(relativeTime('2026-06-15T09:00:00Z', at)).toBe('3 h');
    expect(relativeTime('2026-06-13T12:00:00Z', at)).toBe('2 d');
    expect(relativeTime('2026-06-01T12:00:00Z', at)).toMatch(/1/);
    expect(relativeTime('2025-06-01T12:00:00Z', at)).toMatch(/2025/);
  });
  it('never says a time is in the future (a clock a little ahead)', () => {
    expect(relativeTime('2026-06-15T12:00:30Z', at)).toBe('now');
  });
});
