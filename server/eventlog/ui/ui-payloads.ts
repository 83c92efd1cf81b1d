/** Events as the UI shows them: payloads cut to a byte budget, decoded as text or JSON when they are. */
import { LINK_EVENT_TYPE, parseLink, type RecordedEvent, type ResolvedIndexedEvent } from '../store/index.ts';

/** Per-field cap for data/metadata shown in a page of events; the event page shows everything. */
export const PREVIEW_FIELD_BYTES = 32 * 1024;
/** A whole page of events carries at most this much data text, so a 4096-event page stays a few MiB. */
export const PAGE_PAYLOAD_BYTES = 4 * 1024 * 1024;
export const FULL_FIELD_BYTES = 16 * 1024 * 1024;

export interface UiPayload {
  /** UTF-8 text, or base64 when the bytes are not valid UTF-8. */
  text: string;
  encoding: 'utf8' | 'base64';
  bytes: number;
  truncated: boolean;
}

export interface UiRecord {
  streamId: string;
  eventNumber: number;
  eventId: string;
  eventType: string;
  isJson: boolean;
  created: number;
  size: number;
  data: UiPayload;
  metadata: UiPayload;
  position?: { commitPosition: number; preparePosition: number };
}

/** One row of an event table: the record in the stream being read, plus the target when it is a link. */
export interface UiEvent extends UiRecord {
  /** For `$>` link events: where the link points (parsed from its data). */
  linkTo?: { streamId: string; eventNumber: number };
  /** For resolved links: the target record, or null when it is gone. */
  target?: UiRecord | null;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

export function payload(bytes: Uint8Array, limit: number): UiPayload {
  const truncated = bytes.byteLength > limit;
  const slice = truncated ? bytes.subarray(0, limit) : bytes;
  try {
    // A cut may split a multi-byte character; `stream: true` keeps the decoder from failing on that tail.
    const text = truncated
      ? new TextDecoder('utf-8', { fatal: true }).decode(slice, { stream: true })
      : strictUtf8.decode(slice);
    return { text, encoding: 'utf8', bytes: bytes.byteLength, truncated };
  } catch {
    return { text: Buffer.from(slice).toString('base64'), encoding: 'base64', bytes: bytes.byteLength, truncated };
  }
}

export function uiRecord(r: RecordedEvent, limit: number, withPosition: boolean): UiRecord {
  const rec: UiRecord = {
    streamId: r.streamId,
    eventNumber: r.eventNumber,
    eventId: r.eventId,
    eventType: r.eventType,
    isJson: r.isJson,
    created: r.created,
    size: r.data.byteLength + r.metadata.byteLength,
    data: payload(r.data, limit),
    metadata: payload(r.metadata, limit),
  };
  if (withPosition) rec.position = { commitPosition: r.commitPosition, preparePosition: r.preparePosition };
  return rec;
}

/** Where a link event points, for the UI (the event log's one link parser; `-1`, "the end", is not shown as a target). */
export function parseLinkData(data: Uint8Array): { streamId: string; eventNumber: number } | undefined {
  const parsed = parseLink(data);
  return parsed.kind === 'link' && parsed.eventNumber >= 0
    ? { streamId: parsed.streamId, eventNumber: parsed.eventNumber }
    : undefined;
}

/** Converts a read entry; `position` is the `$all` position to show (the link's for resolved links). */
export function uiEvent(
  entry: ResolvedIndexedEvent,
  limit: number,
  position?: { commitPosition: number; preparePosition: number },
): UiEvent | null {
  const own = entry.link ?? entry.event;
  if (!own) return null;
  const ev: UiEvent = uiRecord(own, limit, false);
  if (position) ev.position = position;
  if (own.eventType === LINK_EVENT_TYPE) {
    const to = parseLinkData(own.data);
    if (to) ev.linkTo = to;
  }
  if (entry.link) ev.target = entry.event ? uiRecord(entry.event, limit, false) : null;
  return ev;
}

/** Field limit for a page of `count` events. */
export function pageFieldLimit(count: number): number {
  return Math.max(1024, Math.min(PREVIEW_FIELD_BYTES, Math.floor(PAGE_PAYLOAD_BYTES / Math.max(1, count) / 2)));
}
