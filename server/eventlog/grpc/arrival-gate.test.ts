import { describe, expect, it } from 'vitest';
import { ArrivalGate, MAX_WAIT_TURNS, StreamArrivals } from './arrival-gate.ts';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Records when each promise settles, counted in event-loop turns from the start. */
function watch(gate: Promise<void>, log: string[], name: string) {
  void gate.then(() => log.push(name));
}

describe('ArrivalGate', () => {
  it('lets a lone append through at once', async () => {
    const gate = new ArrivalGate();
    const log: string[] = [];
    watch(gate.start().ready(), log, 'a');
    await Promise.resolve();
    expect(log).toEqual(['a']);
  });

  it('holds a complete append while another arrives, then releases both in the same turn', async () => {
    const gate = new ArrivalGate();
    const log: string[] = [];
    const a = gate.start();
    const b = gate.start();
    watch(a.ready(), log, 'a');
    await turn();
    expect(log).toEqual([]);
    watch(b.ready(), log, 'b');
    await Promise.resolve();
    await Promise.resolve();
    expect(log).toEqual(['a', 'b']);
  });

  it('waits a bounded number of turns for an append that never completes', async () => {
    const gate = new ArrivalGate();
    const log: string[] = [];
    gate.start(); // never completes
    watch(gate.start().ready(), log, 'a');
    for (let i = 0; i < MAX_WAIT_TURNS - 1; i++) {
      await turn();
      expect(log).toEqual([]);
    }
    await turn();
    await turn();
    expect(log).toEqual(['a']);
    // The next complete append waits again, bounded again.
    watch(gate.start().ready(), log, 'b');
    for (let i = 0; i < MAX_WAIT_TURNS + 1; i++) await turn();
    expect(log).toEqual(['a', 'b']);
  });

  it('releases the waiting ones when the last arriving append is abandoned', async () => {
    const gate = new ArrivalGate();
    const log: string[] = [];
    const broken = gate.start();
    watch(gate.start().ready(), log, 'a');
    broken.abandon();
    broken.abandon(); // twice is once
    await Promise.resolve();
    expect(log).toEqual(['a']);
    watch(gate.start().ready(), log, 'b');
    await Promise.resolve();
    expect(log).toEqual(['a', 'b']);
  });
});

describe('StreamArrivals', () => {
  it('runs ready appends together once the stream is quiet for a turn', async () => {
    const arrivals = new StreamArrivals();
    const log: string[] = [];
    arrivals.whenQuiet(() => log.push('a'));
    arrivals.delivering();
    arrivals.whenQuiet(() => log.push('b'));
    await turn();
    expect(log).toEqual([]); // a message came during that turn: wait one more
    await turn();
    expect(log).toEqual(['a', 'b']);
  });

  it('waits at most a bounded number of turns while the stream keeps delivering', async () => {
    const arrivals = new StreamArrivals();
    const log: string[] = [];
    arrivals.whenQuiet(() => log.push('a'));
    for (let i = 0; i < MAX_WAIT_TURNS + 2 && log.length === 0; i++) {
      arrivals.delivering();
      await turn();
    }
    expect(log).toEqual(['a']);
  });
});
