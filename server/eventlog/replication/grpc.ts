/**
 * A replication side over the KurrentDB gRPC protocol (KurrentDB 20+, Homeport), through
 * @kurrent/kurrentdb-client. The client hands JSON data and metadata over parsed, so they are written back as
 * JSON.stringify gives them: the same JSON value, in compact form (see the README).
 */
import {
  ANY,
  BACKWARDS,
  END,
  FORWARDS,
  KurrentDBClient,
  START,
  type AllStreamRecordedEvent,
  type EventData,
  type ReadPosition,
} from '@kurrent/kurrentdb-client';
import { comparePositions } from './plan.ts';
import {
  ReplicationError,
  type LogPosition,
  type ReplicationSource,
  type ReplicationTarget,
  type SourceEvent,
  type StreamTail,
} from './types.ts';

export interface GrpcEndpointOptions {
  /** The client's connection string, credentials included. */
  connectionString: string;
  /** The same without credentials, for messages. */
  description: string;
}

const MAX_READ = 4096;
const USER_EVENT_SCAN = 10_000;
const EMPTY = new Uint8Array(0);

/** long.MaxValue, which JSON.parse turns into 9223372036854776000: `$tb` of a soft-deleted stream. */
const DELETED_TB = /("\$tb"\s*:\s*)9223372036854776000\b/;

/** Bytes again from what the client parsed (Buffers may come from the native addon's realm: no instanceof). */
function encode(value: unknown, eventType: string): Uint8Array {
  if (value === undefined || value === null) return EMPTY;
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return Buffer.from(
    eventType === '$metadata' ? text.replace(DELETED_TB, (_all, key) => `${key}9223372036854775807`) : text,
  );
}

function toSourceEvent(e: AllStreamRecordedEvent): SourceEvent {
  const position = e.position ?? { commit: 0n, prepare: 0n };
  return {
    streamId: e.streamId,
    eventNumber: e.revision,
    eventId: e.id,
    eventType: e.type,
    isJson: e.isJson,
    data: encode(e.data, e.type),
    metadata: encode(e.metadata, ''),
    created: e.created.getTime(),
    position: { commit: position.commit, prepare: position.prepare },
  };
}

function errorType(err: unknown): string {
  return (err as { type?: string }).type ?? '';
}

function decided(err: unknown, what: string): never {
  if (['access-denied', 'wrong-expected-version', 'stream-deleted', 'invalid-argument'].includes(errorType(err)))
    throw new ReplicationError(`${what}: ${(err as Error).message}`);
  throw err;
}

