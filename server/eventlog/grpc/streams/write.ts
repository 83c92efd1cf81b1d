import type * as grpc from '@grpc/grpc-js';
import {
  ExpectedVersion,
  type Caller,
  type DeleteResult,
  type EventStore,
  type NewEvent,
  type WriteResult,
} from '../../store/index.ts';
import { toGrpcError, unary, wellFormed, type CallContext } from '../call-support.ts';
import { Errors } from '../errors.ts';
import { uuidFromWire, type WireUuid } from '../uuid.ts';

/** Append, Delete and Tombstone. Expected revisions map onto the store's expected versions. */

export interface WireExpected {
  expected_stream_revision?: 'revision' | 'no_stream' | 'any' | 'stream_exists';
  revision?: string;
}

interface WriteOptions extends WireExpected {
  stream_identifier?: { stream_name?: Buffer };
}

interface ProposedMessage {
  id?: WireUuid;
  metadata?: Record<string, string>;
  custom_metadata?: Buffer;
  data?: Buffer;
}

interface AppendReq {
  content?: 'options' | 'proposed_message';
  options?: WriteOptions;
  proposed_message?: ProposedMessage;
}

export function streamNameOf(options: { stream_identifier?: { stream_name?: Buffer } } | undefined): string {
  const name = options?.stream_identifier?.stream_name?.toString('utf8') ?? '';
  if (name === '') throw Errors.invalidArgument('stream_identifier is required');
  return name;
}

export function expectedVersionOf(options: WireExpected): number {
  switch (options.expected_stream_revision) {
    case 'revision': {
      const n = Number(options.revision ?? '0');
      if (!Number.isSafeInteger(n)) throw Errors.invalidArgument('expected revision is out of range');
      return n;
    }
    case 'no_stream':
      return ExpectedVersion.NoStream;
    case 'any':
      return ExpectedVersion.Any;
    case 'stream_exists':
      return ExpectedVersion.StreamExists;
    default:
      throw Errors.invalidArgument('expected_stream_revision is required');
  }
}

/** `type` and `content-type` are required, as KurrentDB; the rest of the map is not stored. */
export function proposedToNewEvent(message: ProposedMessage): NewEvent {
  const metadata = message.metadata ?? {};
  const missing = ['type', 'content-type'].filter((k) => typeof metadata[k] !== 'string');
  if (missing.length > 0) throw Errors.missingMetadata(missing);
  return {
    eventId: uuidFromWire(message.id, 'event id'),
    eventType: metadata.type,
    isJson: metadata['content-type'] === 'application/json',
    data: message.data ?? Buffer.alloc(0),
    metadata: message.custom_metadata ?? Buffer.alloc(0),
  };
}

export function proposedSize(message: ProposedMessage): number {
  return (message.data?.length ?? 0) + (message.custom_metadata?.length ?? 0) + (message.metadata?.type?.length ?? 0);
}

function wrongExpectedVersionResp(expected: number, current: number | undefined) {
  const actual = current === undefined || current < 0 ? null : current;
  const expectedFields =
    expected === ExpectedVersion.Any
      ? { expected_any: {}, any_20_6_0: {} }
      : expected === ExpectedVersion.StreamExists
        ? { expected_stream_exists: {}, stream_exists_20_6_0: {} }
        : expected === ExpectedVersion.NoStream
          ? { expected_no_stream: {} }
          : { expected_revision: String(expected), expected_revision_20_6_0: String(expected) };
  return {
    wrong_expected_version: {
      ...(actual === null
        ? { current_no_stream: {}, no_stream_20_6_0: {} }
        : { current_revision: String(actual), current_revision_20_6_0: String(actual) }),
      ...expectedFields,
    },
  };
}

