import { describe, expect, it } from 'vitest';
import { niceCeiling } from './Chart.tsx';

describe('niceCeiling', () => {
  it('rounds the top of the value axis up to 1, 2, 2.5 or 5 times a power of ten', () => {
    expect(niceCeiling(0)).toBe(1);
    expect(niceCeiling(0.3)).toBe(0.5);
    expect(niceCeiling(1)).toBe(1);
    expect(niceCeiling(17)).toBe(20);
    expect(niceCeiling(21)).toBe(25);
    expect(niceCeiling(420)).toBe(500);
    expect(niceCeiling(5001)).toBe(10000);
  });
});
