import type { Logger } from '../../logger.ts';
import {
  LINK_EVENT_TYPE,
  EVENT_NUMBER_DELETED,
  type Caller,
  type CommittedBatch,
  type EventStore,
  type RecordedEvent,
  type ResolvedEvent,
} from '../store/index.ts';
import { compileEventFilter, describeFilter, InvalidFilterError, type EventPredicate } from './filter.ts';
import type {
  DropReason,
  SubscriberInfo,
  VolatileSink,
  VolatileSubscribeRequest,
  VolatileSubscribeResult,
  VolatileSubscriptionHandle,
  VolatileSubscriptionInfo,
} from './types.ts';

const ALL = '';
const SETTINGS_STREAM = '$settings';

/**
 * One live subscription, which is also the handle its transport holds. A class with plain fields and an id
 * from a counter: thousands may be open, and a closure pair plus a random UUID per subscription tripled its size.
 */
class VolatileSubscription implements VolatileSubscriptionHandle {
  readonly id: string;
  readonly streamId: string;
  readonly resolveLinkTos: boolean;
  readonly caller: Caller;
  readonly subscriber: SubscriberInfo;
  readonly sink: VolatileSink;
  readonly filter: EventPredicate | null;
  readonly filterText: string | null;
  /** null = not a filtered subscription; negative = never send checkpoints. */
  readonly checkpointInterval: number | null;
  seenSinceCheckpoint = 0;
  /** Events at or before the confirmed point were already visible to the client's reads. */
  readonly lastCommitPosition: number;
  readonly lastEventNumber: number;
  readonly subscribedAt: number;
  eventsDelivered = 0;
  checkpointsSent = 0;
  private readonly engine: VolatileSubscriptions;

  constructor(
    engine: VolatileSubscriptions,
    id: string,
    streamId: string,
    request: VolatileSubscribeRequest,
    filter: EventPredicate | null,
    confirmed: { lastCommitPosition: number; lastEventNumber: number; at: number },
  ) {
    this.engine = engine;
    this.id = id;
    this.streamId = streamId;
    this.resolveLinkTos = request.resolveLinkTos;
    this.caller = request.caller;
    this.subscriber = request.subscriber;
    this.sink = request.sink;
    this.filter = filter;
    this.filterText = describeFilter(request.filter);
    const filtered = request.filter !== undefined || request.checkpointInterval !== undefined;
    this.checkpointInterval = filtered ? (request.checkpointInterval ?? -1) : null;
    this.lastCommitPosition = confirmed.lastCommitPosition;
    this.lastEventNumber = confirmed.lastEventNumber;
    this.subscribedAt = confirmed.at;
  }

  unsubscribe(): void {
    this.engine.drop(this, 'Unsubscribed');
  }

  close(): void {
    this.engine.remove(this);
  }
}

function callerKey(caller: Caller): string {
  return caller ? `u:${caller.name}` : 'anon';
}

/**
 * Live ("volatile") subscriptions to one stream or to `$all`, optionally filtered. Fed synchronously
 * from the store's commit notifications, in commit order; each subscriber only sees events committed
 * after the position it was confirmed at, so a client's catch-up read plus this live feed has no gap
 * and no overlap.
 */
export class VolatileSubscriptions {
  private readonly store: EventStore;
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly byStream = new Map<string, Set<VolatileSubscription>>();
  private readonly byId = new Map<string, VolatileSubscription>();
  private readonly stopListening: () => void;
  private closed = false;
  private sequence = 0;
  /** Events delivered to every volatile subscription since start, ended ones included (the charts' deliveries). */
  deliveredTotal = 0;

  constructor(store: EventStore, options: { logger: Logger; now?: () => number }) {
    this.store = store;
    this.logger = options.logger;
    this.now = options.now ?? Date.now;
    this.stopListening = store.onCommitted((batch) => this.onCommitted(batch));
  }

  get count(): number {
    return this.byId.size;
  }

  subscribe(request: VolatileSubscribeRequest): VolatileSubscribeResult {
    if (this.closed) return { ok: false, reason: 'ServerShutdown' };
    const streamId = request.streamId === '$all' ? ALL : request.streamId;
    if (!this.store.checkReadAccess(streamId, request.caller)) return { ok: false, reason: 'AccessDenied' };

    let filter: EventPredicate | null = null;
    if (request.filter && request.filter.data.length > 0) {
      try {
        filter = compileEventFilter(request.filter);
      } catch (err) {
        if (err instanceof InvalidFilterError) return { ok: false, reason: 'NotFound', invalidRequest: err.message };
        throw err;
      }
    }

    const lastEventNumber = streamId === ALL ? null : this.store.lastEventNumber(streamId);
    if (lastEventNumber === EVENT_NUMBER_DELETED) return { ok: false, reason: 'StreamDeleted' };
    const lastCommitPosition = this.store.lastCommitPosition();
    const sub = new VolatileSubscription(this, `v${++this.sequence}`, streamId, request, filter, {
      lastCommitPosition,
      lastEventNumber: lastEventNumber ?? -1,
      at: this.now(),
    });
    let topic = this.byStream.get(streamId);
    if (!topic) {
      topic = new Set();
      this.byStream.set(streamId, topic);
    }
    topic.add(sub);
    this.byId.set(sub.id, sub);
    return { ok: true, confirmation: { lastCommitPosition, lastEventNumber }, subscription: sub };
  }

