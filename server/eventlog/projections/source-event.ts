/**
 * What a projection's reader hands on from the log, and the checks every reader applies: EventStoreDB's
 * `$all` filter (no `$` streams but the metastreams of user streams; `$>` only with includeLinks), the
 * content-type check (JSON-flagged events whose data is not JSON are skipped), and deletion markers.
 */
import {
  isMetastream,
  originalStreamOf,
  parseStreamMetadata,
  SystemEventTypes,
  EVENT_NUMBER_DELETED,
  type RecordedEvent,
} from '../store/index.ts';

const decoder = new TextDecoder('utf-8', { fatal: true });

export function decodeText(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    return Buffer.from(bytes).toString('utf8');
  }
}

/** TransactionFileEventFilter.PassesSource. */
export function passesAllFilter(event: RecordedEvent, includeLinks: boolean): boolean {
  if (!includeLinks && event.eventType === SystemEventTypes.LinkTo) return false;
  const s = event.streamId;
  if (!s.startsWith('$')) return true;
  return isMetastream(s) && !originalStreamOf(s).startsWith('$');
}

/** Content-type validation: a JSON-flagged event must hold valid UTF-8 JSON. */
export function passesValidation(event: { isJson: boolean; data: Uint8Array }): boolean {
  if (!event.isJson) return true;
  if (event.data.length === 0) return false;
  try {
    JSON.parse(decoder.decode(event.data));
    return true;
  } catch {
    return false;
  }
}

/**
 * StreamDeletedHelper.IsStreamDeletedEvent: a tombstone in `x`, or a `$metadata` of `$$x` whose `$tb` is
 * the deleted-stream number. Returns the stream the event is about (`x` for both, and for any `$$x`).
 */
export function deletionOf(event: RecordedEvent): { streamId: string; deleted: boolean } {
  if (isMetastream(event.streamId)) {
    const streamId = originalStreamOf(event.streamId);
    if (event.eventType !== SystemEventTypes.Metadata) return { streamId, deleted: false };
    const meta = parseStreamMetadata(event.isJson, event.data).metadata;
    return { streamId, deleted: meta.truncateBefore === EVENT_NUMBER_DELETED };
  }
  return { streamId: event.streamId, deleted: event.eventType === SystemEventTypes.StreamDeleted };
}

/** The `$correlationId` string of an event's JSON metadata, if it has one. */
export function correlationIdOf(metadata: Uint8Array, property = '$correlationId'): string | undefined {
  const value = metadataProperty(metadata, property);
  return typeof value === 'string' ? value : undefined;
}

export function metadataProperty(metadata: Uint8Array, property: string): unknown {
  return metadataObject(metadata)?.[property];
}

function metadataObject(metadata: Uint8Array): Record<string, unknown> | null {
  if (metadata.length === 0) return null;
  try {
    const doc = JSON.parse(decodeText(metadata));
    return doc && typeof doc === 'object' && !Array.isArray(doc) ? (doc as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * The event the standard projections look at, shared by all of them: its metadata is parsed at most once
 * however many projections ask (each link carries the `$correlationId`), and one instance serves a whole
 * page (`reset`), so looking costs no allocation per event and projection.
 */
export class SharedSourceEvent {
  event!: RecordedEvent;
  /** undefined: not parsed yet. */
  private metadata: Record<string, unknown> | null | undefined;

  reset(event: RecordedEvent): this {
    this.event = event;
    this.metadata = undefined;
    return this;
  }

  metadataProperty(property: string): unknown {
    if (this.metadata === undefined) this.metadata = metadataObject(this.event.metadata);
    return this.metadata?.[property];
  }

  get correlationId(): string | undefined {
    const value = this.metadataProperty('$correlationId');
    return typeof value === 'string' ? value : undefined;
  }
}
