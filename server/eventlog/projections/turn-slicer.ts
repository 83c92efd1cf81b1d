/**
 * Shares the server's event loop between the projections catching up and everything else. The loop is
 * one per thread, so the slice is too: each projection asks before reading its next page, and once the
 * projections together held the loop for TURN_BUDGET_MS in this turn (their reads and handlers, and the
 * commits of what they wrote, which run inside the store's group commit), the next one waits for a later
 * turn (setImmediate, after pending I/O). Requests keep being answered while 50,000 events are projected.
 */
import { performance } from 'node:perf_hooks';

/** Work the projections may do in one turn of the event loop before letting I/O in. */
export const TURN_BUDGET_MS = 20;

/** When the projections' work in this turn began; null: none yet. */
let turnStart: number | null = null;

function beginTurn(at: number): void {
  if (turnStart !== null) return;
  turnStart = at;
  // Runs once this turn is over (a later check phase): the next turn starts a new slice.
  setImmediate(() => {
    turnStart = null;
  });
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Resolves at once while this turn's budget lasts, else in a later turn. */
export async function shareTurn(): Promise<void> {
  for (;;) {
    const now = performance.now();
    if (turnStart === null) {
      beginTurn(now);
      return;
    }
    if (now - turnStart < TURN_BUDGET_MS) return;
    await nextTurn();
  }
}

/** Runs a projection's part of a group commit, counting its time against the turn it runs in. */
export function chargedToTurn<T>(write: () => T): T {
  const started = performance.now();
  try {
    return write();
  } finally {
    beginTurn(started);
  }
}
