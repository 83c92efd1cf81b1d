/**
 * Direct protobuf encoding of the messages that carry events in bulk: ReadStreamEventsCompleted,
 * (Filtered)ReadAllEventsCompleted and StreamEventAppeared, and of the answer to every append,
 * WriteEventsCompleted. Everything else goes through protobufjs.
 *
 * Hand-written because it is the read path's hot loop: protobufjs builds a message object per record,
 * a Long per 64-bit field and a writer operation per field (about a dozen objects per event), and the
 * profile of 1,000-event pages put a fifth of the server's time in garbage collection plus a tenth in
 * encoding. This writes each reply into one buffer sized by a first pass. event-encoder.test.ts checks
 * it byte for byte against protobufjs on the same values.
 */
import { type RecordedEvent, type ResolvedEvent, type ResolvedIndexedEvent, type WriteResult } from '../store/index.ts';
import { dotNetBinaryDate } from './codec.ts';
import {
  CONTENT_TYPE_JSON,
  int64FieldSize,
  int64Words,
  lengthDelimitedSize,
  Out,
  utf8Length,
  varint32Size,
  varint64Size,
} from './protobuf-out.ts';

const EMPTY = new Uint8Array(0);

/** Encoded size of one EventRecord's fields (without its own tag and length). */
function recordSize(r: RecordedEvent): number {
  const created = dotNetBinaryDate(r.created);
  return (
    lengthDelimitedSize(utf8Length(r.streamId, 0)) +
    int64FieldSize(r.eventNumber) +
    lengthDelimitedSize(16) +
    lengthDelimitedSize(utf8Length(r.eventType, 1)) +
    2 +
    2 +
    lengthDelimitedSize((r.data ?? EMPTY).byteLength) +
    lengthDelimitedSize((r.metadata ?? EMPTY).byteLength) +
    1 +
    varint64Size(int64Words(created)) +
    int64FieldSize(r.created)
  );
}

function writeRecord(out: Out, tag: number, r: RecordedEvent, size: number): void {
  out.byte(tag);
  out.varint32(size);
  const contentType = r.isJson ? CONTENT_TYPE_JSON : 0;
  out.string(0x0a, r.streamId, utf8Length(r.streamId, 0));
  out.int64(0x10, r.eventNumber);
  if (r.eventIdBytes?.byteLength === 16) out.guid(0x1a, r.eventIdBytes);
  else out.guidText(0x1a, r.eventId);
  out.string(0x22, r.eventType, utf8Length(r.eventType, 1));
  out.byte(0x28);
  out.byte(contentType);
  out.byte(0x30);
  out.byte(contentType);
  out.bytes(0x3a, r.data ?? EMPTY);
  out.bytes(0x42, r.metadata ?? EMPTY);
  out.byte(0x48);
  out.varint64(int64Words(dotNetBinaryDate(r.created)));
  out.int64(0x50, r.created);
}

/** Size of a ResolvedIndexedEvent / the event-and-link part of a ResolvedEvent, with the record sizes it needs. */
function entrySize(entry: ResolvedIndexedEvent, sizes: number[]): number {
  let size = 0;
  if (entry.event) {
    const s = recordSize(entry.event);
    sizes.push(s);
    size += lengthDelimitedSize(s);
  }
  if (entry.link) {
    const s = recordSize(entry.link);
    sizes.push(s);
    size += lengthDelimitedSize(s);
  }
  return size;
}

function writeEntry(out: Out, entry: ResolvedIndexedEvent, sizes: number[], at: number): number {
  if (entry.event) writeRecord(out, 0x0a, entry.event, sizes[at++]);
  if (entry.link) writeRecord(out, 0x12, entry.link, sizes[at++]);
  return at;
}

function resolvedEventSize(entry: ResolvedEvent, sizes: number[]): number {
  return entrySize(entry, sizes) + int64FieldSize(entry.commitPosition) + int64FieldSize(entry.preparePosition);
}

function writeResolvedEvent(out: Out, entry: ResolvedEvent, size: number, sizes: number[], at: number): number {
  out.varint32(size);
  at = writeEntry(out, entry, sizes, at);
  out.int64(0x18, entry.commitPosition);
  out.int64(0x20, entry.preparePosition);
  return at;
}

export interface ReadStreamReply {
  events: readonly ResolvedIndexedEvent[];
  result: number;
  nextEventNumber: number;
  lastEventNumber: number;
  isEndOfStream: boolean;
  lastCommitPosition: number;
  error?: string;
}

export function encodeReadStreamEventsCompleted(reply: ReadStreamReply): Uint8Array {
  const sizes: number[] = [];
  const { events } = reply;
  return encodeStreamReply(
    reply,
    events.map((e) => entrySize(e, sizes)),
    (out, i, at) => writeEntry(out, events[i], sizes, at),
  );
}

