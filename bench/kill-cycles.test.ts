import { describe, expect, it } from 'vitest';
import { runKillCycles } from './kill-cycles.ts';

describe('SIGKILL during appends and posting (short version of npm run bench:kill)', () => {
  it('keeps every acknowledged event and post, exactly once, across three kills', async () => {
    const figures = await runKillCycles({ cycles: 3 });
    expect(figures.cycles).toBe(3);
    expect(figures.eventsAcknowledged).toBeGreaterThan(0);
    expect(figures.postsAcknowledged).toBeGreaterThan(0);
    expect(figures).toMatchObject({ eventsLost: 0, postsLost: 0, eventsDuplicated: 0, postsDuplicated: 0 });
  }, 180_000);
});
