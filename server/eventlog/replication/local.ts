/**
 * The local store as a replication side, through the store's public face, as `$admins`. The data directory's
 * lock is taken for the whole replication: a server running on the same directory keeps caches (stream
 * versions, recent event ids) a second writer would not update, so that case goes through the server's
 * own address instead.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ensureDirectory } from '../../fs-util.ts';
import { acquireDataDirLock, DataDirLockedError } from '../../lock.ts';
import type { Logger } from '../../logger.ts';
import { EVENTLOG_FILE, openEventLog } from '../eventlog.ts';
import { ExpectedVersion, type Caller, type EventStore, type NewEvent, type RecordedEvent } from '../store/index.ts';
import { comparePositions } from './plan.ts';
import {
  ReplicationError,
  type LogPosition,
  type ReplicationSource,
  type ReplicationTarget,
  type SourceEvent,
  type StreamTail,
  type TargetWrite,
} from './types.ts';

const REPLICATOR: Caller = { name: 'admin', groups: ['$admins'] };
/** The local store reads at most 4,096 events at once, as over TCP. */
const MAX_READ = 4096;
const USER_EVENT_SCAN = 10_000;

export interface LocalEndpoint {
  readonly description: string;
  source(): ReplicationSource;
  target(): ReplicationTarget;
  close(): Promise<void>;
}

/**
 * Takes the data directory's lock and opens its event log. A target's directory and store are created when
 * new; a source must hold an event log already.
 */
export async function openLocalEndpoint(
  dataDir: string,
  logger: Logger,
  role: 'source' | 'target',
): Promise<LocalEndpoint> {
  if (role === 'source' && !fs.existsSync(path.join(dataDir, EVENTLOG_FILE)))
    throw new ReplicationError(`${dataDir} holds no event log (${EVENTLOG_FILE})`);
  ensureDirectory(dataDir);
  let lock: { release(): void };
  try {
    lock = acquireDataDirLock(dataDir);
  } catch (err) {
    if (err instanceof DataDirLockedError)
      throw new ReplicationError(
        `${err.message}: replicate through that server's address (tcp://… or kurrentdb://…) or stop it first`,
      );
    throw err;
  }
  try {
    const eventLog = await openEventLog({ dataDir, logger });
    const endpoint = localEndpoint(eventLog.store, path.resolve(dataDir));
    return {
      ...endpoint,
      close: async () => {
        await eventLog.close();
        lock.release();
      },
    };
  } catch (err) {
    lock.release();
    throw err;
  }
}

/** A side on a store this process already has open (the caller closes it): a server's own, for the UI. */
export function localEndpoint(store: EventStore, description: string): LocalEndpoint {
  const source: ReplicationSource = {
    description,
    async read(after, maxCount) {
      let from = after ? { commitPosition: Number(after.commit), preparePosition: Number(after.prepare) } : null;
      for (;;) {
        const result = store.readAllForward(
          from ?? { commitPosition: 0, preparePosition: 0 },
          Math.min(maxCount + 1, MAX_READ),
          false,
          REPLICATOR,
        );
        if (result.result !== 'Success')
          throw new ReplicationError(`reading ${description}: ${result.error ?? result.result}`);
        const events = result.events.map((e) => toSourceEvent(e.event!));
        const fresh = after ? events.filter((e) => comparePositions(e.position, after) > 0) : events;
        // A page that held only the event at `after` (cut short by its size) says nothing about the rest.
        if (
          fresh.length === 0 &&
          events.length > 0 &&
          result.nextPosition.commitPosition > (from?.commitPosition ?? 0)
        ) {
          from = result.nextPosition;
          continue;
        }
        return fresh.slice(0, maxCount);
      }
    },
    async headPosition() {
      const result = store.readAllBackward({ commitPosition: -1, preparePosition: -1 }, 1, false, REPLICATOR);
      const last = result.events[0]?.event;
      return last ? positionOf(last) : null;
    },
    async watch(onNew) {
      const stop = store.onCommitted(() => onNew());
      return { stop };
    },
    close: async () => {},
  };
  const target: ReplicationTarget = {
    description,
    ordered: true,
    async write(write: TargetWrite) {
      if (write.kind === 'tombstone') {
        const result = await store.deleteStream(write.streamId, ExpectedVersion.Any, true, REPLICATOR);
        if (result.result === 'Success' || result.result === 'StreamDeleted') return;
        throw new ReplicationError(`deleting ${write.streamId} on ${description}: ${result.message ?? result.result}`);
      }
      const events: NewEvent[] = write.events.map((e) => ({
        eventId: e.eventId,
        eventType: e.eventType,
        isJson: e.isJson,
        data: e.data,
        metadata: e.metadata,
      }));
      const result = await store.appendToStream(write.streamId, ExpectedVersion.Any, events, REPLICATOR);
      if (result.result !== 'Success')
        throw new ReplicationError(
          `appending to ${write.streamId} on ${description}: ${result.message ?? result.result}`,
        );
    },
    async streamTail(streamId, count): Promise<StreamTail> {
      const result = store.readStreamBackward(streamId, -1, Math.min(count, MAX_READ), false, REPLICATOR);
      if (result.result === 'StreamDeleted') return { eventIds: new Set(), tombstoned: true };
      return { eventIds: new Set(result.events.map((e) => e.event?.eventId ?? '')), tombstoned: false };
    },
    async lastJson(streamId) {
      const result = store.readStreamBackward(streamId, -1, 1, false, REPLICATOR);
      const last = result.events[0]?.event;
      return last ? parseJson(last.data) : null;
    },
    async hasUserEvents() {
      let from = { commitPosition: -1, preparePosition: -1 };
      for (let seen = 0; seen < USER_EVENT_SCAN; ) {
        const result = store.readAllBackward(from, 1000, false, REPLICATOR);
        if (result.events.some((e) => e.event && !e.event.eventType.startsWith('$'))) return true;
        if (result.events.length === 0) return false;
        seen += result.events.length;
        from = result.nextPosition;
      }
      return true;
    },
    close: async () => {},
  };
  return { description, source: () => source, target: () => target, close: async () => {} };
}

function positionOf(e: RecordedEvent): LogPosition {
  return { commit: BigInt(e.commitPosition), prepare: BigInt(e.preparePosition) };
}

function toSourceEvent(e: RecordedEvent): SourceEvent {
  return {
    streamId: e.streamId,
    eventNumber: BigInt(e.eventNumber),
    eventId: e.eventId,
    eventType: e.eventType,
    isJson: e.isJson,
    data: e.data,
    metadata: e.metadata,
    created: e.created,
    position: positionOf(e),
  };
}

export function parseJson(data: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(data).toString('utf8'));
  } catch {
    return null;
  }
}
