import {
  bytesToUuid,
  EVENT_NUMBER_DELETED,
  type EventFilter,
  type NewEvent,
  type Position,
  type RecordedEvent,
  type ResolvedEvent,
  type ResolvedIndexedEvent,
} from '../store/index.ts';
import { GUID_BYTES, guidBytesToTextOrder, guidStringToBytes } from './guid.ts';
import type {
  EventRecordMessage,
  FilterMessage,
  Int64,
  NewEventMessage,
  ResolvedEventMessage,
  ResolvedIndexedEventMessage,
} from './messages.ts';

/**
 * Mapping between the store's types and the wire messages: GUID byte order, int64 values
 * (long.MaxValue ⇄ EVENT_NUMBER_DELETED), content types and .NET timestamps.
 */

/** A request the protocol layer refuses as malformed: answered with BadRequest for its correlation id. */
export class BadRequestError extends Error {
  readonly code = 'HOMEPORT_TCP_BAD_REQUEST';
}

const TWO_POW_32 = 4294967296;
/** long.MaxValue (9223372036854775807) as protobufjs long bits. */
export const INT64_MAX: Int64 = { low: -1, high: 0x7fffffff, unsigned: false };

/**
 * A wire int64 as a JS number. Values beyond ±2^53 are clamped to ±Number.MAX_SAFE_INTEGER, so
 * long.MaxValue (a deleted stream's number) becomes EVENT_NUMBER_DELETED.
 */
export function int64ToNumber(value: Int64 | null | undefined): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === 'number') return clampSafe(value);
  const high = value.high | 0;
  // Outside ±2^53: the high word alone says so.
  if (high > 0x1fffff) return Number.MAX_SAFE_INTEGER;
  if (high < -0x200000) return -Number.MAX_SAFE_INTEGER;
  return clampSafe(high * TWO_POW_32 + (value.low >>> 0));
}

function clampSafe(n: number): number {
  if (n > Number.MAX_SAFE_INTEGER) return Number.MAX_SAFE_INTEGER;
  if (n < -Number.MAX_SAFE_INTEGER) return -Number.MAX_SAFE_INTEGER;
  return n;
}

/** A store event number / version for the wire: EVENT_NUMBER_DELETED goes out as long.MaxValue. */
export function eventNumberToWire(n: number): Int64 {
  return n >= EVENT_NUMBER_DELETED ? INT64_MAX : n;
}

// .NET DateTime: ticks of 100 ns since 0001-01-01; ToBinary() of a UTC value also sets bit 62 (Kind = Utc).
const TICKS_AT_UNIX_EPOCH = 621_355_968_000_000_000n;
const KIND_UTC = 1n << 62n;
let lastCreatedMs = Number.NaN;
let lastCreatedTicks: Int64 = 0;

/** `DateTime.ToBinary()` of a UTC instant given in unix milliseconds. */
export function dotNetBinaryDate(unixMs: number): Int64 {
  if (unixMs === lastCreatedMs) return lastCreatedTicks;
  const value = (BigInt(Math.trunc(unixMs)) * 10_000n + TICKS_AT_UNIX_EPOCH) | KIND_UTC;
  const bits: Int64 = { low: Number(value & 0xffffffffn) | 0, high: Number(value >> 32n) | 0, unsigned: false };
  lastCreatedMs = unixMs;
  lastCreatedTicks = bits;
  return bits;
}

/** Inverse of dotNetBinaryDate, for tests and tools. */
export function unixMsFromDotNetBinary(value: Int64): number {
  const big = typeof value === 'number' ? BigInt(value) : (BigInt(value.high | 0) << 32n) | BigInt(value.low >>> 0);
  const ticks = big & ((1n << 62n) - 1n);
  return Number((ticks - TICKS_AT_UNIX_EPOCH) / 10_000n);
}

/** Content type 1 marks JSON; the server keeps one flag per event and reports it for data and metadata. */
const CONTENT_TYPE_JSON = 1;

export function newEventFromWire(event: NewEventMessage): NewEvent {
  if (!event.eventId || event.eventId.length !== GUID_BYTES) {
    throw new BadRequestError(`event_id must be ${GUID_BYTES} bytes, got ${event.eventId?.length ?? 0}`);
  }
  // The store's bytes straight from the wire's, and the text from them (one flat string): no text parsed back.
  const eventIdBytes = guidBytesToTextOrder(event.eventId);
  return {
    eventId: bytesToUuid(eventIdBytes),
    eventIdBytes,
    eventType: event.eventType,
    isJson: event.dataContentType === CONTENT_TYPE_JSON,
    data: event.data instanceof Uint8Array ? event.data : new Uint8Array(0),
    // protobufjs gives an absent optional bytes field as its (plain array) default.
    metadata: event.metadata instanceof Uint8Array ? event.metadata : new Uint8Array(0),
  };
}

const EMPTY = new Uint8Array(0);

export function eventRecordToWire(record: RecordedEvent): EventRecordMessage {
  const contentType = record.isJson ? CONTENT_TYPE_JSON : 0;
  return {
    eventStreamId: record.streamId,
    eventNumber: eventNumberToWire(record.eventNumber),
    eventId: guidStringToBytes(record.eventId),
    eventType: record.eventType,
    dataContentType: contentType,
    metadataContentType: contentType,
    data: record.data ?? EMPTY,
    metadata: record.metadata ?? EMPTY,
    created: dotNetBinaryDate(record.created),
    createdEpoch: record.created,
  };
}

export function resolvedIndexedEventToWire(entry: ResolvedIndexedEvent): ResolvedIndexedEventMessage {
  const out: ResolvedIndexedEventMessage = {};
  if (entry.event) out.event = eventRecordToWire(entry.event);
  if (entry.link) out.link = eventRecordToWire(entry.link);
  return out;
}

export function resolvedEventToWire(entry: ResolvedEvent): ResolvedEventMessage {
  const out: ResolvedEventMessage = { commitPosition: entry.commitPosition, preparePosition: entry.preparePosition };
  if (entry.event) out.event = eventRecordToWire(entry.event);
  if (entry.link) out.link = eventRecordToWire(entry.link);
  return out;
}

export function positionFromWire(commit: Int64, prepare: Int64): Position {
  return { commitPosition: int64ToNumber(commit), preparePosition: int64ToNumber(prepare) };
}

const FILTER_CONTEXTS = ['StreamId', 'EventType'] as const;
const FILTER_TYPES = ['Regex', 'Prefix'] as const;

/** A wire filter as the store's EventFilter; an empty data list means "no filter" (null). */
export function filterFromWire(filter: FilterMessage | null | undefined): EventFilter | null {
  if (!filter || !filter.data || filter.data.length === 0) return null;
  const context = FILTER_CONTEXTS[filter.context];
  const type = FILTER_TYPES[filter.type];
  if (!context) throw new BadRequestError(`unknown filter context ${filter.context}`);
  if (!type) throw new BadRequestError(`unknown filter type ${filter.type}`);
  return { context, type, data: [...filter.data] };
}
