import { describe, expect, it } from 'vitest';
import { CredentialThrottle, FailureThrottle } from './failure-throttle.ts';

describe('FailureThrottle', () => {
  it('refuses a key after `limit` failures in the window and lets it try again once they age out', () => {
    let now = 1_000_000;
    const t = new FailureThrottle({ limit: 3, windowMs: 60_000, now: () => now });
    for (let i = 0; i < 3; i++) {
      expect(t.retryAfter('ip:1')).toBe(0);
      t.fail('ip:1');
      now += 1000;
    }
    expect(t.retryAfter('ip:1')).toBe(57);
    expect(t.retryAfter('ip:2')).toBe(0);
    now += 57_000;
    expect(t.retryAfter('ip:1')).toBe(0);
    t.succeed('ip:1');
    expect(t.retryAfter('ip:1')).toBe(0);
  });

  it('tracks a bounded number of keys', () => {
    const t = new FailureThrottle({ limit: 1, windowMs: 60_000, maxKeys: 2, now: () => 0 });
    t.fail('a');
    t.fail('b');
    t.fail('c');
    expect(t.retryAfter('a')).toBe(0);
    expect(t.retryAfter('c')).toBeGreaterThan(0);
  });
});

describe('CredentialThrottle', () => {
  it('blocks by address and by user, and a success clears only the address', () => {
    const t = new CredentialThrottle({ addressLimit: 2, userLimit: 3, now: () => 0 });
    t.record('10.0.0.1', 'admin', false);
    t.record('10.0.0.1', 'admin', false);
    expect(t.retryAfter('10.0.0.1', 'someone')).toBeGreaterThan(0);
    expect(t.retryAfter('10.0.0.2', 'admin')).toBe(0);
    t.record('10.0.0.2', 'admin', false);
    expect(t.retryAfter('10.0.0.3', 'admin')).toBeGreaterThan(0);
    t.record('10.0.0.1', 'admin', true);
    expect(t.retryAfter('10.0.0.1', 'other')).toBe(0);
  });
});
