/**
 * node-eventstore-client's recorded events as the replicator's source events. Apart from tcp.ts so that what only
 * converts (the benchmark, test support, the public face) never loads the client itself: types only here.
 */
import type es from 'node-eventstore-client';
import type { LogPosition, SourceEvent } from './types.ts';

export function positionOf(p: es.Position): LogPosition {
  return { commit: BigInt(p.commitPosition.toString()), prepare: BigInt(p.preparePosition.toString()) };
}

export function toSourceEvent(e: es.ResolvedEvent): SourceEvent {
  const r = e.event!;
  return {
    streamId: r.eventStreamId,
    eventNumber: BigInt(r.eventNumber.toString()),
    eventId: r.eventId,
    eventType: r.eventType,
    isJson: r.isJson,
    data: r.data ?? Buffer.alloc(0),
    metadata: r.metadata ?? Buffer.alloc(0),
    created: r.createdEpoch,
    position: positionOf(e.originalPosition!),
  };
}
