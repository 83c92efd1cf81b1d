import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import type {
  VolatileSubscriptions,
  DropReason,
  SubscriberInfo,
  VolatileSubscriptionHandle,
} from '../../subscriptions/index.ts';
import type { Caller, EventStore, Position, ResolvedEvent, ResolvedIndexedEvent } from '../../store/index.ts';
import { timestamp, type Outbox } from '../call-support.ts';
import { Errors, grpcError, type GrpcError } from '../errors.ts';
import { readEventResp, sharedReadEventResp } from './events.ts';
import type { From, ParsedFilter, ParsedRead } from './read-request.ts';
import { allFailure, READ_PAGE } from './read.ts';

/**
 * Catch-up subscriptions, as KurrentDB serves them: `confirmation`, the history after the start point
 * (exclusive), exactly one `caught_up`, then live events. History is read page by page while the client
 * keeps up; the read that reaches the end and the live registration happen in one synchronous turn, so no
 * commit falls between them. A client that stops reading while live is moved back to catch-up from where
 * it is (KurrentDB never sends `fell_behind`) instead of queueing without bound.
 */

/** Live messages queued for a client before it is moved back to catch-up. */
export const LIVE_QUEUE_BOUND = 1024;

export interface SubscriptionDeps {
  store: EventStore;
  volatile: VolatileSubscriptions;
}

interface Cursor {
  /** Stream: next revision to read. */
  revision: number;
  /** `$all`: next position to read (inclusive) and the last position sent or passed. */
  position: Position;
  /** `$all` from a client's position: an event exactly there was already seen (exclusive start). */
  skip: Position | null;
  last: Position | null;
}

function samePosition(a: Position | null, b: Position): boolean {
  return a !== null && a.commitPosition === b.commitPosition && a.preparePosition === b.preparePosition;
}

function dropError(reason: DropReason, streamId: string): GrpcError | null {
  switch (reason) {
    case 'Unsubscribed':
      return null;
    case 'AccessDenied':
      return Errors.accessDenied();
    case 'StreamDeleted':
      return Errors.streamDeleted(streamId);
    case 'NotFound':
      return Errors.invalidArgument('invalid subscription filter');
    case 'ServerShutdown':
      return grpcError(grpc.status.UNAVAILABLE, 'Server is shutting down.');
    default:
      return Errors.internal(`subscription dropped: ${reason}`);
  }
}