  list(): VolatileSubscriptionInfo[] {
    return [...this.byId.values()].map((s) => ({
      id: s.id,
      streamId: s.streamId,
      filter: s.filterText,
      resolveLinkTos: s.resolveLinkTos,
      checkpointInterval: s.checkpointInterval,
      connectionId: s.subscriber.connectionId,
      connectionName: s.subscriber.connectionName,
      remoteAddress: s.subscriber.remoteAddress,
      user: s.caller?.name ?? null,
      subscribedAt: s.subscribedAt,
      eventsDelivered: s.eventsDelivered,
      checkpointsSent: s.checkpointsSent,
    }));
  }

  /** Stops listening and tells every subscriber the server is going away. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.stopListening();
    for (const sub of [...this.byId.values()]) this.drop(sub, 'ServerShutdown');
  }

  /** Forgets a subscription without telling it (its connection is gone). */
  remove(sub: VolatileSubscription): boolean {
    if (!this.byId.delete(sub.id)) return false;
    const topic = this.byStream.get(sub.streamId);
    if (topic) {
      topic.delete(sub);
      if (topic.size === 0) this.byStream.delete(sub.streamId);
    }
    return true;
  }

  /** Forgets a subscription and tells its sink why. */
  drop(sub: VolatileSubscription, reason: DropReason): void {
    if (!this.remove(sub)) return;
    try {
      sub.sink.dropped(reason);
    } catch (err) {
      this.logger.warn({ err, subscription: sub.id }, 'subscription drop notification failed');
    }
  }

  private onCommitted(batch: CommittedBatch): void {
    if (this.byId.size === 0) return;
    for (const event of batch.events) {
      const all = this.byStream.get(ALL);
      const own = this.byStream.get(event.streamId);
      if (!all && !own) continue;
      const resolved = new ResolutionCache(this.store, event);
      if (all) for (const sub of all) this.deliver(sub, event, resolved);
      if (own) for (const sub of own) this.deliver(sub, event, resolved);
    }
    for (const event of batch.events) this.recheckAccess(event.streamId);
    for (const deleted of batch.deleted) {
      if (!deleted.hard) continue; // a soft-deleted stream can be written again; its subscribers keep listening
      const topic = this.byStream.get(deleted.streamId);
      if (topic) for (const sub of [...topic]) this.drop(sub, 'StreamDeleted');
    }
  }

  private deliver(sub: VolatileSubscription, event: RecordedEvent, resolved: ResolutionCache): void {
    if (event.commitPosition <= sub.lastCommitPosition) return;
    if (sub.streamId !== ALL && event.eventNumber <= sub.lastEventNumber) return;
    try {
      const message = sub.resolveLinkTos ? resolved.resolvedFor(sub.caller) : resolved.unresolved();
      if (!sub.filter || sub.filter(event)) {
        if (!sub.sink.eventAppeared(message)) return this.drop(sub, 'SlowSubscriber');
        sub.eventsDelivered++;
        this.deliveredTotal++;
      }
      if (sub.checkpointInterval !== null && sub.checkpointInterval >= 0) {
        sub.seenSinceCheckpoint++;
        if (sub.seenSinceCheckpoint >= sub.checkpointInterval) {
          sub.seenSinceCheckpoint = 0;
          // The position of an event the subscriber has now seen: catch-up clients resume *after* it.
          const position = { commitPosition: message.commitPosition, preparePosition: message.preparePosition };
          if (!sub.sink.checkpointReached(position)) return this.drop(sub, 'SlowSubscriber');
          sub.checkpointsSent++;
        }
      }
    } catch (err) {
      // A misbehaving transport must not break the commit path for everybody else.
      this.logger.error({ err, subscription: sub.id }, 'volatile subscription delivery failed; dropping it');
      this.drop(sub, 'Unsubscribed');
    }
  }

  /** Metadata or default-ACL changes can revoke read access of live subscribers. */
  private recheckAccess(streamId: string): void {
    let targets: Iterable<VolatileSubscription> | undefined;
    if (streamId === SETTINGS_STREAM) targets = [...this.byId.values()];
    else if (streamId.startsWith('$$')) {
      const original = streamId.slice(2);
      const topic = this.byStream.get(original === '$all' ? ALL : original);
      if (topic) targets = [...topic];
    }
    if (!targets) return;
    for (const sub of targets) {
      if (!this.store.checkReadAccess(sub.streamId, sub.caller)) this.drop(sub, 'AccessDenied');
    }
  }
}

/** Builds each form of one committed event at most once, shared by all its subscribers. */
class ResolutionCache {
  private readonly store: EventStore;
  private readonly event: RecordedEvent;
  private plain: ResolvedEvent | undefined;
  private resolvedByCaller: Map<string, ResolvedEvent> | undefined;

  constructor(store: EventStore, event: RecordedEvent) {
    this.store = store;
    this.event = event;
  }

  unresolved(): ResolvedEvent {
    this.plain ??= {
      event: this.event,
      commitPosition: this.event.commitPosition,
      preparePosition: this.event.preparePosition,
    };
    return this.plain;
  }

  resolvedFor(caller: Caller): ResolvedEvent {
    if (this.event.eventType !== LINK_EVENT_TYPE) return this.unresolved();
    this.resolvedByCaller ??= new Map();
    const key = callerKey(caller);
    let resolved = this.resolvedByCaller.get(key);
    if (!resolved) {
      const target = this.store.resolveLink(this.event, caller);
      if (target.event === this.event && !target.link)
        resolved = this.unresolved(); // not a parseable link
      else {
        // A link's `$all` position is the link's own, whatever it points at.
        resolved = {
          event: target.event,
          link: target.link ?? this.event,
          commitPosition: this.event.commitPosition,
          preparePosition: this.event.preparePosition,
        };
      }
      this.resolvedByCaller.set(key, resolved);
    }
    return resolved;
  }
}
