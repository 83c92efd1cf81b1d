import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import type { CommittedBatch, EventStore, Principal, RecordedEvent } from '../store/types.ts';
import { matchesAllFilter, type AllFilter } from './all.ts';
import { requireOwner, type UiSessions } from '../../http/ui-api.ts';
import { LINK_EVENT_TYPE } from '../index.ts';
import { callerOf, pageFieldLimit, uiEvent, type EventLogUiDeps, type UiEvent } from './eventlog-context.ts';

export interface LiveTailLimits {
  /** Events held for one socket while it catches up; beyond this they are dropped and counted. */
  maxBuffered: number;
  /** Events per WebSocket message. */
  maxBatch: number;
  /** While the socket has this much unsent data, nothing more is queued on it. */
  highWaterBytes: number;
}

export const DEFAULT_LIVE_LIMITS: LiveTailLimits = { maxBuffered: 1000, maxBatch: 200, highWaterBytes: 1024 * 1024 };

/** What a live tail sends, one JSON object per WebSocket message. */
export type LiveMessage =
  | { type: 'subscribed'; lastEventNumber: number | null; lastCommitPosition: number }
  | { type: 'events'; events: UiEvent[] }
  | { type: 'skipped'; count: number }
  | { type: 'deleted'; streamId: string; hard: boolean };

/** WebSocket close code for "your credentials do not allow this stream". */
export const CLOSE_ACCESS_DENIED = 4403;

/**
 * A live tail for one socket. The store calls `onBatch` synchronously inside its commit path, so that
 * part only filters and keeps references in a bounded buffer; converting and sending happen later on a
 * macrotask. A slow or stalled page makes the tail drop (and count) events; it never makes a writer wait.
 */
export class LiveTail {
  private readonly socket: WebSocket;
  private readonly store: EventStore;
  private readonly caller: Principal;
  private readonly matches: (e: RecordedEvent) => boolean;
  private readonly matchesDeleted: (streamId: string) => boolean;
  private readonly withPosition: boolean;
  private readonly resolveLinks: boolean;
  private readonly limits: LiveTailLimits;
  private buffer: RecordedEvent[] = [];
  private deletions: { streamId: string; hard: boolean }[] = [];
  private skipped = 0;
  private scheduled: NodeJS.Immediate | NodeJS.Timeout | null = null;
  private closed = false;
  private unsubscribe: () => void;

  constructor(options: {
    socket: WebSocket;
    store: EventStore;
    caller: Principal;
    matches: (e: RecordedEvent) => boolean;
    matchesDeleted: (streamId: string) => boolean;
    withPosition: boolean;
    resolveLinks: boolean;
    limits: LiveTailLimits;
  }) {
    this.socket = options.socket;
    this.store = options.store;
    this.caller = options.caller;
    this.matches = options.matches;
    this.matchesDeleted = options.matchesDeleted;
    this.withPosition = options.withPosition;
    this.resolveLinks = options.resolveLinks;
    this.limits = options.limits;
    this.unsubscribe = this.store.onCommitted((batch) => this.onBatch(batch));
    this.socket.on('close', () => this.close());
    this.socket.on('error', () => this.close());
  }

  private onBatch(batch: CommittedBatch): void {
    if (this.closed) return;
    let added = false;
    for (const e of batch.events) {
      if (!this.matches(e)) continue;
      if (this.buffer.length >= this.limits.maxBuffered) this.skipped++;
      else this.buffer.push(e);
      added = true;
    }
    for (const d of batch.deleted) {
      if (this.matchesDeleted(d.streamId)) {
        this.deletions.push(d);
        added = true;
      }
    }
    if (added) this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (this.scheduled || this.closed) return;
    this.scheduled = delayMs === 0 ? setImmediate(() => this.flush()) : setTimeout(() => this.flush(), delayMs);
  }

  private send(message: LiveMessage): void {
    this.socket.send(JSON.stringify(message));
  }

  private flush(): void {
    this.scheduled = null;
    if (this.closed || this.socket.readyState !== this.socket.OPEN) return;
    if (this.socket.bufferedAmount > this.limits.highWaterBytes) {
      // The page is not reading; wait (events keep arriving into the bounded buffer, and overflow is counted).
      this.schedule(50);
      return;
    }
    if (this.skipped > 0) {
      this.send({ type: 'skipped', count: this.skipped });
      this.skipped = 0;
    }
    if (this.buffer.length) {
      const batch = this.buffer.splice(0, this.limits.maxBatch);
      const limit = pageFieldLimit(batch.length);
      const events: UiEvent[] = [];
      for (const rec of batch) {
        const entry = this.resolveLinks && rec.eventType === LINK_EVENT_TYPE ? { ...this.store.resolveLink(rec, this.caller), link: rec } : { event: rec };
        const ev = uiEvent(entry, limit, this.withPosition ? { commitPosition: rec.commitPosition, preparePosition: rec.preparePosition } : undefined);
        if (ev) events.push(ev);
      }
      this.send({ type: 'events', events });
    }
    for (const d of this.deletions.splice(0)) this.send({ type: 'deleted', streamId: d.streamId, hard: d.hard });
    if (this.buffer.length) this.schedule(0);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    if (this.scheduled) {
      clearTimeout(this.scheduled as NodeJS.Timeout);
      clearImmediate(this.scheduled as NodeJS.Immediate);
    }
    this.buffer = [];
  }
}

interface LiveQuery {
  stream?: string;
  hideSystem?: boolean;
  streamPrefix?: string;
  eventType?: string;
}

/**
 * `GET /eventlog/live` (WebSocket; the token comes as `?access_token=`): `?stream=X` tails one stream,
 * no `stream` tails `$all` with the same filters as the `$all` page.
 */
export function liveRoutes(app: FastifyInstance, sessions: UiSessions, deps: EventLogUiDeps, limits: LiveTailLimits = DEFAULT_LIVE_LIMITS): void {
  app.get<{ Querystring: LiveQuery }>(
    '/eventlog/live',
    {
      websocket: true,
      onRequest: requireOwner(sessions),
      schema: {
        querystring: {
          type: 'object',
          properties: {
            stream: { type: 'string', minLength: 1, maxLength: 2048 },
            hideSystem: { type: 'boolean', default: true },
            streamPrefix: { type: 'string', maxLength: 2048 },
            eventType: { type: 'string', maxLength: 1024 },
          },
        },
      },
    },
    (socket, req) => {
      const caller = callerOf(req, deps);
      const { store } = deps;
      const stream = req.query.stream && req.query.stream !== '$all' ? req.query.stream : undefined;
      if (!store.checkReadAccess(stream ?? '$all', caller)) {
        socket.close(CLOSE_ACCESS_DENIED, `Access to "${stream ?? '$all'}" is denied`);
        return;
      }
      const filter: AllFilter = { hideSystem: req.query.hideSystem ?? true, streamPrefix: req.query.streamPrefix || undefined, eventType: req.query.eventType || undefined };
      new LiveTail({
        socket,
        store,
        caller,
        matches: stream ? (e) => e.streamId === stream : (e) => matchesAllFilter(filter, e.streamId, e.eventType),
        matchesDeleted: stream ? (s) => s === stream : (s) => matchesAllFilter(filter, s, ''),
        withPosition: !stream,
        resolveLinks: Boolean(stream),
        limits,
      });
      const message: LiveMessage = { type: 'subscribed', lastEventNumber: stream ? store.lastEventNumber(stream) : null, lastCommitPosition: store.lastCommitPosition() };
      socket.send(JSON.stringify(message));
    },
  );
}