/** The frame of a ReadStreamEventsCompleted around its entries, each `entrySizes[i]` bytes, written by `write`. */
export function encodeStreamReply(
  reply: Omit<ReadStreamReply, 'events'>,
  entrySizes: number[],
  write: (out: Out, i: number, at: number) => number,
): Uint8Array {
  const errorLength = reply.error ? Buffer.byteLength(reply.error, 'utf8') : 0;
  let total = 0;
  for (const s of entrySizes) total += lengthDelimitedSize(s);
  total +=
    1 +
    varint32Size(reply.result) +
    int64FieldSize(reply.nextEventNumber) +
    int64FieldSize(reply.lastEventNumber) +
    2 +
    int64FieldSize(reply.lastCommitPosition);
  if (reply.error) total += lengthDelimitedSize(errorLength);
  const out = new Out(total);
  let at = 0;
  for (let i = 0; i < entrySizes.length; i++) {
    out.byte(0x0a);
    out.varint32(entrySizes[i]);
    at = write(out, i, at);
  }
  out.byte(0x10);
  out.varint32(reply.result);
  out.int64(0x18, reply.nextEventNumber);
  out.int64(0x20, reply.lastEventNumber);
  out.byte(0x28);
  out.byte(reply.isEndOfStream ? 1 : 0);
  out.int64(0x30, reply.lastCommitPosition);
  if (reply.error) out.string(0x3a, reply.error, errorLength);
  return out.buf;
}

export interface ReadAllReply {
  commitPosition: number;
  preparePosition: number;
  events: readonly ResolvedEvent[];
  nextCommitPosition: number;
  nextPreparePosition: number;
  result: number;
  error?: string;
  /** Set for FilteredReadAllEventsCompleted only. */
  isEndOfStream?: boolean;
}

/** ReadAllEventsCompleted, or FilteredReadAllEventsCompleted when `isEndOfStream` is set (it shifts result and error). */
export function encodeReadAllEventsCompleted(reply: ReadAllReply): Uint8Array {
  const sizes: number[] = [];
  const { events } = reply;
  return encodeAllReply(
    reply,
    events.map((e) => resolvedEventSize(e, sizes)),
    (out, i, size, at) => writeResolvedEvent(out, events[i], size, sizes, at),
  );
}

/** The frame of a (Filtered)ReadAllEventsCompleted around its events, each `eventSizes[i]` bytes, written by `write`. */
export function encodeAllReply(
  reply: Omit<ReadAllReply, 'events'>,
  eventSizes: number[],
  write: (out: Out, i: number, size: number, at: number) => number,
): Uint8Array {
  const filtered = reply.isEndOfStream !== undefined;
  const errorLength = reply.error ? Buffer.byteLength(reply.error, 'utf8') : 0;
  let total = int64FieldSize(reply.commitPosition) + int64FieldSize(reply.preparePosition);
  for (const s of eventSizes) total += lengthDelimitedSize(s);
  total +=
    int64FieldSize(reply.nextCommitPosition) +
    int64FieldSize(reply.nextPreparePosition) +
    (filtered ? 2 : 0) +
    1 +
    varint32Size(reply.result);
  if (reply.error) total += lengthDelimitedSize(errorLength);
  const out = new Out(total);
  out.int64(0x08, reply.commitPosition);
  out.int64(0x10, reply.preparePosition);
  let at = 0;
  for (let i = 0; i < eventSizes.length; i++) {
    out.byte(0x1a);
    at = write(out, i, eventSizes[i], at);
  }
  out.int64(0x20, reply.nextCommitPosition);
  out.int64(0x28, reply.nextPreparePosition);
  if (filtered) {
    out.byte(0x30);
    out.byte(reply.isEndOfStream ? 1 : 0);
  }
  out.byte(filtered ? 0x38 : 0x30);
  out.varint32(reply.result);
  if (reply.error) out.string(filtered ? 0x42 : 0x3a, reply.error, errorLength);
  return out.buf;
}

export function encodeStreamEventAppeared(event: ResolvedEvent): Uint8Array {
  const sizes: number[] = [];
  const size = resolvedEventSize(event, sizes);
  const out = new Out(lengthDelimitedSize(size));
  out.byte(0x0a);
  writeResolvedEvent(out, event, size, sizes, 0);
  return out.buf;
}

/** WriteEventsCompleted's fields: a WriteResult with OperationResult's wire number. */
export type WriteReply = Omit<WriteResult, 'result'> & { result: number };

/**
 * WriteEventsCompleted, the answer to every append: protobufjs would build a writer, its operations and a Long
 * per position for each of them (a fifth of what the server allocates per single-event append).
 */
export function encodeWriteEventsCompleted(reply: WriteReply): Uint8Array {
  const messageLength = reply.message ? Buffer.byteLength(reply.message, 'utf8') : 0;
  const size =
    1 +
    varint32Size(reply.result) +
    (reply.message ? lengthDelimitedSize(messageLength) : 0) +
    int64FieldSize(reply.firstEventNumber) +
    int64FieldSize(reply.lastEventNumber) +
    int64FieldSize(reply.preparePosition) +
    int64FieldSize(reply.commitPosition) +
    (reply.currentVersion === undefined ? 0 : int64FieldSize(reply.currentVersion));
  const out = new Out(size);
  out.byte(0x08);
  out.varint32(reply.result);
  if (reply.message) out.string(0x12, reply.message, messageLength);
  out.int64(0x18, reply.firstEventNumber);
  out.int64(0x20, reply.lastEventNumber);
  out.int64(0x28, reply.preparePosition);
  out.int64(0x30, reply.commitPosition);
  if (reply.currentVersion !== undefined) out.int64(0x38, reply.currentVersion);
  return out.buf;
}
