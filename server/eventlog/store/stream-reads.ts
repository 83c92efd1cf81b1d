/**
 * Reads of one stream (ReadEvent, ReadStreamEvents forward and backward) and `$>` link resolution,
 * with EventStoreDB's rules for `$tb`, `$maxCount`, `$maxAge`, deletion and access.
 */
import { canAccess } from './access.ts';
import type { StoreContext } from './context.ts';
import { LINK_EVENT_TYPE, parseLink } from './links.ts';
import { isMetastream, minReadableEventNumber, originalStreamOf } from './metadata.ts';
import { ReplyBudget, rowEntryBytes } from './read-budget.ts';
import { failedStreamRead } from './requests.ts';
import { Column, toRecorded, type EventColumns, type EventRow } from './statements.ts';
import {
  EVENT_NUMBER_DELETED,
  MAX_READ_COUNT,
  type Caller,
  type ReadEventResult,
  type ReadStreamResult,
  type ReadStreamRowsResult,
  type RecordedEvent,
  type ResolvedIndexedEvent,
  type StreamMetadata,
} from './types.ts';
import { type ReadOptions } from './store-contract.ts';

export function readEvent(
  ctx: StoreContext,
  streamId: string,
  eventNumber: number,
  resolveLinkTos: boolean,
  caller: Caller,
): ReadEventResult {
  if (typeof streamId !== 'string' || streamId === '') return { result: 'Error', error: 'Empty stream id.' };
  if (!Number.isSafeInteger(eventNumber) || eventNumber < -1)
    return { result: 'Error', error: `Invalid event number ${eventNumber}.` };
  if (!canAccess(ctx.streams, streamId, 'read', caller)) return { result: 'AccessDenied' };
  const found = readOne(ctx, streamId, eventNumber);
  if (found.result !== 'Success' || !found.record)
    return { result: found.result, ...(found.emptySuccess ? { event: {} } : {}) };
  if (!resolveLinkTos) return { result: 'Success', event: { event: found.record } };
  const resolved = resolveLink(ctx, found.record, caller);
  if (resolved === 'denied') return { result: 'AccessDenied' };
  return { result: 'Success', event: resolved };
}

/** ReadOptions, and for reads without link resolution a place for the page's rows (then no entries are built). */
type StreamReadOptions = ReadOptions & { rows?: EventColumns[] };

export function readStreamForward(
  ctx: StoreContext,
  streamId: string,
  from: number,
  maxCount: number,
  resolveLinkTos: boolean,
  caller: Caller,
  options: StreamReadOptions = {},
): ReadStreamResult {
  const { streams, sql } = ctx;
  const lastCommitPosition = ctx.lastPosition;
  const opened = openStreamRead(
    ctx,
    streamId,
    maxCount,
    caller,
    Number.isSafeInteger(from) && from >= 0 ? null : `Invalid from event number ${from}.`,
  );
  if ('failed' in opened) return opened.failed;
  const { last, metadata } = opened;

  const ok = (events: ResolvedIndexedEvent[], nextEventNumber: number, isEndOfStream: boolean): ReadStreamResult => ({
    result: 'Success',
    events,
    nextEventNumber,
    lastEventNumber: last,
    isEndOfStream,
    lastCommitPosition,
  });
  const end = Math.min(from + maxCount - 1, EVENT_NUMBER_DELETED - 1);
  const min = minReadableEventNumber(metadata, last);
  if (end < min) return ok([], min, false);
  const start = Math.max(from, min);
  if (start > last) return ok([], last + 1, true);
  const key = streams.get(streamId).key;
  const threshold = metadata.maxAge === undefined ? null : ctx.clock() - metadata.maxAge * 1000;
  const page = collectPage(ctx, sql.streamForward.iterate(key, start, end, maxCount), streamId, {
    resolveLinkTos,
    caller,
    threshold,
    maxBytes: options.maxBytes,
    rows: options.rows,
  });
  if (page === 'denied') return failedStreamRead('AccessDenied', lastCommitPosition, -1);
  const { events, lastNumber } = page;
  // Cut at the byte budget: the reader pages on from the first event left out.
  if (page.cut) return ok(events, lastNumber + 1, false);
  if (page.count > 0) return ok(events, lastNumber + 1, end >= last);
  if (threshold === null) return ok([], Math.min(end + 1, last + 1), end >= last);
  const lastRow = sql.eventAt.get(key, last) as EventRow | undefined;
  if (!lastRow || lastRow.created < threshold || last < from) return ok([], last + 1, true);
  // Everything in range expired: point the reader at the first event still young enough.
  const firstFresh = sql.firstUnexpired.get(key, start, threshold) as number | undefined;
  return ok([], firstFresh ?? last + 1, firstFresh === undefined);
}

