/** Stream deletion inside a group commit: a tombstone (hard) or `$tb` = deleted metadata (soft), as EventStoreDB. */
import crypto from 'node:crypto';
import { canAccess } from './access.ts';
import { checkCommit, ensureRow, writeEvents } from './append.ts';
import type { StoreContext } from './context.ts';
import { EMPTY_METADATA, metastreamOf, SOFT_DELETE_METADATA, SystemEventTypes } from './metadata.ts';
import { eventIdKey } from './recent-event-ids.ts';
import { ACCESS_DENIED, EMPTY, failedDelete, systemEvent } from './requests.ts';
import type { WriteBatch } from './stream-cache.ts';
import { EVENT_NUMBER_DELETED, type Caller, type DeleteResult } from './types.ts';

export function deleteInBatch(
  ctx: StoreContext,
  b: WriteBatch,
  streamId: string,
  expected: number,
  hard: boolean,
  caller: Caller,
): DeleteResult {
  const { streams } = ctx;
  if (!canAccess(streams, streamId, 'delete', caller)) return failedDelete('AccessDenied', ACCESS_DENIED);
  // A random id: a delete is never an idempotent retry of an earlier write.
  const id = crypto.randomBytes(16);
  const check = checkCommit(ctx, streamId, expected, [{ id, idKey: eventIdKey(id) }]);
  if (check.decision === 'deleted') return failedDelete('StreamDeleted', 'Stream is deleted.', check.current);
  if (check.decision !== 'ok') return failedDelete('WrongExpectedVersion', 'Wrong expected version.', check.current);
  if (hard) return writeTombstone(ctx, b, streamId);
  const meta = metastreamOf(streamId);
  // EventStoreDB 20+: soft-deleting a stream that never existed (nor its metadata) is a wrong expected version.
  if (streams.get(streamId).last < 0 && streams.lastNumberOf(meta) < 0)
    return failedDelete('WrongExpectedVersion', 'Wrong expected version.', -1);
  const written = writeEvents(
    ctx,
    b,
    meta,
    streams.lastNumberOf(meta),
    [systemEvent(SystemEventTypes.Metadata, SOFT_DELETE_METADATA)],
    false,
  );
  return { result: 'Success', preparePosition: written.lastPosition, commitPosition: written.commitPosition };
}

function writeTombstone(ctx: StoreContext, b: WriteBatch, streamId: string): DeleteResult {
  const s = ctx.streams.writable(streamId);
  ensureRow(ctx, b, s);
  const p = b.lastPosition + 1;
  const tombstone = systemEvent(SystemEventTypes.StreamDeleted, EMPTY, false);
  ctx.sql.insertEvent.run(p, p, s.key, EVENT_NUMBER_DELETED, tombstone.id, tombstone.eventType, 0, EMPTY, EMPTY, b.now);
  b.lastPosition = p;
  b.events.push({
    streamId,
    eventNumber: EVENT_NUMBER_DELETED,
    eventId: tombstone.eventId,
    eventIdBytes: tombstone.id,
    eventType: tombstone.eventType,
    isJson: false,
    data: EMPTY,
    metadata: EMPTY,
    created: b.now,
    commitPosition: p,
    preparePosition: p,
  });
  s.tombstoned = true;
  s.meta = EMPTY_METADATA;
  s.count += 1;
  s.updatedAt = b.now;
  s.dirty = true;
  b.deleted.push({ streamId, hard: true });
  return { result: 'Success', preparePosition: p, commitPosition: p };
}
