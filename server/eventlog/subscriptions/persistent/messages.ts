/** What a persistent group hands out: one message per event of its stream, and how each is keyed. */
import { LINK_EVENT_TYPE, parseLink, type RecordedEvent, type ResolvedIndexedEvent } from '../../store/index.ts';
import { utf8Decoder } from './group-streams.ts';

/** A slice of replayed parked messages; the parked stream is truncated once all of a slice are done. */
export interface ReplaySlice {
  /** First parked event number after this slice. */
  parkedUpTo: number;
  remaining: number;
}

export interface Message {
  event: ResolvedIndexedEvent;
  /** The original event's id: the link's when a link was resolved. What clients ack. */
  id: string;
  /** The original event's number in the group's source (event number, or commit position in `$all`); -1 for a replay. */
  number: number;
  retryCount: number;
  /** Pinned strategies: the source stream or correlation id. */
  pinKey: string;
  /** Set for messages replayed from the parked stream: they do not hold the checkpoint back. */
  replay: ReplaySlice | null;
}

/** How a strategy keys messages: not at all, by source stream (Pinned), or by `$correlationId`. */
export type PinKeying = 'none' | 'stream' | 'correlation';

export function messageFor(entry: ResolvedIndexedEvent, keying: PinKeying, number: number): Message {
  const original = (entry.link ?? entry.event) as RecordedEvent;
  return {
    event: entry,
    id: original.eventId,
    number,
    retryCount: 0,
    pinKey: keying === 'none' ? '' : pinKeyOf(entry, keying),
    replay: null,
  };
}

/** Pinned: the source stream (the target's, or parsed from an unresolved link); ByCorrelation: `$correlationId`. */
function pinKeyOf(entry: ResolvedIndexedEvent, keying: PinKeying): string {
  const event = entry.event;
  let source = event?.streamId ?? '';
  if (event && event.eventType === LINK_EVENT_TYPE && !entry.link) source = linkTargetStream(event) ?? source;
  else if (!event && entry.link) source = linkTargetStream(entry.link) ?? entry.link.streamId;
  if (keying === 'correlation') {
    const carrier = event ?? entry.link;
    if (carrier && carrier.metadata.length > 0) {
      try {
        const meta = JSON.parse(utf8Decoder.decode(carrier.metadata)) as { $correlationId?: unknown };
        if (typeof meta.$correlationId === 'string' && meta.$correlationId !== '') return meta.$correlationId;
      } catch {
        /* not JSON: fall back to the stream */
      }
    }
  }
  return source;
}

function linkTargetStream(link: RecordedEvent): string | null {
  const parsed = parseLink(link.data);
  return parsed.kind === 'link' ? parsed.streamId : null;
}
