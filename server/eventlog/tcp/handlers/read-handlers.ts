import {
  compileLinearRegex,
  MAX_READ_COUNT,
  type EventFilter,
  type Position,
  type ReadAllResult,
  type ReadAllResultCode,
  type ReadEventResultCode,
  type ReadStreamResult,
  type ReadStreamResultCode,
} from '../../store/index.ts';
import {
  BadRequestError,
  filterFromWire,
  int64ToNumber,
  positionFromWire,
  resolvedIndexedEventToWire,
} from '../codec.ts';
import { TcpCommand } from '../commands.ts';
import type { CommandHandlerMap, RequestContext } from '../dispatcher.ts';
import { encodeReadAllEventsCompleted, encodeReadStreamEventsCompleted, type ReadAllReply } from '../event-encoder.ts';
import {
  enumTable,
  type FilteredReadAllEventsMessage,
  type ReadAllEventsMessage,
  type ReadEventMessage,
  type ReadStreamEventsMessage,
} from '../messages.ts';
import { encodeReadAllRowsCompleted, encodeReadStreamRowsCompleted } from '../row-encoder.ts';

/** ReadEvent, ReadStreamEvents forward/backward, ReadAllEvents and FilteredReadAllEvents forward/backward. */

const ReadEventResultCode = enumTable<ReadEventResultCode>('ReadEventCompleted.ReadEventResult');
const ReadStreamResultWire = enumTable<ReadStreamResultCode>('ReadStreamEventsCompleted.ReadStreamResult');
const ReadAllResultWire = enumTable<ReadAllResultCode>('ReadAllEventsCompleted.ReadAllResult');
const FilteredReadAllResultWire = enumTable<ReadAllResultCode>('FilteredReadAllEventsCompleted.FilteredReadAllResult');

/**
 * Replies stay under the connection's frame limit, with room to spare (the size estimate is conservative
 * too). The store stops reading at this budget, so a longer read never materializes more than one reply.
 */
function replyOptions(ctx: RequestContext): { maxBytes: number } {
  const limit = ctx.connection.maxFrameBytes;
  return { maxBytes: limit - Math.min(1024 * 1024, Math.floor(limit / 16)) };
}

function streamIdOf(id: string): string {
  if (!id) throw new BadRequestError('Empty stream id.');
  return id;
}

function countError(maxCount: number): string | null {
  if (maxCount > MAX_READ_COUNT) return `Read size too big, should be less than ${MAX_READ_COUNT} items`;
  if (maxCount <= 0) return `Invalid count ${maxCount}, should be at least 1`;
  return null;
}

// ---- ReadEvent ----

function sendReadEvent(
  ctx: RequestContext,
  result: ReadEventResultCode,
  event: object | undefined,
  error?: string,
): void {
  const body: Record<string, unknown> = { result: ReadEventResultCode[result], event: event ?? {} };
  if (error) body.error = error;
  ctx.replyMessage(TcpCommand.ReadEventCompleted, 'ReadEventCompleted', body);
}

function readEvent(ctx: RequestContext, m: ReadEventMessage): void {
  const streamId = streamIdOf(m.eventStreamId);
  const eventNumber = int64ToNumber(m.eventNumber);
  if (eventNumber < -1) return sendReadEvent(ctx, 'Error', undefined, `Invalid event number ${eventNumber}.`);
  const r = ctx.store.readEvent(streamId, eventNumber, m.resolveLinkTos, ctx.caller);
  sendReadEvent(ctx, r.result, r.event ? resolvedIndexedEventToWire(r.event) : undefined, r.error);
}

// ---- ReadStreamEvents ----

function sendReadStream(ctx: RequestContext, command: number, r: ReadStreamResult): void {
  ctx.reply(
    command,
    encodeReadStreamEventsCompleted({
      events: r.events,
      result: ReadStreamResultWire[r.result],
      nextEventNumber: r.nextEventNumber,
      lastEventNumber: r.lastEventNumber,
      isEndOfStream: r.isEndOfStream,
      lastCommitPosition: r.lastCommitPosition,
      ...(r.error ? { error: r.error } : {}),
    }),
  );
}

function readStreamError(ctx: RequestContext, error: string): ReadStreamResult {
  return {
    result: 'Error',
    events: [],
    nextEventNumber: -1,
    lastEventNumber: -1,
    isEndOfStream: true,
    lastCommitPosition: ctx.store.lastCommitPosition(),
    error,
  };
}

function readStream(ctx: RequestContext, m: ReadStreamEventsMessage, forward: boolean): void {
  const command = forward ? TcpCommand.ReadStreamEventsForwardCompleted : TcpCommand.ReadStreamEventsBackwardCompleted;
  const streamId = streamIdOf(m.eventStreamId);
  const from = int64ToNumber(m.fromEventNumber);
  const invalidCount = countError(m.maxCount);
  if (invalidCount) return sendReadStream(ctx, command, readStreamError(ctx, invalidCount));
  if (forward ? from < 0 : from < -1)
    return sendReadStream(ctx, command, readStreamError(ctx, `Invalid from event number ${from}.`));

  if (!m.resolveLinkTos) {
    // The common case: the page's rows are encoded as they come from SQLite (no entry objects per event).
    const read = forward ? ctx.store.readStreamRowsForward : ctx.store.readStreamRowsBackward;
    const r = read(streamId, from, m.maxCount, ctx.caller, replyOptions(ctx));
    ctx.reply(command, encodeReadStreamRowsCompleted({ ...r, result: ReadStreamResultWire[r.result] }));
    return;
  }
  const read = forward ? ctx.store.readStreamForward : ctx.store.readStreamBackward;
  const r = read(streamId, from, m.maxCount, m.resolveLinkTos, ctx.caller, replyOptions(ctx));
  sendReadStream(ctx, command, r);
}

