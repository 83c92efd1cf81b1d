/**
 * Explicit transactions (TransactionStart / Write / Commit): events wait in transaction_events until the
 * commit checks the expected version once and writes them all with one shared commit position.
 */
import { canAccess } from './access.ts';
import { checkCommit, storedEventAt, writeWithSideEffects } from './append.ts';
import type { StoreContext } from './context.ts';
import { EventFlags } from './migrations.ts';
import { eventIdKey } from './recent-event-ids.ts';
import { ACCESS_DENIED, failedCommit, type PendingEvent } from './requests.ts';
import type { TransactionRow } from './statements.ts';
import type { WriteBatch } from './stream-cache.ts';
import { EVENT_NUMBER_INVALID, type Caller, type TransactionCommitResult, type TransactionResult } from './types.ts';
import { bytesToUuid } from './uuid.ts';

export function startTransactionInBatch(
  ctx: StoreContext,
  b: WriteBatch,
  streamId: string,
  expectedVersion: number,
  caller: Caller,
): TransactionResult {
  if (!canAccess(ctx.streams, streamId, 'write', caller))
    return { transactionId: -1, result: 'AccessDenied', message: ACCESS_DENIED };
  const info = ctx.sql.insertTransaction.run(streamId, expectedVersion, b.now);
  return { transactionId: Number(info.lastInsertRowid), result: 'Success' };
}

export function writeTransactionInBatch(
  ctx: StoreContext,
  transactionId: number,
  events: PendingEvent[],
  caller: Caller,
): TransactionResult {
  const { sql } = ctx;
  const tx = sql.transactionById.get(transactionId) as TransactionRow | undefined;
  if (!tx || tx.committed)
    return { transactionId, result: 'InvalidTransaction', message: `Invalid transaction ${transactionId}.` };
  if (!canAccess(ctx.streams, tx.stream_id, 'write', caller))
    return { transactionId, result: 'AccessDenied', message: ACCESS_DENIED };
  let seq = sql.nextTransactionSeq.get(transactionId) as number;
  for (const e of events) {
    sql.insertTransactionEvent.run(
      transactionId,
      seq++,
      e.id,
      e.eventType,
      e.isJson ? EventFlags.IsJson : 0,
      e.data,
      e.metadata,
    );
  }
  return { transactionId, result: 'Success' };
}

export function commitTransactionInBatch(
  ctx: StoreContext,
  b: WriteBatch,
  transactionId: number,
  caller: Caller,
): TransactionCommitResult {
  const { sql } = ctx;
  const tx = sql.transactionById.get(transactionId) as TransactionRow | undefined;
  if (!tx) return failedCommit(transactionId, 'InvalidTransaction', `Invalid transaction ${transactionId}.`);
  if (tx.committed) {
    // A retried commit (the first answer was lost): the same answer again.
    return {
      transactionId,
      result: 'Success',
      firstEventNumber: tx.first_event_number ?? EVENT_NUMBER_INVALID,
      lastEventNumber: tx.last_event_number ?? EVENT_NUMBER_INVALID,
      preparePosition: tx.prepare_position ?? -1,
      commitPosition: tx.commit_position ?? -1,
    };
  }
  if (!canAccess(ctx.streams, tx.stream_id, 'write', caller))
    return failedCommit(transactionId, 'AccessDenied', ACCESS_DENIED);
  const rows = sql.transactionEvents.all(transactionId) as {
    event_id: Buffer;
    event_type: string;
    flags: number;
    data: Buffer;
    metadata: Buffer;
  }[];
  const events: PendingEvent[] = rows.map((r) => ({
    id: r.event_id,
    idKey: eventIdKey(r.event_id),
    eventId: bytesToUuid(r.event_id),
    eventType: r.event_type,
    isJson: (r.flags & EventFlags.IsJson) !== 0,
    data: r.data,
    metadata: r.metadata,
  }));
  const check = checkCommit(ctx, tx.stream_id, tx.expected_version, events);
  let result: TransactionCommitResult;
  switch (check.decision) {
    case 'deleted':
      return failedCommit(transactionId, 'StreamDeleted', 'Stream is deleted.');
    case 'wrong':
      return failedCommit(transactionId, 'WrongExpectedVersion', 'Wrong expected version.');
    case 'idempotent': {
      const row = storedEventAt(ctx, tx.stream_id, check.last);
      result = {
        transactionId,
        result: 'Success',
        firstEventNumber: check.first,
        lastEventNumber: check.last,
        preparePosition: row ? row.position : -1,
        commitPosition: row ? row.commit_position : -1,
      };
      break;
    }
    case 'ok': {
      const written = writeWithSideEffects(ctx, b, tx.stream_id, check.current, check.softDeleted, events, true);
      result = written
        ? {
            transactionId,
            result: 'Success',
            firstEventNumber: written.first,
            lastEventNumber: written.last,
            preparePosition: written.firstPosition,
            commitPosition: written.commitPosition,
          }
        : {
            transactionId,
            result: 'Success',
            firstEventNumber: check.current + 1,
            lastEventNumber: check.current,
            preparePosition: -1,
            commitPosition: -1,
          };
      break;
    }
  }
  sql.markTransactionCommitted.run(
    result.firstEventNumber,
    result.lastEventNumber,
    result.preparePosition,
    result.commitPosition,
    transactionId,
  );
  sql.deleteTransactionEvents.run(transactionId);
  return result;
}
