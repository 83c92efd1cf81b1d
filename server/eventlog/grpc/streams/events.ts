import type { RecordedEvent, ResolvedIndexedEvent } from '../../store/index.ts';
import { encodeMessage } from '../protos.ts';
import { uuidToWire } from '../uuid.ts';

/** Unix milliseconds → .NET ticks (100 ns) since the Unix epoch, as KurrentDB's `created` metadata. */
function createdTicks(ms: number): string {
  return ms > 0 ? `${ms}0000` : '0';
}

// uint64 fields go to the encoder as JS numbers (positions and revisions are safe integers): protobufjs
// would parse decimal text into a Long for every field of every event.

export function recordedEventToWire(event: RecordedEvent, structuredIds: boolean) {
  return {
    id: uuidToWire(event.eventId, structuredIds),
    stream_identifier: { stream_name: Buffer.from(event.streamId, 'utf8') },
    stream_revision: event.eventNumber,
    prepare_position: event.preparePosition,
    commit_position: event.commitPosition,
    metadata: {
      type: event.eventType,
      created: createdTicks(event.created),
      'content-type': event.isJson ? 'application/json' : 'application/octet-stream',
    },
    custom_metadata: Buffer.from(event.metadata.buffer, event.metadata.byteOffset, event.metadata.byteLength),
    data: Buffer.from(event.data.buffer, event.data.byteOffset, event.data.byteLength),
  };
}

/** A `ReadEvent`: the link's position when a link was resolved (as `$all` reports it). */
export function readEventToWire(entry: ResolvedIndexedEvent, structuredIds: boolean, commitPosition?: number) {
  const original = entry.link ?? entry.event;
  const position = commitPosition ?? original?.commitPosition;
  return {
    ...(entry.event ? { event: recordedEventToWire(entry.event, structuredIds) } : {}),
    ...(entry.link ? { link: recordedEventToWire(entry.link, structuredIds) } : {}),
    ...(position !== undefined && position >= 0 ? { commit_position: position } : { no_position: {} }),
  };
}

/** One `Streams.Read` answer with an event, encoded (sent once per event: no conversion pass). */
export function readEventResp(entry: ResolvedIndexedEvent, structuredIds: boolean, commitPosition?: number): Buffer {
  return encodeMessage('event_store.client.streams.ReadResp', {
    event: readEventToWire(entry, structuredIds, commitPosition),
  });
}

/** Live events' answers, by the event object the subscription engine hands every subscriber of a commit. */
const sharedAnswers = [false, true].map(
  () => new WeakMap<ResolvedIndexedEvent, { position?: number; bytes: Buffer }>(),
);

/**
 * `readEventResp` for a live event: encoded once per event and id form, the same bytes written to every
 * subscriber (grpc-js writes a Buffer answer as it is, and never changes it); a WeakMap, so the entry goes
 * with the event.
 */
export function sharedReadEventResp(
  entry: ResolvedIndexedEvent,
  structuredIds: boolean,
  commitPosition?: number,
): Buffer {
  const answers = sharedAnswers[structuredIds ? 1 : 0];
  const cached = answers.get(entry);
  if (cached && cached.position === commitPosition) return cached.bytes;
  const bytes = readEventResp(entry, structuredIds, commitPosition);
  answers.set(entry, { position: commitPosition, bytes });
  return bytes;
}
