import crypto from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ExpectedVersion, MAX_READ_COUNT, type EventStore, type Principal } from '../store/index.ts';
import { requireOwner, type UiSessions } from '../../http/index.ts';
import { callerOf } from './ui-principal.ts';
import { errorForResult, sendError, UiApiError } from './ui-errors.ts';
import { FULL_FIELD_BYTES, pageFieldLimit, uiEvent, type UiEvent } from './ui-payloads.ts';
import { type EventLogUiDeps } from './eventlog-context.ts';

export interface StreamPage {
  streamId: string;
  exists: boolean;
  /** Ascending by event number, whatever direction was read. */
  events: UiEvent[];
  lastEventNumber: number;
  hasOlder: boolean;
  hasNewer: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_EVENT_TYPE = 1024;

/**
 * One page of a stream by keyset: `from` is an event number (inclusive) and the direction says which way
 * to walk, so a page costs the same at event 0 and at event 1,000,000. Backward from -1 is the newest page.
 */
export function readStreamPage(
  store: EventStore,
  streamId: string,
  from: number,
  direction: 'forward' | 'backward',
  count: number,
  caller: Principal,
): StreamPage {
  const limit = pageFieldLimit(count);
  // Below a truncation point ($tb, $maxCount) nothing is readable: start a forward read where the readable events begin.
  if (direction === 'forward') from = Math.max(from, readableStart(store, streamId));
  const read =
    direction === 'forward'
      ? store.readStreamForward(streamId, from, count, true, caller)
      : store.readStreamBackward(streamId, from, count, true, caller);
  if (read.result === 'NoStream')
    return { streamId, exists: false, events: [], lastEventNumber: -1, hasOlder: false, hasNewer: false };
  const error = errorForResult(read.result, streamId, read.error);
  if (error) throw error;
  const events = read.events.map((e) => uiEvent(e, limit)).filter((e): e is UiEvent => e !== null);
  if (direction === 'backward') events.reverse();
  const last = read.lastEventNumber;
  let hasOlder: boolean;
  let hasNewer: boolean;
  if (events.length) {
    const firstOnPage = events[0].eventNumber;
    hasOlder =
      direction === 'backward' ? !read.isEndOfStream : probe(store, streamId, firstOnPage - 1, 'backward', caller);
    hasNewer = events[events.length - 1].eventNumber < last;
  } else if (direction === 'forward') {
    // Walked past the end: everything readable is older.
    hasOlder = probe(store, streamId, Math.min(from - 1, last), 'backward', caller);
    hasNewer = false;
  } else {
    // Walked below the readable minimum (truncated, expired) or the stream has nothing left.
    hasOlder = false;
    hasNewer = from >= 0 && from < last && probe(store, streamId, from + 1, 'forward', caller);
  }
  return { streamId, exists: true, events, lastEventNumber: last, hasOlder, hasNewer };
}

function readableStart(store: EventStore, streamId: string): number {
  const meta = store.getStreamMetadata(streamId);
  let start = meta.truncateBefore ?? 0;
  if (meta.maxCount !== undefined) start = Math.max(start, store.lastEventNumber(streamId) - meta.maxCount + 1);
  return start === Number.MAX_SAFE_INTEGER ? 0 : start;
}

/** One-event read to learn whether anything readable lies beyond a page edge (truncation, maxCount, maxAge). */
function probe(
  store: EventStore,
  streamId: string,
  from: number,
  direction: 'forward' | 'backward',
  caller: Principal,
): boolean {
  if (from < 0) return false;
  const r =
    direction === 'forward'
      ? store.readStreamForward(streamId, from, 1, false, caller)
      : store.readStreamBackward(streamId, from, 1, false, caller);
  return r.result === 'Success' && r.events.length > 0;
}

function neighbour(
  store: EventStore,
  streamId: string,
  from: number,
  direction: 'forward' | 'backward',
  caller: Principal,
): number | null {
  if (from < 0) return null;
  const r =
    direction === 'forward'
      ? store.readStreamForward(streamId, from, 1, false, caller)
      : store.readStreamBackward(streamId, from, 1, false, caller);
  const rec = r.result === 'Success' ? (r.events[0]?.link ?? r.events[0]?.event) : undefined;
  return rec ? rec.eventNumber : null;
}

function parseJsonField(name: string, text: string): void {
  try {
    JSON.parse(text);
  } catch (err) {
    throw new UiApiError(400, `${name} is not valid JSON: ${(err as Error).message}`);
  }
}

interface AppendBody {
  eventId?: string;
  eventType: string;
  data: string;
  metadata?: string;
  isJson?: boolean;
  expectedVersion?: number;
}

export type StreamPageQuery = { from?: number; direction?: 'forward' | 'backward'; count?: number };

/** Query of every keyset-paged stream listing (a stream's events, a group's parked messages). */
export const STREAM_PAGE_QUERY = {
  type: 'object',
  properties: {
    from: { type: 'integer', minimum: -1, default: -1 },
    direction: { type: 'string', enum: ['forward', 'backward'], default: 'backward' },
    count: { type: 'integer', minimum: 1, maximum: MAX_READ_COUNT, default: 20 },
  },
} as const;

/** One page of a stream as the signed-in owner may read it, from a validated STREAM_PAGE_QUERY. */
export function readStreamPageRequest(
  deps: EventLogUiDeps,
  streamId: string,
  query: StreamPageQuery,
  req: FastifyRequest,
): StreamPage {
  const { from = -1, direction = 'backward', count = 20 } = query;
  if (direction === 'forward' && from < 0) throw new UiApiError(400, 'A forward read starts at an event number ≥ 0');
  return readStreamPage(deps.store, streamId, from, direction, count, callerOf(req, deps));
}

/** A stream's events: keyset pages, one event with its neighbours, and appending an event. */
export function eventRoutes(app: FastifyInstance, sessions: UiSessions, deps: EventLogUiDeps): void {
  const auth = { onRequest: requireOwner(sessions) };

  app.get<{ Params: { stream: string }; Querystring: StreamPageQuery }>(
    '/eventlog/streams/:stream/events',
    {
      ...auth,
      schema: { querystring: STREAM_PAGE_QUERY },
    },
    async (req, reply) => {
      try {
        return readStreamPageRequest(deps, req.params.stream, req.query, req);
      } catch (err) {
        return sendError(reply, err);
      }
    },
  );

  app.get<{ Params: { stream: string; number: number } }>(
    '/eventlog/streams/:stream/events/:number',
    {
      ...auth,
      schema: {
        params: {
          type: 'object',
          properties: { stream: { type: 'string' }, number: { type: 'integer', minimum: -1 } },
        },
      },
    },
    async (req, reply) => {
      const { stream, number } = req.params;
      const caller = callerOf(req, deps);
      try {
        const read = deps.store.readEvent(stream, number, true, caller);
        const error = errorForResult(
          read.result,
          stream,
          read.result === 'NotFound'
            ? `Event ${number} is not in stream "${stream}" (never written, truncated or expired)`
            : read.error,
        );
        if (error) throw error;
        const event = read.event ? uiEvent(read.event, FULL_FIELD_BYTES) : null;
        if (!event) throw new UiApiError(404, `Event ${number} is not in stream "${stream}"`);
        return {
          event,
          previous: neighbour(deps.store, stream, event.eventNumber - 1, 'backward', caller),
          next: neighbour(deps.store, stream, event.eventNumber + 1, 'forward', caller),
        };
      } catch (err) {
        return sendError(reply, err);
      }
    },
  );

  app.post<{ Params: { stream: string }; Body: AppendBody }>(
    '/eventlog/streams/:stream/events',
    {
      ...auth,
      schema: {
        body: {
          type: 'object',
          required: ['eventType', 'data'],
          additionalProperties: false,
          properties: {
            eventId: { type: 'string' },
            eventType: { type: 'string', minLength: 1, maxLength: MAX_EVENT_TYPE },
            data: { type: 'string' },
            metadata: { type: 'string' },
            isJson: { type: 'boolean', default: true },
            expectedVersion: { type: 'integer', minimum: ExpectedVersion.StreamExists },
          },
        },
      },
    },
    async (req, reply) => {
      const stream = req.params.stream;
      const body = req.body;
      try {
        if (stream === '$all' || stream === '')
          throw new UiApiError(400, 'Events are added to a named stream, not to $all');
        const eventId = (body.eventId ?? crypto.randomUUID()).toLowerCase();
        if (!UUID.test(eventId)) throw new UiApiError(400, `Event id "${body.eventId}" is not a UUID`);
        if (!body.eventType.trim()) throw new UiApiError(400, 'Event type is empty');
        const isJson = body.isJson ?? true;
        if (isJson) parseJsonField('Data', body.data);
        const metadata = body.metadata ?? '';
        if (metadata.trim()) parseJsonField('Metadata', metadata);
        const result = await deps.store.appendToStream(
          stream,
          body.expectedVersion ?? ExpectedVersion.Any,
          [
            {
              eventId,
              eventType: body.eventType,
              isJson,
              data: Buffer.from(body.data, 'utf8'),
              metadata: Buffer.from(metadata, 'utf8'),
            },
          ],
          callerOf(req, deps),
        );
        const error = errorForResult(result.result, stream, result.message);
        if (error) throw error;
        return reply.code(201).send({
          streamId: stream,
          eventId,
          eventNumber: result.lastEventNumber,
          commitPosition: result.commitPosition,
          preparePosition: result.preparePosition,
        });
      } catch (err) {
        return sendError(reply, err);
      }
    },
  );
}