// ---- ReadAllEvents and FilteredReadAllEvents ----

function isHeadOfLog(p: Position): boolean {
  return p.commitPosition === -1 && p.preparePosition === -1;
}

function readAllFailure(from: Position, result: ReadAllResultCode, error: string): ReadAllResult {
  return {
    result,
    position: from,
    events: [],
    nextPosition: { commitPosition: -1, preparePosition: -1 },
    isEndOfStream: false,
    error,
  };
}

function allReply(r: ReadAllResult, resultTable: Record<ReadAllResultCode, number>): ReadAllReply {
  return { ...allReplyFrame(r, resultTable), events: r.events };
}

/** A ReadAllEventsCompleted but its events. */
function allReplyFrame(
  r: Omit<ReadAllResult, 'events'>,
  resultTable: Record<ReadAllResultCode, number>,
): Omit<ReadAllReply, 'events'> {
  return {
    commitPosition: r.position.commitPosition,
    preparePosition: r.position.preparePosition,
    nextCommitPosition: r.nextPosition.commitPosition,
    nextPreparePosition: r.nextPosition.preparePosition,
    result: resultTable[r.result],
    ...(r.error ? { error: r.error } : {}),
  };
}

function validateAllRequest(from: Position, maxCount: number): string | null {
  if (!isHeadOfLog(from) && (from.commitPosition < 0 || from.preparePosition < 0)) return 'Invalid position.';
  return countError(maxCount);
}

function readAll(ctx: RequestContext, m: ReadAllEventsMessage, forward: boolean): void {
  const command = forward ? TcpCommand.ReadAllEventsForwardCompleted : TcpCommand.ReadAllEventsBackwardCompleted;
  const from = positionFromWire(m.commitPosition, m.preparePosition);
  const invalid = validateAllRequest(from, m.maxCount);
  if (invalid) {
    ctx.reply(
      command,
      encodeReadAllEventsCompleted(allReply(readAllFailure(from, 'Error', invalid), ReadAllResultWire)),
    );
  } else if (!m.resolveLinkTos) {
    // The common case: the page's rows are encoded as they come from SQLite (no entry objects per event).
    const read = forward ? ctx.store.readAllRowsForward : ctx.store.readAllRowsBackward;
    const r = read(from, m.maxCount, ctx.caller, replyOptions(ctx));
    ctx.reply(command, encodeReadAllRowsCompleted({ ...allReplyFrame(r, ReadAllResultWire), rows: r.rows }));
  } else {
    const read = forward ? ctx.store.readAllForward : ctx.store.readAllBackward;
    const r = read(from, m.maxCount, m.resolveLinkTos, ctx.caller, replyOptions(ctx));
    ctx.reply(command, encodeReadAllEventsCompleted(allReply(r, ReadAllResultWire)));
  }
}

function checkFilter(filter: EventFilter | null): string | null {
  if (filter?.type !== 'Regex') return null;
  try {
    compileLinearRegex(filter.data[0]);
    return null;
  } catch (err) {
    return `Invalid filter regular expression: ${(err as Error).message}`;
  }
}

function filteredReadAll(ctx: RequestContext, m: FilteredReadAllEventsMessage, forward: boolean): void {
  const command = forward
    ? TcpCommand.FilteredReadAllEventsForwardCompleted
    : TcpCommand.FilteredReadAllEventsBackwardCompleted;
  const from = positionFromWire(m.commitPosition, m.preparePosition);
  const filter = filterFromWire(m.filter);
  const maxSearchWindow = m.maxSearchWindow > 0 ? m.maxSearchWindow : m.maxCount;
  const invalid = validateAllRequest(from, m.maxCount) ?? checkFilter(filter);
  const read = forward ? ctx.store.filteredReadAllForward : ctx.store.filteredReadAllBackward;
  const r = invalid
    ? readAllFailure(from, 'Error', invalid)
    : read(from, m.maxCount, maxSearchWindow, filter, m.resolveLinkTos, ctx.caller, replyOptions(ctx));
  ctx.reply(
    command,
    encodeReadAllEventsCompleted({
      ...allReply(r, FilteredReadAllResultWire),
      isEndOfStream: r.result === 'Success' ? r.isEndOfStream : false,
    }),
  );
}

export const readHandlers: CommandHandlerMap = {
  [TcpCommand.ReadEvent]: { request: 'ReadEvent', handle: readEvent },
  [TcpCommand.ReadStreamEventsForward]: {
    request: 'ReadStreamEvents',
    handle: (ctx, m: ReadStreamEventsMessage) => readStream(ctx, m, true),
  },
  [TcpCommand.ReadStreamEventsBackward]: {
    request: 'ReadStreamEvents',
    handle: (ctx, m: ReadStreamEventsMessage) => readStream(ctx, m, false),
  },
  [TcpCommand.ReadAllEventsForward]: {
    request: 'ReadAllEvents',
    handle: (ctx, m: ReadAllEventsMessage) => readAll(ctx, m, true),
  },
  [TcpCommand.ReadAllEventsBackward]: {
    request: 'ReadAllEvents',
    handle: (ctx, m: ReadAllEventsMessage) => readAll(ctx, m, false),
  },
  [TcpCommand.FilteredReadAllEventsForward]: {
    request: 'FilteredReadAllEvents',
    handle: (ctx, m: FilteredReadAllEventsMessage) => filteredReadAll(ctx, m, true),
  },
  [TcpCommand.FilteredReadAllEventsBackward]: {
    request: 'FilteredReadAllEvents',
    handle: (ctx, m: FilteredReadAllEventsMessage) => filteredReadAll(ctx, m, false),
  },
};
