import type * as grpc from '@grpc/grpc-js';
import { ExpectedVersion, type Caller, type EventStore, type NewEvent, type WriteResult } from '../../store/index.ts';
import { Outbox, toGrpcError, wellFormed, type CallContext } from '../call-support.ts';
import { Errors, type GrpcError } from '../errors.ts';
import { packAny } from '../protos.ts';
import { uuidFromWire, type WireUuid } from '../uuid.ts';
import { StreamArrivals } from '../arrival-gate.ts';
import { appendSuccess, proposedSize, proposedToNewEvent, streamNameOf } from './write.ts';

/**
 * BatchAppend: one long-lived bidirectional stream per client carrying many appends, each identified by
 * its correlation id and sent in chunks (options in the first, `is_final` on the last). Each answer echoes
 * the correlation id and holds `success` or a `google.rpc.Status` whose `details` is an `Any` of
 * KurrentDB's error message (WrongExpectedVersion, StreamDeleted, AccessDenied, …).
 */

interface BatchAppendReq {
  correlation_id?: WireUuid;
  options?: {
    stream_identifier?: { stream_name?: Buffer };
    expected_stream_position?: 'stream_position' | 'no_stream' | 'any' | 'stream_exists';
    stream_position?: string;
    deadline_option?: 'deadline_21_10_0' | 'deadline';
    deadline_21_10_0?: { seconds?: string; nanos?: number };
    deadline?: { seconds?: string; nanos?: number };
  };
  proposed_messages?: Parameters<typeof proposedToNewEvent>[0][];
  is_final?: boolean;
}

interface Pending {
  streamId: string;
  expected: number;
  /** The request's own form of the expected position, echoed in the answer. */
  expectedWire: Record<string, unknown>;
  deadline: number | null;
  events: NewEvent[];
  bytes: number;
}

/** Appends a stream may have started and not finished at once; past this the stream is refused. */
export const MAX_PENDING_BATCHES = 1024;

function expectedOf(options: NonNullable<BatchAppendReq['options']>): {
  version: number;
  wire: Record<string, unknown>;
} {
  switch (options.expected_stream_position) {
    case 'stream_position': {
      const n = Number(options.stream_position ?? '0');
      if (!Number.isSafeInteger(n)) throw Errors.invalidArgument('expected revision is out of range');
      return { version: n, wire: { stream_position: options.stream_position } };
    }
    case 'no_stream':
      return { version: ExpectedVersion.NoStream, wire: { no_stream: {} } };
    case 'stream_exists':
      return { version: ExpectedVersion.StreamExists, wire: { stream_exists: {} } };
    case 'any':
      return { version: ExpectedVersion.Any, wire: { any: {} } };
    default:
      throw Errors.invalidArgument('expected_stream_position is required');
  }
}

function errorStatus(pending: Pending, result: WriteResult | null, failure: GrpcError | null) {
  if (failure) {
    const exception = failure.metadata.get('exception')[0];
    if (exception === 'maximum-append-size-exceeded') {
      return {
        code: 'INVALID_ARGUMENT',
        message: failure.details,
        details: packAny('event_store.client.MaximumAppendSizeExceeded', {
          maxAppendSize: Number(failure.metadata.get('maximum-append-size')[0]),
        }),
      };
    }
    if (exception === 'access-denied')
      return {
        code: 'PERMISSION_DENIED',
        message: failure.details,
        details: packAny('event_store.client.AccessDenied', {}),
      };
    return {
      code: 'INVALID_ARGUMENT',
      message: failure.details,
      details: packAny('event_store.client.BadRequest', { message: failure.details }),
    };
  }
  const r = result!;
  switch (r.result) {
    case 'WrongExpectedVersion': {
      const current = r.currentVersion ?? -1;
      const expected = pending.expected;
      return {
        code: 'ALREADY_EXISTS',
        message: 'Wrong expected version.',
        details: packAny('event_store.client.WrongExpectedVersion', {
          ...(current < 0 ? { current_no_stream: {} } : { current_stream_revision: String(current) }),
          ...(expected === ExpectedVersion.Any
            ? { expected_any: {} }
            : expected === ExpectedVersion.NoStream
              ? { expected_no_stream: {} }
              : expected === ExpectedVersion.StreamExists
                ? { expected_stream_exists: {} }
                : { expected_stream_position: String(expected) }),
        }),
      };
    }
    case 'StreamDeleted':
      return {
        code: 'NOT_FOUND',
        message: `Event stream '${pending.streamId}' is deleted.`,
        details: packAny('event_store.client.StreamDeleted', {
          stream_identifier: { stream_name: Buffer.from(pending.streamId) },
        }),
      };
    case 'AccessDenied':
      return {
        code: 'PERMISSION_DENIED',
        message: 'Access denied.',
        details: packAny('event_store.client.AccessDenied', {}),
      };
    default:
      return {
        code: 'DEADLINE_EXCEEDED',
        message: r.message ?? r.result,
        details: packAny('event_store.client.Timeout', {}),
      };
  }
}