export function readStreamBackward(
  ctx: StoreContext,
  streamId: string,
  from: number,
  maxCount: number,
  resolveLinkTos: boolean,
  caller: Caller,
  options: StreamReadOptions = {},
): ReadStreamResult {
  const { streams, sql } = ctx;
  const lastCommitPosition = ctx.lastPosition;
  const opened = openStreamRead(
    ctx,
    streamId,
    maxCount,
    caller,
    Number.isSafeInteger(from) ? null : `Invalid from event number ${from}.`,
  );
  if ('failed' in opened) return opened.failed;
  const { last, metadata } = opened;

  const end = from < 0 ? last : from;
  let start = Math.max(0, end - maxCount + 1);
  let isEndOfStream = false;
  const min = minReadableEventNumber(metadata, last);
  if (end < min)
    return {
      result: 'Success',
      events: [],
      nextEventNumber: -1,
      lastEventNumber: last,
      isEndOfStream: true,
      lastCommitPosition,
    };
  if (start <= min) {
    isEndOfStream = true;
    start = min;
  }
  const page = collectPage(ctx, sql.streamBackward.iterate(streams.get(streamId).key, start, end, maxCount), streamId, {
    resolveLinkTos,
    caller,
    threshold: metadata.maxAge === undefined ? null : ctx.clock() - metadata.maxAge * 1000,
    maxBytes: options.maxBytes,
    rows: options.rows,
  });
  if (page === 'denied') return failedStreamRead('AccessDenied', lastCommitPosition, -1);
  const { events, lastNumber } = page;
  // A page cut at the byte budget has more before it: the reader pages on from the first event left out.
  isEndOfStream =
    !page.cut && (isEndOfStream || start === 0 || (start <= last && (page.count === 0 || lastNumber !== start)));
  return {
    result: 'Success',
    events,
    nextEventNumber: page.cut ? lastNumber - 1 : isEndOfStream ? -1 : Math.min(start - 1, last),
    lastEventNumber: last,
    isEndOfStream,
    lastCommitPosition,
  };
}

/**
 * Resolves a `$>` link: `N@stream`. A payload that does not parse stays an ordinary event; a target
 * the caller may not read makes the whole read AccessDenied (EventStoreDB's ResolveLinkToEvent).
 */
export function resolveLink(ctx: StoreContext, record: RecordedEvent, caller: Caller): ResolvedIndexedEvent | 'denied' {
  if (record.eventType !== LINK_EVENT_TYPE) return { event: record };
  const parsed = parseLink(record.data);
  if (parsed.kind === 'not-a-link') return { event: record };
  if (parsed.kind === 'broken') return { link: record };
  if (!canAccess(ctx.streams, parsed.streamId, 'read', caller)) return 'denied';
  const found = readOne(ctx, parsed.streamId, parsed.eventNumber, true);
  return found.result === 'Success' && found.record ? { event: found.record, link: record } : { link: record };
}

/** The checks every stream read starts with: arguments, access, deletion, existence. */
function openStreamRead(
  ctx: StoreContext,
  streamId: string,
  maxCount: number,
  caller: Caller,
  invalidFrom: string | null,
): { failed: ReadStreamResult } | { last: number; metadata: StreamMetadata } {
  const fail = (result: ReadStreamResult['result'], lastEventNumber = -1, error?: string) => ({
    failed: failedStreamRead(result, ctx.lastPosition, lastEventNumber, error),
  });
  const invalid = validateStreamRead(streamId, maxCount) ?? invalidFrom;
  if (invalid) return fail('Error', -1, invalid);
  if (!canAccess(ctx.streams, streamId, 'read', caller)) return fail('AccessDenied');
  const last = ctx.streams.lastNumberOf(streamId);
  if (last === EVENT_NUMBER_DELETED) return fail('StreamDeleted', EVENT_NUMBER_DELETED);
  const metadata = ctx.streams.metadataOf(streamId);
  if (last === -1 || metadata.truncateBefore === EVENT_NUMBER_DELETED) return fail('NoStream', last);
  return { last, metadata };
}

function validateStreamRead(streamId: string, maxCount: number): string | null {
  if (typeof streamId !== 'string' || streamId === '') return 'Empty stream id.';
  if (!Number.isSafeInteger(maxCount)) return `Invalid max count ${maxCount}.`;
  if (maxCount > MAX_READ_COUNT) return `Read size too big, should be less than ${MAX_READ_COUNT} items`;
  if (maxCount <= 0) return `Invalid max count ${maxCount}, should be positive.`;
  return null;
}

