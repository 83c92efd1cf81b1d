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
import { ReplyBudget, rowEntryBytes } from './read-budget.ts';
import { Column, toRecorded, type AllEventColumns, type LightRow } from './statements.ts';
import { resolveLink } from './stream-reads.ts';
import {
  MAX_READ_COUNT,
  type Caller,
  type EventFilter,
  type Position,
  type ReadAllResult,
  type ReadAllRowsResult,
  type ResolvedEvent,
} from './types.ts';

export interface AllReadRequest {
  direction: 'forward' | 'backward';
  from: Position;
  maxCount: number;
  /** Filtered reads only: the most events examined. */
  maxSearchWindow: number;
  /** null for a plain read; a filtered read with a null filter matches everything. */
  filter: EventFilter | null | undefined;
  resolveLinkTos: boolean;
  /** The reply's byte budget (ReadOptions.maxBytes); default StoreLimits.maxReadBytes. */
  maxBytes?: number;
  /** Forward plain reads only: ReadOptions.userStreamsOnly. */
  userStreamsOnly?: boolean;
  /** Plain reads without link resolution only: the page's rows go here, as they are, and no entries are built. */
  rows?: AllEventColumns[];
}

export function readAll(ctx: StoreContext, request: AllReadRequest, caller: Caller): ReadAllResult {
  const { direction, from, maxCount, maxSearchWindow, filter, resolveLinkTos } = request;
  const budget = new ReplyBudget(request.maxBytes ?? ctx.limits.maxReadBytes);
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
  if (request.rows && (filter !== undefined || resolveLinkTos)) throw new Error('rows: plain reads without links only');
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

  const events: ResolvedEvent[] = [];
  const { rows } = request;
  const taken: unknown[] = rows ?? events;
  /** Turns a row into a reply entry; false once the byte budget is reached (the row is left out). */
  const take = (row: AllEventColumns): boolean | 'denied' => {
    if (rows) {
      if (!budget.admitBytes(rowEntryBytes(row, row[Column.streamId]))) return false;
      rows.push(row);
      return true;
    }
    const record = toRecorded(row, row[Column.streamId]);
    if (!resolveLinkTos) {
      // The common case builds the reply entry once (no intermediate object to copy from).
      const entry: ResolvedEvent = {
        event: record,
        commitPosition: row[Column.commitPosition],
        preparePosition: row[Column.position],
      };
      if (!budget.admit(entry)) return false;
      events.push(entry);
      return true;
    }
    const entry = resolveLink(ctx, record, caller);
    if (entry === 'denied') return 'denied';
    if (!budget.admit(entry)) return false;
    events.push({ ...entry, commitPosition: row[Column.commitPosition], preparePosition: row[Column.position] });
    return true;
  };

  let lastExamined: { position: number; commit_position: number } | undefined;
  let reachedEnd = true;
  if (!predicate) {
    // One row more than asked tells whether the log goes on; rows past the budget are never loaded.
    const statement = forward
      ? request.userStreamsOnly
        ? sql.allForwardUserStreams
        : sql.allForward
      : sql.allBackward;
    let lastTaken: AllEventColumns | undefined;
    for (const row of statement.iterate(startKey, maxCount + 1) as Iterable<AllEventColumns>) {
      const took = taken.length < maxCount && take(row);
      if (took === 'denied') return fail('AccessDenied');
      if (!took) {
        reachedEnd = false;
        break;
      }
      lastTaken = row;
    }
    if (lastTaken)
      lastExamined = { position: lastTaken[Column.position], commit_position: lastTaken[Column.commitPosition] };
  } else {
    const window = Math.min(
      Number.isSafeInteger(maxSearchWindow) && maxSearchWindow > 0 ? maxSearchWindow : maxCount,
      ctx.limits.maxSearchWindow,
    );
    const matches: LightRow[] = [];
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
          matches.push(row);
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
    for (const match of matches) {
      const taken = take(sql.allAt.get(match.position) as AllEventColumns);
      if (taken === 'denied') return fail('AccessDenied');
      if (!taken) {
        // Cut at the byte budget: the next page starts after the last match in this one.
        reachedEnd = false;
        lastExamined = matches[events.length - 1]; // never empty: the first entry always fits
        break;
      }
    }
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

/** A plain `$all` read without link resolution, its page as SQLite's rows (ReadAllRowsResult). */
export function readAllRows(
  ctx: StoreContext,
  request: Omit<AllReadRequest, 'filter' | 'resolveLinkTos' | 'rows'>,
  caller: Caller,
): ReadAllRowsResult {
  const rows: AllEventColumns[] = [];
  const { events: _, ...result } = readAll(ctx, { ...request, filter: undefined, resolveLinkTos: false, rows }, caller);
  // A failed read built no page (a denial can only come before the first row: $all's ACL, not a row's).
  return { ...result, rows: result.result === 'Success' ? rows : [] };
}
