/**
 * How a persistent group describes itself to the UI and the protocols' listings (PersistentGroupInfo), and the
 * counters it keeps only for that: what it delivered and processed, and the processing rate at each tick.
 */
import type { GroupStatus, PersistentConnectionInfo, PersistentGroupInfo } from '../types.ts';

export class GroupCounters {
  delivered = 0;
  processed = 0;
  private processedAtLastTick = 0;
  private lastTickAt: number;
  private rate = 0;

  constructor(now: number) {
    this.lastTickAt = now;
  }

  /** The group's tick: the rate since the last one. Returns the seconds between them. */
  tick(now: number): number {
    const seconds = (now - this.lastTickAt) / 1000;
    this.rate = seconds > 0 ? (this.processed - this.processedAtLastTick) / seconds : 0;
    this.processedAtLastTick = this.processed;
    this.lastTickAt = now;
    return seconds;
  }

  get averageItemsPerSecond(): number {
    return Math.round(this.rate * 100) / 100;
  }
}

/** A group's state as its description reads it. */
export interface GroupFacts {
  streamId: string;
  groupName: string;
  subscriptionId: string;
  /** True when caught up (new events taken straight from commits). */
  live: boolean;
  counters: GroupCounters;
  connections: PersistentConnectionInfo[];
  inFlight: number;
  /** Messages buffered, and of them those taken from commits. */
  buffered: number;
  liveBuffered: number;
  retryBuffered: number;
  /** Messages being written to the parked stream. */
  parking: number;
  parked: number;
  lastCheckpointed: number;
  lastProcessed: number;
  lastKnown: number;
}

export function describeGroup(f: GroupFacts): PersistentGroupInfo {
  const status: GroupStatus = f.connections.length === 0 ? 'Idle' : f.live ? 'Live' : 'CatchingUp';
  const liveBuffered = Math.min(f.liveBuffered, f.buffered);
  return {
    streamId: f.streamId,
    groupName: f.groupName,
    subscriptionId: f.subscriptionId,
    status,
    averageItemsPerSecond: f.counters.averageItemsPerSecond,
    totalItemsProcessed: f.counters.processed,
    totalItemsDelivered: f.counters.delivered,
    totalInFlightMessages: f.inFlight,
    readBufferCount: f.buffered - liveBuffered,
    liveBufferCount: liveBuffered,
    retryBufferCount: f.retryBuffered,
    outstandingMessagesCount: f.inFlight + f.parking,
    parkedMessageCount: f.parked,
    lastCheckpointedEventNumber: f.lastCheckpointed,
    lastProcessedEventNumber: f.lastProcessed,
    lastKnownEventNumber: f.lastKnown,
    behindByMessages: Math.max(0, f.lastKnown - f.lastCheckpointed),
    connectionCount: f.connections.length,
    connections: f.connections,
  };
}