export function batchAppendHandler(
  ctx: CallContext,
  store: EventStore,
  maxAppendBytes: number,
): grpc.handleBidiStreamingCall<BatchAppendReq, unknown> {
  return (call) => {
    const out = new Outbox<unknown>(call);
    const pending = new Map<string, Pending>();
    let inFlight = 0;
    let clientDone = false;
    try {
      ctx.streams.admit(call, out);
    } catch (err) {
      out.fail(toGrpcError(err, ctx.logger));
      return;
    }
    const maybeEnd = () => {
      if (clientDone && inFlight === 0) out.end();
    };

    const answer = (correlation: WireUuid, p: Pending, body: Record<string, unknown>) =>
      out.push({
        correlation_id: correlation,
        stream_identifier: { stream_name: Buffer.from(p.streamId) },
        ...p.expectedWire,
        ...body,
      });

    const finish = async (correlation: WireUuid, p: Pending, caller: Caller) => {
      inFlight++;
      try {
        if (p.deadline !== null && Date.now() > p.deadline) {
          answer(correlation, p, {
            error: {
              code: 'DEADLINE_EXCEEDED',
              message: 'Deadline passed.',
              details: packAny('event_store.client.Timeout', {}),
            },
          });
          return;
        }
        // Answered inside the tracked write: a shutdown waits for the answer, not only for the commit.
        await ctx.writes.run(async () => {
          const result = await store.appendToStream(p.streamId, p.expected, p.events, caller);
          if (result.result === 'Success') answer(correlation, p, { success: appendSuccess(result) });
          else answer(correlation, p, { error: errorStatus(p, result, null) });
        });
      } catch (err) {
        out.fail(toGrpcError(err, ctx.logger));
      } finally {
        inFlight--;
        maybeEnd();
      }
    };

    // The credentials are the call's (its headers): checked once, for every append on this stream.
    let principal: Promise<Caller> | null = null;
    const handle = async (message: BatchAppendReq) => {
      principal ??= ctx.authenticate(call);
      const caller = await principal;
      const correlation = message.correlation_id;
      const key = uuidFromWire(correlation, 'correlation_id');
      let p = pending.get(key);
      if (!p) {
        if (!message.options) throw Errors.invalidArgument('the first BatchAppendReq of an append needs options');
        if (pending.size >= MAX_PENDING_BATCHES)
          throw Errors.invalidArgument(`more than ${MAX_PENDING_BATCHES} unfinished appends on one stream`);
        const expected = expectedOf(message.options);
        // An absolute Timestamp (clients up to 21.10) or a Duration from now.
        const at = message.options.deadline_21_10_0;
        const within = message.options.deadline;
        const toMs = (t: { seconds?: string; nanos?: number }) =>
          Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6);
        p = {
          streamId: streamNameOf(message.options),
          expected: expected.version,
          expectedWire: expected.wire,
          deadline: at ? toMs(at) : within ? Date.now() + toMs(within) : null,
          events: [],
          bytes: 0,
        };
        pending.set(key, p);
      }
      try {
        for (const proposed of message.proposed_messages ?? []) {
          p.bytes += proposedSize(proposed);
          if (p.bytes > maxAppendBytes) throw Errors.maximumAppendSizeExceeded(maxAppendBytes);
          p.events.push(proposedToNewEvent(proposed));
        }
      } catch (err) {
        pending.delete(key);
        answer(correlation!, p, { error: errorStatus(p, null, toGrpcError(err, ctx.logger)) });
        return;
      }
      if (message.is_final) {
        pending.delete(key);
        inFlight++; // answered later: the stream does not end before it
        arrivals.whenQuiet(() => {
          inFlight--;
          void finish(correlation!, p!, caller);
        });
      }
    };

    const arrivals = new StreamArrivals();
    let chain: Promise<void> = Promise.resolve();
    call.on('data', (message: BatchAppendReq) => {
      arrivals.delivering();
      chain = chain.then(() => handle(wellFormed(message))).catch((err) => out.fail(toGrpcError(err, ctx.logger)));
    });
    call.on('end', () => {
      chain = chain.then(() => {
        clientDone = true;
        maybeEnd();
      });
    });
  };
}
