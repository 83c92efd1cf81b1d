import type { FastifyInstance } from 'fastify';
import {
  MAX_READ_COUNT,
  type EventFilter,
  type EventStore,
  type Position,
  type Principal,
  type ReadAllResult,
  type ResolvedEvent,
} from '../store/index.ts';
import { requireOwner, type UiSessions } from '../../http/index.ts';
import { callerOf } from './ui-principal.ts';
import { errorForResult, sendError, UiApiError } from './ui-errors.ts';
import { pageFieldLimit, uiEvent, type UiEvent } from './ui-payloads.ts';
import { type EventLogUiDeps } from './eventlog-context.ts';

export interface AllFilter {
  hideSystem: boolean;
  streamPrefix?: string;
  eventType?: string;
}

export interface AllCursor extends Position {
  /** Forward reads only: skip the event at exactly this position (it is already on screen). */
  exclusive: boolean;
}

export interface AllPage {
  /** Ascending by position, whatever direction was read. */
  events: UiEvent[];
  /** Read backward from here for the previous (older) page. */
  older: Position | null;
  /** Read forward from here for the next (newer) page. */
  newer: AllCursor | null;
  hasOlder: boolean;
  hasNewer: boolean;
  /** The scan stopped at its bound before the page filled (a sparse filter); paging on continues the search. */
  searchLimited: boolean;
}

/** Events one request may examine with a filter: bounded, so a sparse filter never blocks the event loop for long. */
export const ALL_SCAN_BUDGET = 8192;

const END: Position = { commitPosition: -1, preparePosition: -1 };

export function comparePositions(a: Position, b: Position): number {
  return a.commitPosition - b.commitPosition || a.preparePosition - b.preparePosition;
}

/** The store filter for the primary criterion; the others are applied to what it returns. */
function storeFilter(f: AllFilter): EventFilter | null {
  if (f.streamPrefix) return { context: 'StreamId', type: 'Prefix', data: [f.streamPrefix] };
  if (f.eventType) return { context: 'EventType', type: 'Prefix', data: [f.eventType] };
  // EventStoreDB's "exclude system events" filter.
  if (f.hideSystem) return { context: 'EventType', type: 'Regex', data: ['^[^$]'] };
  return null;
}

/** Does an event pass the whole filter? (The store applied only the primary criterion.) */
export function matchesAllFilter(f: AllFilter, streamId: string, eventType: string): boolean {
  if (f.streamPrefix && !streamId.startsWith(f.streamPrefix)) return false;
  if (f.eventType && !eventType.startsWith(f.eventType)) return false;
  if (f.hideSystem && eventType.startsWith('$')) return false;
  if (f.hideSystem && streamId.startsWith('$') && !f.streamPrefix?.startsWith('$')) return false;
  return true;
}

function isFiltered(f: AllFilter): boolean {
  return Boolean(f.hideSystem || f.streamPrefix || f.eventType);
}

function positionOf(e: ResolvedEvent): Position {
  return { commitPosition: e.commitPosition, preparePosition: e.preparePosition };
}

function recordOf(e: ResolvedEvent) {
  return e.link ?? e.event;
}

interface Scan {
  entries: ResolvedEvent[];
  /** Where the scan stopped, to continue in the same direction. */
  stop: Position;
  atEnd: boolean;
  limited: boolean;
}

function checkRead(r: ReadAllResult): void {
  const error = errorForResult(r.result, '$all', r.error);
  if (error) throw error;
}

/** Collects up to `count` matching events walking from `from`; examines at most `budget` events when filtered. */
function scan(
  store: EventStore,
  from: AllCursor,
  direction: 'forward' | 'backward',
  count: number,
  f: AllFilter,
  caller: Principal,
  budget: number,
): Scan {
  const entries: ResolvedEvent[] = [];
  const skipCursor = direction === 'forward' && from.exclusive;
  const accept = (e: ResolvedEvent) => {
    if (skipCursor && comparePositions(positionOf(e), from) <= 0) return false;
    const rec = recordOf(e);
    return rec !== undefined && matchesAllFilter(f, rec.streamId, rec.eventType);
  };
  let pos: Position = { commitPosition: from.commitPosition, preparePosition: from.preparePosition };
  if (!isFiltered(f)) {
    const want = Math.min(MAX_READ_COUNT, count + (skipCursor ? 1 : 0));
    const r =
      direction === 'forward'
        ? store.readAllForward(pos, want, false, caller)
        : store.readAllBackward(pos, want, false, caller);
    checkRead(r);
    for (const e of r.events) if (entries.length < count && accept(e)) entries.push(e);
    return { entries, stop: r.nextPosition, atEnd: r.events.length < want, limited: false };
  }
  const filter = storeFilter(f);
  let examined = 0;
  let atEnd = false;
  while (entries.length < count && examined < budget) {
    const window = Math.min(MAX_READ_COUNT, budget - examined);
    const want = Math.min(window, count - entries.length + (skipCursor && examined === 0 ? 1 : 0));
    const r =
      direction === 'forward'
        ? store.filteredReadAllForward(pos, want, window, filter, false, caller)
        : store.filteredReadAllBackward(pos, want, window, filter, false, caller);
    checkRead(r);
    for (const e of r.events) if (entries.length < count && accept(e)) entries.push(e);
    examined += window;
    pos = r.nextPosition;
    if (r.isEndOfStream) {
      atEnd = true;
      break;
    }
  }
  return { entries, stop: pos, atEnd, limited: !atEnd && entries.length < count };
}

