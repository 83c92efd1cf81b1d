/**
 * Appends inside a group commit: EventStoreDB's commit check (expected version, idempotency by event
 * id, deletion), inserting events, and the metadata side effects (soft undelete, settings).
 */
import { canAccess } from './access.ts';
import {
  categoryOf,
  isMetastream,
  metastreamOf,
  originalStreamOf,
  parseStreamMetadata,
  parseSystemSettings,
  serializeMetadataDocument,
  SystemEventTypes,
  SystemStreams,
} from './metadata.ts';
import { EventFlags } from './migrations.ts';
import type { StoreContext } from './context.ts';
import { ACCESS_DENIED, failedWrite, systemEvent, type PendingEvent } from './requests.ts';
import type { EventRow } from './statements.ts';
import type { StreamState, WriteBatch } from './stream-cache.ts';
import { EVENT_NUMBER_DELETED, ExpectedVersion, type Caller, type WriteResult } from './types.ts';

export type CommitCheck =
  | { decision: 'ok'; current: number; softDeleted: boolean }
  | { decision: 'deleted'; current: number }
  | { decision: 'wrong'; current: number }
  | { decision: 'idempotent'; current: number; first: number; last: number };

export interface Written {
  first: number;
  last: number;
  firstPosition: number;
  lastPosition: number;
  commitPosition: number;
}

/** The ids of the events a request writes, as bytes and as idempotency-window keys. */
type EventIds = readonly Pick<PendingEvent, 'id' | 'idKey'>[];

/** EventStoreDB's IndexWriter.CheckCommit: expected version, idempotency by event id, deletion. */
export function checkCommit(ctx: StoreContext, streamId: string, expected: number, ids: EventIds): CommitCheck {
  const { streams, sql } = ctx;
  const batch = streams.batch;
  const current = streams.lastNumberOf(streamId);
  if (current === EVENT_NUMBER_DELETED) return { decision: 'deleted', current };
  if (expected === ExpectedVersion.StreamExists) {
    if (streams.isSoftDeleted(streamId)) return { decision: 'deleted', current };
    if (current < 0 && streams.lastNumberOf(metastreamOf(streamId)) < 0) return { decision: 'wrong', current };
  }
  const key = streams.get(streamId).key;
  if (expected === ExpectedVersion.Any || expected === ExpectedVersion.StreamExists) {
    if (ids.length === 0) return { decision: 'ok', current, softDeleted: streams.isSoftDeleted(streamId) };
    let first = -1;
    let last = -1;
    for (let i = 0; i < ids.length; i++) {
      const idKey = ids[i].idKey;
      const hit = key === 0 ? undefined : (batch?.eventIds.get(idKey) ?? ctx.recentIds.get(idKey));
      if (!hit || hit.streamKey !== key) {
        // First id unknown: a new write. A later one unknown: "corrupted idempotency".
        return i === 0
          ? { decision: 'ok', current, softDeleted: streams.isSoftDeleted(streamId) }
          : { decision: 'wrong', current };
      }
      if (i === 0) first = hit.eventNumber;
      last = hit.eventNumber;
    }
    return { decision: 'idempotent', current, first, last };
  }
  if (expected < current) {
    let eventNumber = expected;
    for (const { id } of ids) {
      eventNumber += 1;
      const stored = key === 0 ? undefined : (sql.eventIdAt.get(key, eventNumber) as Buffer | undefined);
      if (stored && stored.equals(id)) continue;
      if (eventNumber !== expected + 1) return { decision: 'wrong', current };
      if (expected === ExpectedVersion.NoStream && streams.isSoftDeleted(streamId))
        return { decision: 'ok', current, softDeleted: true };
      return { decision: 'wrong', current };
    }
    if (eventNumber === expected) return { decision: 'wrong', current };
    return { decision: 'idempotent', current, first: expected + 1, last: eventNumber };
  }
  if (expected > current) return { decision: 'wrong', current };
  return { decision: 'ok', current, softDeleted: streams.isSoftDeleted(streamId) };
}

/** The row an idempotent retry's answer points at (the last event the first attempt wrote). */
export function storedEventAt(ctx: StoreContext, streamId: string, eventNumber: number): EventRow | undefined {
  return ctx.sql.eventAt.get(ctx.streams.get(streamId).key, eventNumber) as EventRow | undefined;
}

export function appendInBatch(
  ctx: StoreContext,
  b: WriteBatch,
  streamId: string,
  expected: number,
  events: PendingEvent[],
  caller: Caller,
): WriteResult {
  if (!canAccess(ctx.streams, streamId, 'write', caller)) return failedWrite('AccessDenied', ACCESS_DENIED);
  const check = checkCommit(ctx, streamId, expected, events);
  switch (check.decision) {
    case 'deleted':
      return failedWrite('StreamDeleted', 'Stream is deleted.', check.current);
    case 'wrong':
      return failedWrite('WrongExpectedVersion', 'Wrong expected version.', check.current);
    case 'idempotent': {
      const row = storedEventAt(ctx, streamId, check.last);
      return {
        result: 'Success',
        firstEventNumber: check.first,
        lastEventNumber: check.last,
        preparePosition: row ? row.position : -1,
        commitPosition: row ? row.commit_position : -1,
      };
    }
  }
  const written = writeWithSideEffects(ctx, b, streamId, check.current, check.softDeleted, events, false);
  if (!written) {
    return {
      result: 'Success',
      firstEventNumber: check.current + 1,
      lastEventNumber: check.current,
      preparePosition: -1,
      commitPosition: -1,
    };
  }
  return {
    result: 'Success',
    firstEventNumber: written.first,
    lastEventNumber: written.last,
    preparePosition: written.lastPosition,
    commitPosition: written.commitPosition,
  };
}

