import { describe, expect, it } from 'vitest';
import { LogThrottle } from './log-throttle.ts';

describe('LogThrottle', () => {
  it('passes a few lines per window, then one summary of what it held back', () => {
    let now = 0;
    const lines: string[] = [];
    const t = new LogThrottle({ perWindow: 3, windowMs: 1000, now: () => now });
    for (let i = 0; i < 1000; i++)
      t.log(
        () => lines.push(`line ${i}`),
        (n) => lines.push(`held back ${n}`),
      );
    expect(lines).toEqual(['line 0', 'line 1', 'line 2']);
    now = 1000;
    t.log(
      () => lines.push('next window'),
      (n) => lines.push(`held back ${n}`),
    );
    expect(lines.slice(3)).toEqual(['held back 997', 'next window']);
  });
});
