/**
 * `$all` positions. Every event gets a unique integer p > 0 (its prepare position). A plain write's
 * event sits at (p, p). An explicit transaction of k events is laid out as prepares p, p+2, …, p+2(k-1)
 * and one commit slot C = p+2k-1 that all its events share, so (C, p_i) never collides with a cursor.
 *
 * Cursors handed out never equal a real event's position (catch-up subscriptions treat their start as
 * exclusive): forward next after (c, p) is (c+1, 0) at the end of a commit group and (c, p+1) inside a
 * transaction; head of log is (last+1, 0); backward next is the oldest returned event's own position.
 */
import type { Position } from './types.ts';

export function position(commitPosition: number, preparePosition: number): Position {
  return { commitPosition, preparePosition };
}

export function comparePositions(a: Position, b: Position): number {
  return a.commitPosition - b.commitPosition || a.preparePosition - b.preparePosition;
}

/** The forward cursor just after an event at (commit, prepare). */
export function forwardCursorAfter(commitPosition: number, preparePosition: number): Position {
  const lastOfGroup = preparePosition === commitPosition || preparePosition + 1 === commitPosition;
  return lastOfGroup ? position(commitPosition + 1, 0) : position(commitPosition, preparePosition + 1);
}

/** A committed explicit transaction: its prepares occupy [firstPosition, commitPosition). */
export interface CommittedTransactionSpan {
  firstPosition: number;
  commitPosition: number;
}

/**
 * The smallest storage key (prepare position) whose event is at or after (c, p) in `$all` order.
 * `span` is the first committed transaction with commit position >= c, if any.
 */
export function forwardStartKey(c: number, p: number, span: CommittedTransactionSpan | undefined): number {
  if (span && span.firstPosition <= c) {
    // c falls inside a transaction's range of positions.
    if (span.commitPosition > c) return span.firstPosition;
    return p <= c - 1 ? Math.max(span.firstPosition, p) : c + 1;
  }
  return p > c ? c + 1 : c;
}

/** The largest storage key whose event is strictly before (c, p) in `$all` order. */
export function backwardEndKey(c: number, p: number, span: CommittedTransactionSpan | undefined): number {
  if (span && span.firstPosition <= c) {
    if (span.commitPosition > c) return span.firstPosition - 1;
    return p - 1 >= span.firstPosition ? Math.min(c - 1, p - 1) : span.firstPosition - 1;
  }
  return p > c ? c : c - 1;
}