function open(options: GrpcEndpointOptions): KurrentDBClient {
  try {
    return KurrentDBClient.connectionString(options.connectionString);
  } catch (err) {
    throw new ReplicationError(`${options.description}: ${(err as Error).message}`);
  }
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

export async function openGrpcSource(options: GrpcEndpointOptions): Promise<ReplicationSource> {
  const client = open(options);
  const where = options.description;
  return {
    description: where,
    async read(after, maxCount) {
      const fromPosition: ReadPosition = after ? { commit: after.commit, prepare: after.prepare } : START;
      const resolved = await collect(
        client.readAll({ fromPosition, maxCount: Math.min(maxCount + 1, MAX_READ), direction: FORWARDS }),
      ).catch((err) => decided(err, `reading $all on ${where}`));
      const events = resolved.filter((r) => r.event).map((r) => toSourceEvent(r.event!));
      const fresh = after ? events.filter((e) => comparePositions(e.position, after) > 0) : events;
      return fresh.slice(0, maxCount);
    },
    async headPosition() {
      const [last] = await collect(client.readAll({ fromPosition: END, maxCount: 1, direction: BACKWARDS }));
      return last?.event?.position
        ? { commit: last.event.position.commit, prepare: last.event.position.prepare }
        : null;
    },
    async watch(onNew, onDrop) {
      const subscription = client.subscribeToAll({ fromPosition: END, resolveLinkTos: false });
      let stopped = false;
      subscription.on('data', () => onNew());
      subscription.on('error', (err) => {
        if (!stopped) onDrop(err);
      });
      subscription.on('end', () => {
        if (!stopped) onDrop(new Error(`the live subscription to ${where} ended`));
      });
      return {
        stop: () => {
          stopped = true;
          subscription.unsubscribe().catch(() => {});
        },
      };
    },
    close: () => client.dispose(),
  };
}

export async function openGrpcTarget(options: GrpcEndpointOptions): Promise<ReplicationTarget> {
  const client = open(options);
  const where = options.description;
  const tail = async (streamId: string, count: number) => {
    try {
      return {
        events: await collect(
          client.readStream(streamId, { direction: BACKWARDS, fromRevision: END, maxCount: count }),
        ),
        deleted: false,
      };
    } catch (err) {
      if (errorType(err) === 'stream-not-found') return { events: [], deleted: false };
      if (errorType(err) === 'stream-deleted') return { events: [], deleted: true };
      return decided(err, `reading ${streamId} on ${where}`);
    }
  };
  return {
    description: where,
    ordered: false,
    async write(write) {
      if (write.kind === 'tombstone') {
        await client.tombstoneStream(write.streamId, { expectedRevision: ANY }).catch((err) => {
          if (errorType(err) === 'stream-deleted') return;
          decided(err, `deleting ${write.streamId} on ${where}`);
        });
        return;
      }
      const events = write.events.map(toEventData);
      await client
        .appendToStream(write.streamId, events, { streamState: ANY })
        .catch((err) => decided(err, `appending to ${write.streamId} on ${where}`));
    },
    async streamTail(streamId, count): Promise<StreamTail> {
      const { events, deleted } = await tail(streamId, Math.min(count, MAX_READ));
      return { eventIds: new Set(events.map((e) => e.event?.id ?? '')), tombstoned: deleted };
    },
    async lastJson(streamId) {
      const { events } = await tail(streamId, 1);
      const last = events[0]?.event;
      return last?.isJson && typeof last.data === 'object' ? last.data : null;
    },
    async hasUserEvents() {
      const events = await collect(
        client.readAll({ fromPosition: END, maxCount: USER_EVENT_SCAN, direction: BACKWARDS }),
      ).catch((err) => decided(err, `reading $all on ${where}`));
      if (events.some((e) => e.event && !e.event.type.startsWith('$'))) return true;
      return events.length >= USER_EVENT_SCAN;
    },
    close: () => client.dispose(),
  };
}

/** The client's event for a source event: JSON goes through JSON.parse (the client stringifies it again). */
function toEventData(e: SourceEvent): EventData {
  // The client sends metadata as it is only when its constructor is Uint8Array itself (a Buffer it would stringify).
  const metadata =
    e.metadata.length > 0 ? new Uint8Array(e.metadata.buffer, e.metadata.byteOffset, e.metadata.byteLength) : undefined;
  if (e.isJson) {
    const data = parseJson(e.data);
    if (data !== undefined)
      return { id: e.eventId, type: e.eventType, contentType: 'application/json', data, metadata } as EventData;
    // Empty or malformed "JSON" cannot go through the client's JSON path: its bytes go as they are instead.
  }
  return {
    id: e.eventId,
    type: e.eventType,
    contentType: 'application/octet-stream',
    data: e.data,
    metadata,
  } as EventData;
}

/** JSON.parse keeping integers past 2^53 exact (as raw JSON), so JSON.stringify gives them back unchanged. */
function parseJson(data: Uint8Array): unknown {
  if (data.length === 0) return undefined;
  try {
    return JSON.parse(Buffer.from(data).toString('utf8'), keepBigIntegers);
  } catch {
    return undefined;
  }
}

function keepBigIntegers(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value === 'number' && !Number.isSafeInteger(value) && /^-?\d+$/.test(context?.source ?? ''))
    return (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON(context!.source!);
  return value;
}
