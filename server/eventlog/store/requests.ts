/** Checking write requests before they queue, and the failure shapes the store answers with. */
import crypto from 'node:crypto';
import {
  EVENT_NUMBER_INVALID,
  StoreBadRequestError,
  type DeleteResult,
  type NewEvent,
  type ReadStreamResult,
  type TransactionCommitResult,
  type WriteResult,
} from './types.ts';
import { eventIdKey } from './recent-event-ids.ts';
import { uuidToBytes } from './uuid.ts';

/** An event checked and ready to insert. */
export interface PendingEvent {
  id: Buffer;
  /** `id` as the idempotency window's key (eventIdKey), made once per event. */
  idKey: string;
  eventId: string;
  eventType: string;
  isJson: boolean;
  data: Uint8Array;
  metadata: Uint8Array;
}

export const EMPTY = Buffer.alloc(0);
export const ACCESS_DENIED = 'Access denied.';

export function failedWrite(result: WriteResult['result'], message: string, currentVersion?: number): WriteResult {
  return {
    result,
    message,
    firstEventNumber: EVENT_NUMBER_INVALID,
    lastEventNumber: EVENT_NUMBER_INVALID,
    preparePosition: EVENT_NUMBER_INVALID,
    commitPosition: EVENT_NUMBER_INVALID,
    ...(currentVersion === undefined ? {} : { currentVersion }),
  };
}

export function failedDelete(result: DeleteResult['result'], message: string, currentVersion?: number): DeleteResult {
  return {
    result,
    message,
    preparePosition: EVENT_NUMBER_INVALID,
    commitPosition: EVENT_NUMBER_INVALID,
    ...(currentVersion === undefined ? {} : { currentVersion }),
  };
}

export function failedCommit(
  transactionId: number,
  result: TransactionCommitResult['result'],
  message: string,
): TransactionCommitResult {
  return {
    transactionId,
    result,
    message,
    firstEventNumber: EVENT_NUMBER_INVALID,
    lastEventNumber: EVENT_NUMBER_INVALID,
    preparePosition: EVENT_NUMBER_INVALID,
    commitPosition: EVENT_NUMBER_INVALID,
  };
}

/** Failure-shaped stream read: no events, next -1, end of stream. */
export function failedStreamRead(
  result: ReadStreamResult['result'],
  lastCommitPosition: number,
  lastEventNumber: number,
  error?: string,
): ReadStreamResult {
  return {
    result,
    events: [],
    nextEventNumber: -1,
    lastEventNumber,
    isEndOfStream: true,
    lastCommitPosition,
    ...(error ? { error } : {}),
  };
}

export function validateStreamId(streamId: unknown): asserts streamId is string {
  if (typeof streamId !== 'string' || streamId === '') throw new StoreBadRequestError('Empty stream id.');
  if (streamId === '$$') throw new StoreBadRequestError('Stream id "$$" names the metadata of an empty stream id.');
}

export function validateInteger(name: string, value: unknown): asserts value is number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value))
    throw new StoreBadRequestError(`${name} must be an integer, got ${String(value)}.`);
}

export function prepareEvents(events: unknown): PendingEvent[] {
  if (!Array.isArray(events)) throw new StoreBadRequestError('Events must be an array.');
  return events.map((e: NewEvent, i) => {
    if (!e || typeof e !== 'object') throw new StoreBadRequestError(`Event ${i} is not an event.`);
    if (typeof e.eventType !== 'string') throw new StoreBadRequestError(`Event ${i} has no event type.`);
    if (!(e.data instanceof Uint8Array)) throw new StoreBadRequestError(`Event ${i} has no data bytes.`);
    if (e.metadata !== undefined && e.metadata !== null && !(e.metadata instanceof Uint8Array)) {
      throw new StoreBadRequestError(`Event ${i} metadata must be bytes.`);
    }
    const given = e.eventIdBytes;
    const id = given instanceof Buffer && given.length === 16 ? given : uuidToBytes(e.eventId);
    return {
      id,
      idKey: eventIdKey(id),
      eventId: id === given ? e.eventId : e.eventId.toLowerCase(),
      eventType: e.eventType,
      isJson: e.isJson === true,
      data: e.data,
      metadata: e.metadata ?? EMPTY,
    };
  });
}

/** What a request weighs in the write queue's byte bound. */
export function bytesOf(events: PendingEvent[]): number {
  let n = 0;
  for (const e of events) n += e.data.byteLength + e.metadata.byteLength + e.eventType.length + 64;
  return n;
}

export function systemEvent(eventType: string, data: Buffer | Uint8Array, isJson = true): PendingEvent {
  const eventId = crypto.randomUUID();
  const id = uuidToBytes(eventId);
  return { id, idKey: eventIdKey(id), eventId, eventType, isJson, data, metadata: EMPTY };
}
