/**
 * Reads of one stream (ReadEvent, ReadStreamEvents forward and backward) and `$>` link resolution,
 * with EventStoreDB's rules for `$tb`, `$maxCount`, `$maxAge`, deletion and access.
 */
import { canAccess } from './access.ts';
import type { StoreContext } from './context.ts';
import { LINK_EVENT_TYPE, parseLink } from './links.ts';
import { isMetastream, minReadableEventNumber, originalStreamOf } from './metadata.ts';
import { failedStreamRead } from './requests.ts';
import { toRecorded, type EventRow } from './statements.ts';
import {
  EVENT_NUMBER_DELETED,
  MAX_READ_COUNT,
  type Caller,
  type ReadEventResult,
  type ReadStreamResult,
  type RecordedEvent,
  type ResolvedIndexedEvent,
  type StreamMetadata,
} from './types.ts';

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

export function readStreamForward(
  ctx: StoreContext,
  streamId: string,
  from: number,
  maxCount: number,
  resolveLinkTos: boolean,
  caller: Caller,
): ReadStreamResult {
  const { streams, sql } = ctx;
  const lastCommitPosition = ctx.lastPosition;
  const fail = (result: ReadStreamResult['result']) => failedStreamRead(result, lastCommitPosition, -1);
  const opened = openStreamRead(
    ctx,
    streamId,
    maxCount,
    caller,
    Number.isSafeInteger(from) && from >= 0 ? null : `Invalid from event number ${from}.`,
  );
  if ('failed' in opened) return opened.failed;
  const { last, metadata } = opened;

  const ok = (records: EventRow[], nextEventNumber: number, isEndOfStream: boolean): ReadStreamResult => {
    const events = resolveAll(ctx, records, streamId, resolveLinkTos, caller);
    if (!events) return fail('AccessDenied');
    return { result: 'Success', events, nextEventNumber, lastEventNumber: last, isEndOfStream, lastCommitPosition };
  };
  const end = Math.min(from + maxCount - 1, EVENT_NUMBER_DELETED - 1);
  const min = minReadableEventNumber(metadata, last);
  if (end < min) return ok([], min, false);
  const start = Math.max(from, min);
  if (start > last) return ok([], last + 1, true);
  const key = streams.get(streamId).key;
  const rows = sql.streamForward.all(key, start, end, maxCount) as EventRow[];
  if (metadata.maxAge === undefined) {
    const next = rows.length > 0 ? rows[rows.length - 1].event_number + 1 : Math.min(end + 1, last + 1);
    return ok(rows, next, end >= last);
  }
  const threshold = ctx.clock() - metadata.maxAge * 1000;
  const fresh = rows.filter((r) => r.created >= threshold);
  if (fresh.length > 0) return ok(fresh, fresh[fresh.length - 1].event_number + 1, end >= last);
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
): ReadStreamResult {
  const { streams, sql } = ctx;
  const lastCommitPosition = ctx.lastPosition;
  const fail = (result: ReadStreamResult['result']) => failedStreamRead(result, lastCommitPosition, -1);
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
  let rows = sql.streamBackward.all(streams.get(streamId).key, start, end, maxCount) as EventRow[];
  if (metadata.maxAge !== undefined) {
    const threshold = ctx.clock() - metadata.maxAge * 1000;
    rows = rows.filter((r) => r.created >= threshold);
  }
  isEndOfStream =
    isEndOfStream ||
    start === 0 ||
    (start <= last && (rows.length === 0 || rows[rows.length - 1].event_number !== start));
  const events = resolveAll(ctx, rows, streamId, resolveLinkTos, caller);
  if (!events) return fail('AccessDenied');
  return {
    result: 'Success',
    events,
    nextEventNumber: isEndOfStream ? -1 : Math.min(start - 1, last),
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
  const found = readOne(ctx, parsed.streamId, parsed.eventNumber);
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

/** ReadEvent without the access check: EventStoreDB's IndexReader.ReadEvent. */
function readOne(
  ctx: StoreContext,
  streamId: string,
  eventNumber: number,
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
  const row = ctx.sql.eventAt.get(streams.get(streamId).key, n) as EventRow | undefined;
  if (!row) return { result: 'NotFound' };
  if (metadata.maxAge !== undefined && row.created < ctx.clock() - metadata.maxAge * 1000)
    return { result: 'NotFound' };
  return { result: 'Success', record: toRecorded(row, streamId) };
}

function resolveAll(
  ctx: StoreContext,
  rows: EventRow[],
  streamId: string,
  resolveLinkTos: boolean,
  caller: Caller,
): ResolvedIndexedEvent[] | null {
  const out: ResolvedIndexedEvent[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const record = toRecorded(rows[i], streamId);
    if (!resolveLinkTos) {
      out[i] = { event: record };
      continue;
    }
    const resolved = resolveLink(ctx, record, caller);
    if (resolved === 'denied') return null;
    out[i] = resolved;
  }
  return out;
}
