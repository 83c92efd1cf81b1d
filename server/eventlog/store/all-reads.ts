/**
 * `$all` reads, forward and backward, plain and filtered. Filtered reads look at stream id and event
 * type only (a light row) and load the matches, examining at most the search window per call.
 */
import { canAccess } from './access.ts';
import type { StoreContext } from './context.ts';
import { compileEventFilter, type EventPredicate } from './filter.ts';
import { SystemStreams } from './metadata.ts';
import {
  backwardEndKey,
  comparePositions,
  forwardCursorAfter,
  forwardStartKey,
  position,
  type CommittedTransactionSpan,
} from './positions.ts';
import { toRecorded, type AllEventRow, type LightRow } from './statements.ts';
import { resolveLink } from './stream-reads.ts';
import {
  MAX_READ_COUNT,
  type Caller,
  type EventFilter,
  type Position,
  type ReadAllResult,
  type ResolvedEvent,
  type ResolvedIndexedEvent,
} from './types.ts';

export interface AllRead {
  direction: 'forward' | 'backward';
  from: Position;
  maxCount: number;
  /** Filtered reads only: the most events examined. */
  maxSearchWindow: number;
  /** null for a plain read; a filtered read with a null filter matches everything. */
  filter: EventFilter | null | undefined;
  resolveLinkTos: boolean;
}

export function readAll(ctx: StoreContext, request: AllRead, caller: Caller): ReadAllResult {
  const { direction, from, maxCount, maxSearchWindow, filter, resolveLinkTos } = request;
  const { sql } = ctx;
  const head = position(ctx.lastPosition + 1, 0);
  let pos = from;
  const fail = (result: ReadAllResult['result'], error?: string): ReadAllResult => ({
    result,
    position: pos,
    events: [],
    nextPosition: position(-1, -1),
    isEndOfStream: false,
    ...(error ? { error } : {}),
  });
  if (!from || !Number.isSafeInteger(from.commitPosition) || !Number.isSafeInteger(from.preparePosition)) {
    return fail('Error', 'Invalid position.');
  }
  if (!Number.isSafeInteger(maxCount) || maxCount > MAX_READ_COUNT)
    return fail('Error', `Read size too big, should be less than ${MAX_READ_COUNT} items`);
  if (maxCount <= 0) return fail('Error', `Invalid max count ${maxCount}, should be positive.`);
  if (from.commitPosition === -1 && from.preparePosition === -1) pos = head;
  if (pos.commitPosition < 0 || pos.preparePosition < 0) return fail('Error', 'Invalid position.');
  if (!canAccess(ctx.streams, SystemStreams.All, 'read', caller)) return fail('AccessDenied');
  let predicate: EventPredicate | null = null;
  if (filter !== undefined) {
    try {
      predicate = compileEventFilter(filter);
    } catch (err) {
      return fail('Error', (err as Error).message);
    }
  }
  const span = sql.transactionSpan.get(pos.commitPosition) as CommittedTransactionSpan | undefined;
  const forward = direction === 'forward';
  const startKey = forward
    ? forwardStartKey(pos.commitPosition, pos.preparePosition, span)
    : backwardEndKey(pos.commitPosition, pos.preparePosition, span);

  let rows: AllEventRow[];
  let lastExamined: { position: number; commit_position: number } | undefined;
  let reachedEnd: boolean;
  if (!predicate) {
    const fetched = (forward ? sql.allForward : sql.allBackward).all(startKey, maxCount + 1) as AllEventRow[];
    reachedEnd = fetched.length <= maxCount;
    rows = reachedEnd ? fetched : fetched.slice(0, maxCount);
    lastExamined = rows[rows.length - 1];
  } else {
    const window = Math.min(
      Number.isSafeInteger(maxSearchWindow) && maxSearchWindow > 0 ? maxSearchWindow : maxCount,
      ctx.limits.maxSearchWindow,
    );
    const matches: number[] = [];
    let examined = 0;
    let key = startKey;
    reachedEnd = false;
    while (examined < window && matches.length < maxCount) {
      const want = Math.min(window - examined, MAX_READ_COUNT);
      const chunk = (forward ? sql.lightForward : sql.lightBackward).all(key, want) as LightRow[];
      for (const row of chunk) {
        examined++;
        lastExamined = row;
        if (predicate(row.stream_id, row.event_type)) {
          matches.push(row.position);
          if (matches.length === maxCount) break;
        }
      }
      if (chunk.length < want && (matches.length < maxCount || lastExamined === chunk[chunk.length - 1])) {
        reachedEnd = true;
        break;
      }
      if (lastExamined) key = forward ? lastExamined.position + 1 : lastExamined.position - 1;
    }
    if (!reachedEnd) {
      reachedEnd = lastExamined
        ? !(forward ? sql.anyAfter.get(lastExamined.position) : sql.anyBefore.get(lastExamined.position))
        : true;
    }
    rows = matches.map((p) => sql.allAt.get(p) as AllEventRow);
  }

  const events: ResolvedEvent[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    const record = toRecorded(row, row.stream_id);
    let entry: ResolvedIndexedEvent = { event: record };
    if (resolveLinkTos) {
      const resolved = resolveLink(ctx, record, caller);
      if (resolved === 'denied') return fail('AccessDenied');
      entry = resolved;
    }
    events[i] = { ...entry, commitPosition: row.commit_position, preparePosition: row.position };
  }

  let nextPosition: Position;
  if (lastExamined) {
    nextPosition = forward
      ? forwardCursorAfter(lastExamined.commit_position, lastExamined.position)
      : position(lastExamined.commit_position, lastExamined.position);
  } else if (forward) {
    // Nothing left: the head of the log (rows past the requested position may have been scavenged).
    nextPosition = comparePositions(pos, head) < 0 ? head : pos;
  } else {
    nextPosition = pos;
  }
  return { result: 'Success', position: pos, events, nextPosition, isEndOfStream: reachedEnd };
}
