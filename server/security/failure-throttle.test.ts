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
  it('blocks a user from the address that failed, never from another address', () => {
    const t = new CredentialThrottle({ userAndAddressLimit: 2, addressLimit: 3, now: () => 0 });
    // Any number of addresses failing at admin leave admin free elsewhere: no count per user name alone.
    for (let i = 1; i <= 50; i++) {
      t.record(`10.0.0.${i}`, 'admin', false);
      t.record(`10.0.0.${i}`, 'admin', false);
    }
    expect(t.retryAfter('10.0.0.1', 'admin')).toBeGreaterThan(0);
    expect(t.retryAfter('10.0.1.1', 'admin')).toBe(0);
    // The same address may still try another user, until its own bound over all names.
    expect(t.retryAfter('10.0.0.1', 'ops')).toBe(0);
    t.record('10.0.0.1', 'ops', false);
    expect(t.retryAfter('10.0.0.1', 'someone')).toBeGreaterThan(0);
  });

  it('clears only that user and address on success, not the address count over all names', () => {
    const t = new CredentialThrottle({ userAndAddressLimit: 2, addressLimit: 3, now: () => 0 });
    t.record('10.0.0.1', 'admin', false);
    t.record('10.0.0.1', 'admin', false);
    t.record('10.0.0.1', 'admin', true);
    expect(t.retryAfter('10.0.0.1', 'admin')).toBe(0);
    t.record('10.0.0.1', 'admin', false);
    expect(t.retryAfter('10.0.0.1', 'admin')).toBeGreaterThan(0);
  });
});