/** Writes events after a successful check, plus the soft-undelete metadata EventStoreDB writes. */
export function writeWithSideEffects(
  ctx: StoreContext,
  b: WriteBatch,
  streamId: string,
  current: number,
  softDeleted: boolean,
  events: PendingEvent[],
  transactional: boolean,
): Written | null {
  const undeleteFromMetastream = isMetastream(streamId) && ctx.streams.isSoftDeleted(originalStreamOf(streamId));
  const written = events.length > 0 ? writeEvents(ctx, b, streamId, current, events, transactional) : null;
  if (softDeleted) softUndelete(ctx, b, streamId, current + 1);
  if (undeleteFromMetastream) {
    const original = originalStreamOf(streamId);
    softUndelete(ctx, b, original, ctx.streams.get(original).last + 1);
  }
  return written;
}

/**
 * Inserts events at the next positions. Transactional writes take two positions per event (prepare and
 * commit, as EventStoreDB's log has) and share one commit position.
 */
export function writeEvents(
  ctx: StoreContext,
  b: WriteBatch,
  streamId: string,
  current: number,
  events: PendingEvent[],
  transactional: boolean,
): Written {
  const { sql, streams } = ctx;
  const s = streams.writable(streamId);
  ensureRow(ctx, b, s);
  const n = events.length;
  const first = current + 1;
  const firstPosition = b.lastPosition + 1;
  const stride = transactional ? 2 : 1;
  const commit = transactional ? firstPosition + 2 * n - 1 : 0;
  let p = firstPosition;
  for (let i = 0; i < n; i++) {
    const e = events[i];
    p = firstPosition + i * stride;
    const c = transactional ? commit : p;
    sql.insertEvent.run(
      p,
      c,
      s.key,
      first + i,
      e.id,
      e.eventType,
      e.isJson ? EventFlags.IsJson : 0,
      e.data,
      e.metadata,
      b.now,
    );
    b.eventIds.add(e.idKey, s.key, first + i);
    b.events.push({
      streamId,
      eventNumber: first + i,
      eventId: e.eventId,
      eventIdBytes: e.id,
      eventType: e.eventType,
      isJson: e.isJson,
      data: e.data,
      metadata: e.metadata,
      created: b.now,
      commitPosition: c,
      preparePosition: p,
    });
  }
  if (transactional) sql.insertTransactionSpan.run(commit, firstPosition);
  b.lastPosition = transactional ? commit : p;
  s.last = first + n - 1;
  s.count += n;
  s.updatedAt = b.now;
  s.dirty = true;
  const lastEvent = events[n - 1];
  if (isMetastream(streamId)) {
    const original = streams.writable(originalStreamOf(streamId));
    original.meta = parseStreamMetadata(lastEvent.isJson, lastEvent.data);
    if (original.key !== 0) original.dirty = true;
    // `$tb` = deleted is a soft delete, whether DeleteStream or a client wrote it.
    if (original.meta.metadata.truncateBefore === EVENT_NUMBER_DELETED)
      b.deleted.push({ streamId: original.id, hard: false });
  } else if (streamId === SystemStreams.Settings) {
    b.settings = parseSystemSettings(lastEvent.isJson, lastEvent.data);
  }
  return { first, last: s.last, firstPosition, lastPosition: p, commitPosition: transactional ? commit : p };
}

/** Gives a stream its row (and its category a count) on its first write. */
export function ensureRow(ctx: StoreContext, b: WriteBatch, s: StreamState): void {
  if (s.key !== 0) return;
  const category = categoryOf(s.id);
  const info = ctx.sql.insertStream.run(s.id, s.last, b.now, b.now, category);
  s.key = Number(info.lastInsertRowid);
  s.createdAt = b.now;
  s.updatedAt = b.now;
  s.dirty = true;
  if (category) ctx.sql.bumpCategory.run(category);
}

/** Recreates a soft-deleted stream: its metadata document again, with `$tb` = the first new number. */
function softUndelete(ctx: StoreContext, b: WriteBatch, streamId: string, recreateFrom: number): void {
  const loaded = ctx.streams.loadedMetadataOf(ctx.streams.get(streamId));
  if (!loaded.doc) return;
  const meta = metastreamOf(streamId);
  const doc = serializeMetadataDocument({ ...loaded.doc, $tb: recreateFrom });
  writeEvents(ctx, b, meta, ctx.streams.lastNumberOf(meta), [systemEvent(SystemEventTypes.Metadata, doc)], false);
}

/** Writes the batch's changed stream heads and the log head before COMMIT. */
export function persistBatch(ctx: StoreContext, b: WriteBatch): void {
  for (const s of b.streams.values()) {
    if (!s.dirty || s.key === 0) continue;
    const deleted = s.tombstoned
      ? 2
      : !isMetastream(s.id) && ctx.streams.loadedMetadataOf(s).metadata.truncateBefore === EVENT_NUMBER_DELETED
        ? 1
        : 0;
    ctx.sql.updateStream.run(s.last, s.tombstoned ? 1 : 0, s.count, s.updatedAt, deleted, s.key);
  }
  if (b.lastPosition !== b.startPosition) ctx.sql.setLastPosition.run(b.lastPosition);
}
