import { describe, expect, it } from 'vitest';
import type { UiReplication } from '../../api/types.ts';
import { percentDone } from './replication-progress.ts';

const running = (progress: Partial<NonNullable<UiReplication['progress']>> | null): UiReplication => ({
  id: 'r',
  from: 'tcp://127.0.0.1:1113',
  to: 'this Homeport',
  continuous: false,
  startedAt: 0,
  state: 'running',
  progress: progress && {
    // What the bar reads first, then the figures it does not.
    position: null,
    head: null,
    phase: 'catching-up',
    ...{ handled: 0, copied: 0, eventsPerSecond: 0, etaSeconds: null, lagMs: null, error: null },
    ...progress,
  },
  summary: null,
  error: null,
});

describe('percentDone (the Replication page’s bar)', () => {
  it('is the commit position against the head, to a tenth of a percent', () => {
    expect(percentDone(running({ position: '2500/2500', head: '10000/10000' }))).toBe(25);
    expect(percentDone(running({ position: '1/1', head: '3/3' }))).toBe(33.3);
    // Positions past 2^53 still divide exactly.
    expect(percentDone(running({ position: '9007199254740993/0', head: '18014398509481986/0' }))).toBe(50);
  });

  it('is unknown while connecting, 0 before the first event, 100 live, finished or for an empty source', () => {
    expect(percentDone(running(null))).toBeNull();
    expect(percentDone(running({ phase: 'connecting' }))).toBeNull();
    expect(percentDone(running({ head: '10/10' }))).toBe(0);
    expect(percentDone(running({ phase: 'live', position: '5/5', head: '10/10' }))).toBe(100);
    expect(percentDone({ ...running(null), state: 'finished' })).toBe(100);
    expect(percentDone(running({ position: null, head: null }))).toBe(100);
  });
});
