import { describe, expect, it } from 'vitest';
import type { LiveStatus } from '../api/live.ts';
import { liveStatusHandler, pauseControls, toggleExpanded } from './live-tail.ts';

describe('live tail pieces', () => {
  it('reloads once when the tail comes back after a drop, never on the first connect', () => {
    let reloads = 0;
    const shown: LiveStatus[] = [];
    const onStatus = liveStatusHandler(
      () => reloads++,
      (s) => shown.push(s),
    );
    onStatus('connecting');
    onStatus('live');
    expect(reloads).toBe(0);
    onStatus('reconnecting');
    onStatus('reconnecting');
    onStatus('live');
    expect(reloads).toBe(1);
    onStatus('live');
    expect(reloads).toBe(1);
    expect(shown).toEqual(['connecting', 'live', 'reconnecting', 'reconnecting', 'live', 'live']);
  });

  it('flips one row at a time', () => {
    const one = toggleExpanded<number>({}, 3);
    expect(one).toEqual({ 3: true });
    expect(toggleExpanded(one, 3)).toEqual({});
    expect(one).toEqual({ 3: true });
  });

  it('goes back to the newest events on resume only when paused there', async () => {
    let atNewest = true;
    let shownNewest = 0;
    const states: { paused: boolean; arrived: number }[] = [];
    const c = pauseControls(
      () => atNewest,
      (s) => states.push(s),
      async () => {
        shownNewest++;
      },
    );
    c.pause();
    await c.resume();
    expect(shownNewest).toBe(1);
    atNewest = false;
    c.pause();
    await c.resume();
    expect(shownNewest).toBe(1);
    expect(states).toEqual([
      { paused: true, arrived: 0 },
      { paused: false, arrived: 0 },
      { paused: true, arrived: 0 },
      { paused: false, arrived: 0 },
    ]);
  });
});