/** One bounded look past a page edge. Unknown (a sparse filter found nothing within the bound) counts as "maybe more". */
function more(
  store: EventStore,
  from: AllCursor,
  direction: 'forward' | 'backward',
  f: AllFilter,
  caller: Principal,
): boolean {
  const s = scan(store, from, direction, 1, f, caller, MAX_READ_COUNT);
  return s.entries.length > 0 || s.limited;
}

/**
 * A page of `$all` by position (keyset): backward from (-1,-1) is the newest page, forward from (0,0) the oldest.
 * Links are shown as links (with their target named), as `$all` holds them.
 */
export function readAllPage(
  store: EventStore,
  from: AllCursor,
  direction: 'forward' | 'backward',
  count: number,
  f: AllFilter,
  caller: Principal,
): AllPage {
  const s = scan(store, from, direction, count, f, caller, ALL_SCAN_BUDGET);
  const limit = pageFieldLimit(count);
  const ordered = direction === 'backward' ? [...s.entries].reverse() : s.entries;
  const events = ordered.map((e) => uiEvent(e, limit, positionOf(e))).filter((e): e is UiEvent => e !== null);
  let older: Position | null;
  let newer: AllCursor | null;
  if (ordered.length) {
    older = positionOf(ordered[0]);
    newer = { ...positionOf(ordered[ordered.length - 1]), exclusive: true };
  } else if (direction === 'forward') {
    older =
      from.commitPosition < 0 ? null : { commitPosition: from.commitPosition, preparePosition: from.preparePosition };
    newer = { ...s.stop, exclusive: false };
  } else {
    older = s.stop;
    newer =
      from.commitPosition < 0
        ? null
        : { commitPosition: from.commitPosition, preparePosition: from.preparePosition, exclusive: false };
  }
  // The edge the read ran into is known; the other one costs one bounded look.
  const lookOlder = () => older !== null && more(store, { ...older, exclusive: false }, 'backward', f, caller);
  const lookNewer = () => newer !== null && more(store, newer, 'forward', f, caller);
  const hasOlder = direction === 'backward' && s.atEnd ? false : lookOlder();
  const hasNewer = direction === 'forward' && s.atEnd ? false : lookNewer();
  return { events, older, newer, hasOlder, hasNewer, searchLimited: s.limited };
}

function parseCursor(
  commit: number | undefined,
  prepare: number | undefined,
  exclusive: boolean | undefined,
  direction: 'forward' | 'backward',
): AllCursor {
  if (commit === undefined)
    return direction === 'forward'
      ? { commitPosition: 0, preparePosition: 0, exclusive: false }
      : { ...END, exclusive: false };
  const p = prepare ?? commit;
  if (commit < -1 || p < -1 || (commit === -1) !== (p === -1))
    throw new UiApiError(400, 'A position is two numbers ≥ 0, or -1,-1 for the end of the log');
  if (commit === -1 && direction === 'forward') throw new UiApiError(400, 'A forward read starts at a position ≥ 0');
  return { commitPosition: commit, preparePosition: p, exclusive: exclusive ?? false };
}

/** The global log (`$all`): positions both ways, system events hidden by default, stream-prefix and event-type filters. */
export function allRoutes(app: FastifyInstance, sessions: UiSessions, deps: EventLogUiDeps): void {
  app.get<{
    Querystring: {
      commit?: number;
      prepare?: number;
      exclusive?: boolean;
      direction?: 'forward' | 'backward';
      count?: number;
      hideSystem?: boolean;
      streamPrefix?: string;
      eventType?: string;
    };
  }>(
    '/eventlog/all',
    {
      onRequest: requireOwner(sessions),
      schema: {
        querystring: {
          type: 'object',
          properties: {
            commit: { type: 'integer', minimum: -1 },
            prepare: { type: 'integer', minimum: -1 },
            exclusive: { type: 'boolean' },
            direction: { type: 'string', enum: ['forward', 'backward'], default: 'backward' },
            count: { type: 'integer', minimum: 1, maximum: MAX_READ_COUNT, default: 20 },
            hideSystem: { type: 'boolean', default: true },
            streamPrefix: { type: 'string', maxLength: 2048 },
            eventType: { type: 'string', maxLength: 1024 },
          },
        },
      },
    },
    async (req, reply) => {
      const q = req.query;
      const direction = q.direction ?? 'backward';
      try {
        const from = parseCursor(q.commit, q.prepare, q.exclusive, direction);
        const filter: AllFilter = {
          hideSystem: q.hideSystem ?? true,
          streamPrefix: q.streamPrefix || undefined,
          eventType: q.eventType || undefined,
        };
        return readAllPage(deps.store, from, direction, q.count ?? 20, filter, callerOf(req, deps));
      } catch (err) {
        return sendError(reply, err);
      }
    },
  );
}
