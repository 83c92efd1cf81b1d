import type * as grpc from '@grpc/grpc-js';
import type { VolatileSubscriptions } from '../../subscriptions/index.ts';
import type { EventStore, Position } from '../../store/index.ts';
import { serverStream, subscriberOf, type CallContext } from '../call-support.ts';
import type { GrpcServiceModule } from '../listener.ts';
import { parseReadOptions, type WireReadOptions } from './read-request.ts';
import { LOG_END, LOG_START, readAllCount, readStreamCount } from './read.ts';
import { subscribe } from './subscribe.ts';
import { batchAppendHandler } from './batch-append.ts';
import { appendHandler, deleteHandler } from './write.ts';

export interface StreamsServiceDeps {
  store: EventStore;
  volatile: VolatileSubscriptions;
  /** Largest total size of one Append (data, metadata and type of every event). */
  maxAppendBytes: number;
}

/** `event_store.client.streams.Streams`: Read (every mode), Append, Delete, Tombstone. */
export function streamsService(ctx: CallContext, deps: StreamsServiceDeps): GrpcServiceModule {
  const { store } = deps;
  const read = serverStream<{ options?: WireReadOptions }, unknown>(ctx, async (request, caller, out, call) => {
    const parsed = parseReadOptions(request.options);
    const { plan } = parsed;
    if (plan.mode.kind === 'subscription') {
      await subscribe(deps, parsed, caller, subscriberOf(call, caller), out);
      return;
    }
    const { count, backwards } = plan.mode;
    if (plan.target === 'stream') {
      const from =
        plan.from.kind === 'start' ? (backwards ? 'end' : 0) : plan.from.kind === 'end' ? 'end' : plan.from.at;
      if (plan.from.kind === 'end' && !backwards) {
        // Forwards from the end: nothing to read (the stream's existence is still reported).
        return readStreamCount(
          store,
          plan.streamId,
          parsed,
          store.lastEventNumber(plan.streamId) + 1,
          count,
          false,
          caller,
          out,
        );
      }
      if (plan.from.kind === 'start' && backwards) return out.end();
      return readStreamCount(store, plan.streamId, parsed, from, count, backwards, caller, out);
    }
    let from: Position;
    if (plan.from.kind === 'start') {
      if (backwards) return out.end();
      from = LOG_START;
    } else if (plan.from.kind === 'end') {
      if (!backwards) return out.end();
      from = LOG_END;
    } else from = plan.from.at;
    return readAllCount(store, parsed, from, count, backwards, plan.filter, caller, out);
  });
  return {
    service: 'event_store.client.streams.Streams',
    handlers: {
      Read: read,
      Append: appendHandler(ctx, store, deps.maxAppendBytes),
      Delete: deleteHandler(ctx, store, false),
      Tombstone: deleteHandler(ctx, store, true),
      BatchAppend: batchAppendHandler(ctx, store, deps.maxAppendBytes),
    },
    methods: {
      Read: ['position', 'events'],
      Append: [],
      Delete: [],
      Tombstone: [],
      // Advertised as KurrentDB does, so the Node client's appendToStream goes through it (one long-lived
      // stream instead of a call per append: about twice Append's rate with that client here); its appends
      // are held while the stream keeps delivering, so they share group commits (arrival-gate.ts).
      BatchAppend: ['deadline_duration'],
    },
  };
}