/** The `success` of Append and BatchAppend: the stream's revision and the commit's position. */
export function appendSuccess(result: WriteResult) {
  return {
    ...(result.lastEventNumber >= 0 ? { current_revision: String(result.lastEventNumber) } : { no_stream: {} }),
    ...(result.commitPosition >= 0
      ? {
          position: {
            commit_position: String(result.commitPosition),
            prepare_position: String(result.preparePosition),
          },
        }
      : { no_position: {} }),
  };
}

export function appendResponse(streamId: string, expected: number, result: WriteResult) {
  switch (result.result) {
    case 'Success':
      return { success: appendSuccess(result) };
    case 'WrongExpectedVersion':
      return wrongExpectedVersionResp(expected, result.currentVersion);
    default:
      throw writeFailure(streamId, expected, result);
  }
}

export function writeFailure(streamId: string, expected: number, result: WriteResult | DeleteResult): Error {
  switch (result.result) {
    case 'StreamDeleted':
      return Errors.streamDeleted(streamId);
    case 'AccessDenied':
      return Errors.accessDenied();
    case 'WrongExpectedVersion':
      return Errors.wrongExpectedVersion(
        streamId,
        expected,
        result.currentVersion === undefined || result.currentVersion < 0 ? null : result.currentVersion,
      );
    case 'InvalidTransaction':
      return Errors.invalidTransaction();
    case 'PrepareTimeout':
    case 'CommitTimeout':
    case 'ForwardTimeout':
      return Errors.timeout(result.message ?? result.result);
    default:
      return Errors.internal(result.message ?? result.result);
  }
}

export function appendHandler(
  ctx: CallContext,
  store: EventStore,
  maxAppendBytes: number,
): grpc.handleClientStreamingCall<AppendReq, unknown> {
  return (call, callback) => {
    (async () => {
      const caller = await ctx.authenticate(call);
      let streamId: string | null = null;
      let expected = ExpectedVersion.Any as number;
      const events: NewEvent[] = [];
      let bytes = 0;
      const arrival = ctx.writes.arrivals.start();
      try {
        for await (const received of call as AsyncIterable<AppendReq>) {
          const message = wellFormed(received);
          if (streamId === null) {
            if (message.content !== 'options') throw Errors.invalidArgument('the first AppendReq must be options');
            streamId = streamNameOf(message.options);
            expected = expectedVersionOf(message.options ?? {});
            continue;
          }
          if (message.content !== 'proposed_message' || !message.proposed_message)
            throw Errors.invalidArgument('AppendReq after options must be proposed_message');
          bytes += proposedSize(message.proposed_message);
          if (bytes > maxAppendBytes) throw Errors.maximumAppendSizeExceeded(maxAppendBytes);
          events.push(proposedToNewEvent(message.proposed_message));
        }
      } catch (err) {
        arrival.abandon();
        throw err;
      }
      await arrival.ready();
      if (streamId === null) throw Errors.invalidArgument('AppendReq options are required');
      const result = await ctx.writes.run(() => store.appendToStream(streamId, expected, events, caller));
      return appendResponse(streamId, expected, result);
    })().then(
      (response) => callback(null, response),
      (err) => {
        // Stop reading what the client still sends; the status tells it why.
        callback(toGrpcError(err, ctx.logger));
      },
    );
  };
}

function deleteResponse(result: DeleteResult) {
  return result.commitPosition >= 0
    ? {
        position: {
          commit_position: String(result.commitPosition),
          prepare_position: String(result.preparePosition),
        },
      }
    : { no_position: {} };
}

export function deleteHandler(ctx: CallContext, store: EventStore, hard: boolean) {
  return unary<{ options?: WriteOptions }, unknown>(ctx, async (request, caller: Caller) => {
    const streamId = streamNameOf(request.options);
    const expected = expectedVersionOf(request.options ?? {});
    const result = await ctx.writes.run(() => store.deleteStream(streamId, expected, hard, caller));
    if (result.result !== 'Success') throw writeFailure(streamId, expected, result);
    return deleteResponse(result);
  });
}