/**
 * ReadEvent without the access check: EventStoreDB's IndexReader.ReadEvent. `shared`: a link target,
 * taken from (and left in) the store's shared link targets, so links to one event hold one copy of it.
 */
function readOne(
  ctx: StoreContext,
  streamId: string,
  eventNumber: number,
  shared = false,
): { result: ReadEventResult['result']; record?: RecordedEvent; emptySuccess?: boolean } {
  const { streams } = ctx;
  const last = streams.lastNumberOf(streamId);
  if (last === EVENT_NUMBER_DELETED) return { result: 'StreamDeleted' };
  const metadata = streams.metadataOf(streamId);
  if (last === -1 || metadata.truncateBefore === EVENT_NUMBER_DELETED) {
    if (isMetastream(streamId) && eventNumber === -1) {
      // `$$X` with no metadata yet but X exists: success with an empty event ("no metadata").
      const originalLast = streams.lastNumberOf(originalStreamOf(streamId));
      if (originalLast !== -1 && originalLast !== EVENT_NUMBER_DELETED)
        return { result: 'Success', emptySuccess: true };
    }
    return { result: 'NoStream' };
  }
  const n = eventNumber === -1 ? last : eventNumber;
  if (n < minReadableEventNumber(metadata, last) || n > last) return { result: 'NotFound' };
  const key = streams.get(streamId).key;
  const load = () => {
    const row = ctx.sql.recordAt.get(key, n) as EventColumns | undefined;
    return row && toRecorded(row, streamId);
  };
  let record: RecordedEvent | undefined;
  if (!shared) record = load();
  else {
    const position = ctx.sql.positionAt.get(key, n) as number | undefined;
    record = position === undefined ? undefined : ctx.linkTargets.get(position, load);
  }
  if (!record) return { result: 'NotFound' };
  if (metadata.maxAge !== undefined && record.created < ctx.clock() - metadata.maxAge * 1000)
    return { result: 'NotFound' };
  return { result: 'Success', record };
}

/**
 * Turns a stream's rows into read entries until the byte budget is reached (links resolved when asked,
 * rows older than `threshold` skipped). Rows past the cut are never loaded.
 */
function collectPage(
  ctx: StoreContext,
  rows: IterableIterator<unknown>,
  streamId: string,
  how: {
    resolveLinkTos: boolean;
    caller: Caller;
    threshold: number | null;
    maxBytes: number | undefined;
    rows: EventColumns[] | undefined;
  },
): { events: ResolvedIndexedEvent[]; count: number; lastNumber: number; cut: boolean } | 'denied' {
  const budget = new ReplyBudget(how.maxBytes ?? ctx.limits.maxReadBytes);
  const events: ResolvedIndexedEvent[] = [];
  const taken = how.rows;
  if (taken && how.resolveLinkTos) throw new Error('rows: reads without link resolution only');
  let lastNumber = -1;
  for (const row of rows as IterableIterator<EventColumns>) {
    if (how.threshold !== null && row[Column.created] < how.threshold) continue;
    if (taken) {
      if (!budget.admitBytes(rowEntryBytes(row, streamId)))
        return { events, count: taken.length, lastNumber, cut: true };
      taken.push(row);
      lastNumber = row[Column.eventNumber];
      continue;
    }
    const record = toRecorded(row, streamId);
    const entry = how.resolveLinkTos ? resolveLink(ctx, record, how.caller) : { event: record };
    if (entry === 'denied') return 'denied';
    if (!budget.admit(entry)) return { events, count: events.length, lastNumber, cut: true };
    events.push(entry);
    lastNumber = row[Column.eventNumber];
  }
  return { events, count: taken ? taken.length : events.length, lastNumber, cut: false };
}

/** A stream read without link resolution, its page as SQLite's rows (ReadStreamRowsResult). */
export function readStreamRows(
  ctx: StoreContext,
  forward: boolean,
  streamId: string,
  from: number,
  maxCount: number,
  caller: Caller,
  options: ReadOptions = {},
): ReadStreamRowsResult {
  const rows: EventColumns[] = [];
  const read = forward ? readStreamForward : readStreamBackward;
  const { events: _, ...result } = read(ctx, streamId, from, maxCount, false, caller, { ...options, rows });
  return { ...result, streamId, rows: result.result === 'Success' ? rows : [] };
}
