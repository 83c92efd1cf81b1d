import { describe, expect, it } from 'vitest';
import { backwardEndKey, comparePositions, forwardCursorAfter, forwardStartKey } from './positions.ts';

// A transaction of 3 events: prepares 10, 12, 14 and commit slot 15 (positions 11 and 13 stay unused).
const span = { firstPosition: 10, commitPosition: 15 };

describe('$all cursor arithmetic', () => {
  it('steps past a plain event to (p+1, 0), inside a transaction to (C, p+1), past its last event to (C+1, 0)', () => {
    expect(forwardCursorAfter(7, 7)).toEqual({ commitPosition: 8, preparePosition: 0 });
    expect(forwardCursorAfter(15, 10)).toEqual({ commitPosition: 15, preparePosition: 11 });
    expect(forwardCursorAfter(15, 14)).toEqual({ commitPosition: 16, preparePosition: 0 });
  });

  it('maps a forward start position to the first storage key at or after it', () => {
    expect(forwardStartKey(0, 0, undefined)).toBe(0);
    expect(forwardStartKey(8, 0, span)).toBe(8);
    expect(forwardStartKey(8, 8, span)).toBe(8);
    expect(forwardStartKey(8, 9, span)).toBe(9);
    // Any position inside the transaction's range but before its commit: the whole transaction follows.
    expect(forwardStartKey(10, 0, span)).toBe(10);
    expect(forwardStartKey(12, 12, span)).toBe(10);
    // (C, p): the transaction's events with prepare >= p.
    expect(forwardStartKey(15, 0, span)).toBe(10);
    expect(forwardStartKey(15, 11, span)).toBe(11);
    expect(forwardStartKey(15, 14, span)).toBe(14);
    expect(forwardStartKey(15, 15, span)).toBe(16);
  });

  it('maps a backward start position to the last storage key strictly before it', () => {
    expect(backwardEndKey(8, 8, undefined)).toBe(7);
    expect(backwardEndKey(8, 9, undefined)).toBe(8);
    expect(backwardEndKey(12, 12, span)).toBe(9);
    expect(backwardEndKey(15, 0, span)).toBe(9);
    expect(backwardEndKey(15, 12, span)).toBe(11);
    expect(backwardEndKey(15, 15, span)).toBe(14);
    expect(backwardEndKey(16, 0, undefined)).toBe(15);
  });

  it('orders positions by commit, then prepare', () => {
    expect(
      comparePositions({ commitPosition: 15, preparePosition: 14 }, { commitPosition: 16, preparePosition: 0 }),
    ).toBeLessThan(0);
    expect(
      comparePositions({ commitPosition: 15, preparePosition: 10 }, { commitPosition: 15, preparePosition: 12 }),
    ).toBeLessThan(0);
    expect(comparePositions({ commitPosition: 9, preparePosition: 9 }, { commitPosition: 9, preparePosition: 9 })).toBe(
      0,
    );
  });
});