export async function subscribe(
  deps: SubscriptionDeps,
  read: ParsedRead,
  caller: Caller,
  subscriber: SubscriberInfo,
  out: Outbox<unknown>,
): Promise<void> {
  const { store, volatile } = deps;
  const plan = read.plan;
  const streamId = plan.target === 'stream' ? plan.streamId : '$all';
  const filter: ParsedFilter | null = plan.target === 'all' ? plan.filter : null;
  if (!store.checkReadAccess(plan.target === 'stream' ? streamId : '', caller)) throw Errors.accessDenied();
  if (plan.target === 'stream' && store.lastEventNumber(streamId) === Number.MAX_SAFE_INTEGER)
    throw Errors.streamDeleted(streamId);

  const cursor: Cursor = { revision: 0, position: { commitPosition: 0, preparePosition: 0 }, skip: null, last: null };
  let fromEnd = false;
  if (plan.target === 'stream') {
    const from = plan.from as From<number>;
    if (from.kind === 'end') fromEnd = true;
    else cursor.revision = from.kind === 'start' ? 0 : from.at + 1;
  } else {
    const from = plan.from as From<Position>;
    if (from.kind === 'end') fromEnd = true;
    else if (from.kind === 'at') {
      cursor.position = from.at;
      cursor.skip = from.at;
      cursor.last = from.at;
    }
  }

  await out.send({ confirmation: { subscription_id: randomUUID() } });
  let handle: VolatileSubscriptionHandle | null = null;
  let liveQueue: ResolvedEvent[] | null = null;
  let finished = false;
  let wake: (() => void) | null = null;
  let fellBehind = false;
  let failure: GrpcError | null = null;
  const stop = () => {
    finished = true;
    handle?.close();
    handle = null;
    wake?.();
  };
  out.onEnd(stop);

  /** `live`: the engine's event object, shared by every subscriber of its commit, so its encoding is too. */
  const sendEvent = (entry: ResolvedIndexedEvent, position: Position | null, live = false): boolean => {
    if (position) {
      cursor.last = position;
    } else if (entry.link ?? entry.event) cursor.revision = (entry.link ?? entry.event)!.eventNumber + 1;
    const encode = live ? sharedReadEventResp : readEventResp;
    return out.push(encode(entry, read.structuredIds, position?.commitPosition));
  };
  const sendCheckpoint = (p: Position) =>
    out.push({
      checkpoint: {
        commit_position: String(p.commitPosition),
        prepare_position: String(p.preparePosition),
        timestamp: timestamp(Date.now()),
      },
    });

  /** Live registration; its events wait in `liveQueue` until the history before them is out. */
  const goLive = (): boolean => {
    liveQueue = [];
    const result = volatile.subscribe({
      streamId: plan.target === 'stream' ? streamId : '',
      resolveLinkTos: read.resolveLinks,
      caller,
      subscriber,
      ...(filter ? { filter: filter.filter, checkpointInterval: filter.checkpointEvery } : {}),
      sink: {
        eventAppeared: (event) => {
          if (finished) return true;
          if (liveQueue) {
            liveQueue.push(event);
            return liveQueue.length <= LIVE_QUEUE_BOUND * 4;
          }
          if (out.queued > LIVE_QUEUE_BOUND) return false;
          sendEvent(event, plan.target === 'all' ? event : null, true);
          return true;
        },
        checkpointReached: (position) => {
          if (finished || liveQueue) return true;
          return sendCheckpoint(position);
        },
        dropped: (reason) => {
          handle = null;
          if (reason === 'SlowSubscriber') fellBehind = true;
          else failure = dropError(reason, streamId);
          wake?.();
        },
      },
    });
    if (!result.ok) {
      failure = result.invalidRequest
        ? Errors.invalidArgument(result.invalidRequest)
        : (dropError(result.reason, streamId) ?? Errors.internal('subscription refused'));
      return false;
    }
    handle = result.subscription;
    if (fromEnd) {
      // Only events after this point: the stream's current revision / the log's current end.
      if (plan.target === 'stream') cursor.revision = (result.confirmation.lastEventNumber ?? -1) + 1;
      else {
        const lastEvent = store.readAllBackward({ commitPosition: -1, preparePosition: -1 }, 1, false, caller)
          .events[0];
        cursor.last = lastEvent
          ? { commitPosition: lastEvent.commitPosition, preparePosition: lastEvent.preparePosition }
          : null;
      }
      fromEnd = false;
    }
    return true;
  };

  let caughtUpSent = false;
  let examinedSinceCheckpoint = 0;
  while (!finished) {
    // catch-up: page through history until a read reaches the end, then register live in the same turn
    let live = false;
    while (!finished && !live) {
      if (fromEnd) {
        live = goLive();
        break;
      }
      if (plan.target === 'stream') {
        const result = store.readStreamForward(streamId, cursor.revision, READ_PAGE, read.resolveLinks, caller);
        if (result.result === 'StreamDeleted') throw Errors.streamDeleted(streamId);
        if (result.result === 'AccessDenied') throw Errors.accessDenied();
        if (result.result === 'Error') throw Errors.invalidArgument(result.error ?? 'read failed');
        for (const entry of result.events) sendEvent(entry, null);
        if (result.result === 'NoStream' || result.isEndOfStream || result.events.length === 0) live = goLive();
      } else {
        const result = filter
          ? store.filteredReadAllForward(
              cursor.position,
              READ_PAGE,
              filter.window,
              filter.filter,
              read.resolveLinks,
              caller,
            )
          : store.readAllForward(cursor.position, READ_PAGE, read.resolveLinks, caller);
        const error = allFailure(result);
        if (error) throw error;
        for (const entry of result.events) {
          if (samePosition(cursor.skip, entry)) continue;
          sendEvent(entry, entry);
        }
        cursor.skip = null;
        cursor.position = result.nextPosition;
        if (filter) {
          // Events examined, matched or not: a checkpoint lets the client resume without re-scanning them.
          examinedSinceCheckpoint += filter.window;
          if (examinedSinceCheckpoint >= filter.checkpointEvery) {
            examinedSinceCheckpoint = 0;
            sendCheckpoint(result.nextPosition);
          }
        }
        const atEnd = result.isEndOfStream || (!filter && result.events.length === 0);
        if (atEnd) {
          if (filter) sendCheckpoint(result.nextPosition);
          live = goLive();
        }
      }
      if (failure) break;
      if (!live && !(await out.drained())) return stop();
    }
    if (finished) return;
    if (failure) {
      out.fail(failure);
      return stop();
    }
    if (!caughtUpSent) {
      caughtUpSent = true;
      out.push({
        caught_up: {
          timestamp: timestamp(Date.now()),
          ...(plan.target === 'stream'
            ? { stream_revision: String(cursor.revision - 1) }
            : cursor.last
              ? {
                  position: {
                    commit_position: String(cursor.last.commitPosition),
                    prepare_position: String(cursor.last.preparePosition),
                  },
                }
              : {}),
        },
      });
    }
    // hand-off: what arrived while the history went out, then live delivery straight from the sink
    const queued: ResolvedEvent[] = liveQueue ?? [];
    liveQueue = null;
    for (const event of queued) sendEvent(event, plan.target === 'all' ? event : null, true);
    // live: wait until the call ends, the engine drops us, or the client falls behind
    await new Promise<void>((resolve) => {
      wake = resolve;
      if (finished || failure || fellBehind) resolve();
    });
    wake = null;
    if (failure) {
      out.fail(failure);
      return stop();
    }
    if (fellBehind) {
      fellBehind = false;
      handle = null;
      if (plan.target === 'all' && cursor.last) {
        cursor.position = cursor.last;
        cursor.skip = cursor.last;
      }
      if (!(await out.drained())) return stop();
    }
  }
}
