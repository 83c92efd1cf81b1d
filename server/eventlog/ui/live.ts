import type { FastifyInstance } from 'fastify';
import type { WebSocket } from 'ws';
import { randomUUID } from 'node:crypto';
import type { Caller, CommittedBatch, EventStore, RecordedEvent, ResolvedEvent } from '../store/index.ts';
import type {
  DropReason,
  SubscriberInfo,
  VolatileSubscribeRequest,
  VolatileSubscribeResult,
} from '../subscriptions/index.ts';
import { matchesAllFilter, type AllFilter } from './all.ts';
import { requireOwner, type UiSessions } from '../../http/index.ts';
import { callerOf } from './ui-principal.ts';
import { pageFieldLimit, uiEvent, type UiEvent } from './ui-payloads.ts';
import { type EventLogUiDeps } from './eventlog-context.ts';

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

/** How a live tail subscribes: the volatile subscription engine's own entry point. */
export type LiveSubscribe = (request: VolatileSubscribeRequest) => VolatileSubscribeResult;

/**
 * A live tail for one socket: a volatile subscription like any TCP client's (it shows in the subscription
 * monitor, and the engine ends it when an ACL change takes the owner's access away). The engine hands events
 * over synchronously in the commit path, so that part only filters and keeps references in a bounded buffer;
 * converting and sending happen later on a macrotask. A slow or stalled page makes the tail drop (and count)
 * events; it never makes a writer wait. Stream deletions come from the store's commit feed.
 */
export class LiveTail {
  private readonly socket: WebSocket;
  private readonly matches: (e: RecordedEvent) => boolean;
  private readonly matchesDeleted: (streamId: string) => boolean;
  private readonly withPosition: boolean;
  private readonly limits: LiveTailLimits;
  private buffer: ResolvedEvent[] = [];
  private deletions: { streamId: string; hard: boolean }[] = [];
  private skipped = 0;
  private scheduled: NodeJS.Immediate | NodeJS.Timeout | null = null;
  private closed = false;
  private readonly stopDeletions: () => void;
  private subscription: { close(): void } | null = null;
  /** Where the live feed starts (what the page's catch-up read must reach). */
  readonly confirmation: { lastEventNumber: number | null; lastCommitPosition: number } | null;

  constructor(options: {
    socket: WebSocket;
    store: EventStore;
    subscribe: LiveSubscribe;
    caller: Caller;
    subscriber: SubscriberInfo;
    streamId: string;
    matches: (e: RecordedEvent) => boolean;
    matchesDeleted: (streamId: string) => boolean;
    withPosition: boolean;
    resolveLinks: boolean;
    limits: LiveTailLimits;
  }) {
    this.socket = options.socket;
    this.matches = options.matches;
    this.matchesDeleted = options.matchesDeleted;
    this.withPosition = options.withPosition;
    this.limits = options.limits;
    this.stopDeletions = options.store.onCommitted((batch) => this.onDeletions(batch));
    const result = options.subscribe({
      streamId: options.streamId,
      resolveLinkTos: options.resolveLinks,
      caller: options.caller,
      subscriber: options.subscriber,
      sink: {
        eventAppeared: (event) => {
          this.onEvent(event);
          return true;
        },
        checkpointReached: () => true,
        dropped: (reason) => this.onDropped(reason),
      },
    });
    if (!result.ok) {
      this.confirmation = null;
      this.onDropped(result.reason);
      return;
    }
    this.subscription = result.subscription;
    this.confirmation = result.confirmation;
    this.socket.on('close', () => this.close());
    this.socket.on('error', () => this.close());
  }

  private onEvent(resolved: ResolvedEvent): void {
    if (this.closed) return;
    // The record as written (a link, for a resolved link), for the tail's own filters.
    const original = resolved.link ?? resolved.event;
    if (!original || !this.matches(original)) return;
    if (this.buffer.length >= this.limits.maxBuffered) this.skipped++;
    else this.buffer.push(resolved);
    this.schedule(0);
  }

  private onDeletions(batch: CommittedBatch): void {
    if (this.closed) return;
    let added = false;
    for (const d of batch.deleted) {
      if (this.matchesDeleted(d.streamId)) {
        this.deletions.push(d);
        added = true;
      }
    }
    if (added) this.schedule(0);
  }

  /** The engine ended the subscription: access withdrawn, or the server going away (a deleted stream just stays quiet). */
  private onDropped(reason: DropReason): void {
    if (reason === 'StreamDeleted') return;
    const code = reason === 'AccessDenied' ? CLOSE_ACCESS_DENIED : 1001;
    this.close();
    if (this.socket.readyState === this.socket.OPEN || this.socket.readyState === this.socket.CONNECTING)
      this.socket.close(code, reason === 'AccessDenied' ? 'Access was withdrawn' : reason);
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
      for (const resolved of batch) {
        // The position the event has in $all (ResolvedEvent carries it).
        const ev = uiEvent(
          resolved,
          limit,
          this.withPosition
            ? { commitPosition: resolved.commitPosition, preparePosition: resolved.preparePosition }
            : undefined,
        );
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
    this.stopDeletions();
    this.subscription?.close();
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
export function liveRoutes(
  app: FastifyInstance,
  sessions: UiSessions,
  deps: EventLogUiDeps,
  limits: LiveTailLimits = DEFAULT_LIVE_LIMITS,
): void {
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
      const filter: AllFilter = {
        hideSystem: req.query.hideSystem ?? true,
        streamPrefix: req.query.streamPrefix || undefined,
        eventType: req.query.eventType || undefined,
      };
      const subscribe = deps.subscribeLive;
      if (!subscribe) {
        socket.close(1013, 'The subscription service is not running yet');
        return;
      }
      const tail = new LiveTail({
        socket,
        store,
        subscribe,
        caller,
        subscriber: {
          connectionId: `ui-live-${randomUUID()}`,
          connectionName: 'Homeport UI (live tail)',
          remoteAddress: `${req.ip}:${req.socket.remotePort ?? 0}`,
          caller,
        },
        streamId: stream ?? '$all',
        matches: stream ? (e) => e.streamId === stream : (e) => matchesAllFilter(filter, e.streamId, e.eventType),
        matchesDeleted: stream ? (s) => s === stream : (s) => matchesAllFilter(filter, s, ''),
        withPosition: !stream,
        resolveLinks: Boolean(stream),
        limits,
      });
      if (!tail.confirmation) return;
      const message: LiveMessage = {
        type: 'subscribed',
        lastEventNumber: tail.confirmation.lastEventNumber,
        lastCommitPosition: tail.confirmation.lastCommitPosition,
      };
      socket.send(JSON.stringify(message));
    },
  );
}
