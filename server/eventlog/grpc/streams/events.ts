import type { RecordedEvent, ResolvedIndexedEvent } from '../../store/types.ts';
import { uuidToWire } from '../uuid.ts';

/** Unix milliseconds → .NET ticks (100 ns) since the Unix epoch, as KurrentDB's `created` metadata. */
function createdTicks(ms: number): string {
  return (BigInt(ms) * 10_000n).toString();
}

export function recordedEventToWire(event: RecordedEvent, structuredIds: boolean) {
  return {
    id: uuidToWire(event.eventId, structuredIds),
    stream_identifier: { stream_name: Buffer.from(event.streamId, 'utf8') },
    stream_revision: String(event.eventNumber),
    prepare_position: String(event.preparePosition),
    commit_position: String(event.commitPosition),
    metadata: {
      type: event.eventType,
      created: createdTicks(event.created),
      'content-type': event.isJson ? 'application/json' : 'application/octet-stream',
    },
    custom_metadata: Buffer.from(event.metadata.buffer, event.metadata.byteOffset, event.metadata.byteLength),
    data: Buffer.from(event.data.buffer, event.data.byteOffset, event.data.byteLength),
  };
}

/** One `ReadResp` with `event`: the link's position when a link was resolved (as `$all` reports it). */
export function readEventResp(entry: ResolvedIndexedEvent, structuredIds: boolean, commitPosition?: number) {
  const original = entry.link ?? entry.event;
  const position = commitPosition ?? original?.commitPosition;
  return {
    event: {
      ...(entry.event ? { event: recordedEventToWire(entry.event, structuredIds) } : {}),
      ...(entry.link ? { link: recordedEventToWire(entry.link, structuredIds) } : {}),
      ...(position !== undefined && position >= 0 ? { commit_position: String(position) } : { no_position: {} }),
    },
  };
}
