import {
  EVENT_NUMBER_INVALID,
  ExpectedVersion,
  type DeleteResult,
  type OperationResult,
  type TransactionCommitResult,
  type TransactionResult,
  type WriteResult,
} from '../../store/index.ts';
import { BadRequestError, eventNumberToWire, int64ToNumber, newEventFromWire } from '../codec.ts';
import { TcpCommand } from '../commands.ts';
import { encodeWriteEventsCompleted } from '../event-encoder.ts';
import type { CommandHandlerMap, RequestContext } from '../dispatcher.ts';
import {
  enumTable,
  type DeleteStreamMessage,
  type Int64,
  type NewEventMessage,
  type TransactionCommitMessage,
  type TransactionStartMessage,
  type TransactionWriteMessage,
  type WriteEventsMessage,
} from '../messages.ts';

/** WriteEvents, DeleteStream and the three transaction commands. Access rules (e.g. no writes to `$all`) are the store's. */

const OperationResultCode = enumTable<OperationResult>('OperationResult');

function streamIdOf(id: string): string {
  if (!id) throw new BadRequestError('Empty stream id.');
  return id;
}

function expectedVersionOf(value: Int64): number {
  const v = int64ToNumber(value);
  if (v === ExpectedVersion.Any || v === ExpectedVersion.NoStream || v === ExpectedVersion.StreamExists || v >= 0)
    return v;
  throw new BadRequestError(`Invalid expected version ${v}.`);
}

function eventsOf(events: NewEventMessage[] | undefined) {
  return (events ?? []).map(newEventFromWire);
}

function sendWriteCompleted(ctx: RequestContext, r: WriteResult): void {
  // Event numbers at or past EVENT_NUMBER_DELETED go out as long.MaxValue (the encoder maps them).
  ctx.reply(
    TcpCommand.WriteEventsCompleted,
    encodeWriteEventsCompleted({
      result: OperationResultCode[r.result],
      message: r.message,
      firstEventNumber: r.firstEventNumber ?? EVENT_NUMBER_INVALID,
      lastEventNumber: r.lastEventNumber ?? EVENT_NUMBER_INVALID,
      preparePosition: r.preparePosition ?? EVENT_NUMBER_INVALID,
      commitPosition: r.commitPosition ?? EVENT_NUMBER_INVALID,
      currentVersion: r.currentVersion,
    }),
  );
}

function sendDeleteCompleted(ctx: RequestContext, r: DeleteResult): void {
  const body: Record<string, unknown> = {
    result: OperationResultCode[r.result],
    preparePosition: r.preparePosition ?? EVENT_NUMBER_INVALID,
    commitPosition: r.commitPosition ?? EVENT_NUMBER_INVALID,
  };
  if (r.message) body.message = r.message;
  if (r.currentVersion !== undefined) body.currentVersion = eventNumberToWire(r.currentVersion);
  ctx.replyMessage(TcpCommand.DeleteStreamCompleted, 'DeleteStreamCompleted', body);
}

function transactionBody(r: TransactionResult): Record<string, unknown> {
  const body: Record<string, unknown> = { transactionId: r.transactionId, result: OperationResultCode[r.result] };
  if (r.message) body.message = r.message;
  return body;
}

export const writeHandlers: CommandHandlerMap = {
  [TcpCommand.WriteEvents]: {
    request: 'WriteEvents',
    handle(ctx, m: WriteEventsMessage) {
      const streamId = streamIdOf(m.eventStreamId);
      const expectedVersion = expectedVersionOf(m.expectedVersion);
      const events = eventsOf(m.events);
      return ctx.store
        .appendToStream(streamId, expectedVersion, events, ctx.caller)
        .then((r) => sendWriteCompleted(ctx, r));
    },
  },

  [TcpCommand.DeleteStream]: {
    request: 'DeleteStream',
    async handle(ctx, m: DeleteStreamMessage) {
      const streamId = streamIdOf(m.eventStreamId);
      const expectedVersion = expectedVersionOf(m.expectedVersion);
      sendDeleteCompleted(
        ctx,
        await ctx.store.deleteStream(streamId, expectedVersion, m.hardDelete === true, ctx.caller),
      );
    },
  },

  [TcpCommand.TransactionStart]: {
    request: 'TransactionStart',
    async handle(ctx, m: TransactionStartMessage) {
      const streamId = streamIdOf(m.eventStreamId);
      const expectedVersion = expectedVersionOf(m.expectedVersion);
      const r = await ctx.store.startTransaction(streamId, expectedVersion, ctx.caller);
      ctx.replyMessage(TcpCommand.TransactionStartCompleted, 'TransactionStartCompleted', transactionBody(r));
    },
  },

  [TcpCommand.TransactionWrite]: {
    request: 'TransactionWrite',
    async handle(ctx, m: TransactionWriteMessage) {
      const events = eventsOf(m.events);
      const r = await ctx.store.transactionWrite(int64ToNumber(m.transactionId), events, ctx.caller);
      ctx.replyMessage(TcpCommand.TransactionWriteCompleted, 'TransactionWriteCompleted', transactionBody(r));
    },
  },

  [TcpCommand.TransactionCommit]: {
    request: 'TransactionCommit',
    async handle(ctx, m: TransactionCommitMessage) {
      const r: TransactionCommitResult = await ctx.store.commitTransaction(int64ToNumber(m.transactionId), ctx.caller);
      ctx.replyMessage(TcpCommand.TransactionCommitCompleted, 'TransactionCommitCompleted', {
        ...transactionBody(r),
        firstEventNumber: eventNumberToWire(r.firstEventNumber ?? EVENT_NUMBER_INVALID),
        lastEventNumber: eventNumberToWire(r.lastEventNumber ?? EVENT_NUMBER_INVALID),
        preparePosition: r.preparePosition ?? EVENT_NUMBER_INVALID,
        commitPosition: r.commitPosition ?? EVENT_NUMBER_INVALID,
      });
    },
  },
};
