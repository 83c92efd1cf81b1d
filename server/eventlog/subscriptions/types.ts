import type { Caller, EventFilter, Position, ResolvedEvent, ResolvedIndexedEvent } from '../store/index.ts';

/**
 * Why a subscription ended. The first five are the wire's SubscriptionDropReason values; the rest are
 * Homeport's own causes, which the TCP layer maps onto the nearest wire value (see tcp-handlers.ts).
 */
export type DropReason =
  | 'Unsubscribed'
  | 'AccessDenied'
  | 'NotFound'
  | 'PersistentSubscriptionDeleted'
  | 'SubscriberMaxCountReached'
  /** The subscribed stream was hard-deleted; nothing can ever be appended to it again. */
  | 'StreamDeleted'
  /** The subscriber's connection could not keep up: its send queue passed the bound. */
  | 'SlowSubscriber'
  /** The server is shutting down. */
  | 'ServerShutdown';

/** Who is on the other end of a subscription, for the monitor. */
export interface SubscriberInfo {
  /** Stable id of the transport connection (all subscriptions of one connection share it). */
  connectionId: string;
  /** The name the client gave in IdentifyClient, if any. */
  connectionName: string | null;
  /** Remote address as `host:port`. */
  remoteAddress: string;
  /** The authenticated user, null for anonymous. */
  caller: Caller;
}

/**
 * Where a volatile subscription's messages go. Returning false from a delivery means the transport is
 * past its send bound; the engine then drops the subscription with 'SlowSubscriber' instead of letting
 * the backlog grow. The same ResolvedEvent object is handed to every subscriber of one event, so a
 * transport can cache its encoding.
 */
export interface VolatileSink {
  eventAppeared(event: ResolvedEvent): boolean;
  checkpointReached(position: Position): boolean;
  /** Called once when the engine ends the subscription (not after the caller's own `close`). */
  dropped(reason: DropReason): void;
}

export interface VolatileSubscribeRequest {
  /** '' (or '$all') subscribes to the global log. */
  streamId: string;
  resolveLinkTos: boolean;
  caller: Caller;
  subscriber: SubscriberInfo;
  sink: VolatileSink;
  /** Filtered subscriptions only. */
  filter?: EventFilter | null;
  /** Filtered subscriptions only: send CheckpointReached after this many seen events; negative = never. */
  checkpointInterval?: number;
}

export interface SubscriptionConfirmation {
  lastCommitPosition: number;
  /** null for `$all`. */
  lastEventNumber: number | null;
}

export interface VolatileSubscriptionHandle {
  readonly id: string;
  /** Client asked to stop: the sink gets dropped('Unsubscribed'). */
  unsubscribe(): void;
  /** Connection went away: forget the subscription without notifying anyone. */
  close(): void;
}

export type VolatileSubscribeResult =
  | { ok: true; confirmation: SubscriptionConfirmation; subscription: VolatileSubscriptionHandle }
  /** `invalidRequest` is set when the request itself is bad (e.g. a filter regex that does not compile). */
  | { ok: false; reason: DropReason; invalidRequest?: string };

export interface VolatileSubscriptionInfo {
  id: string;
  /** '' for `$all`. */
  streamId: string;
  filter: string | null;
  resolveLinkTos: boolean;
  checkpointInterval: number | null;
  connectionId: string;
  connectionName: string | null;
  remoteAddress: string;
  user: string | null;
  subscribedAt: number;
  eventsDelivered: number;
  checkpointsSent: number;
}

// ---- persistent subscriptions -------------------------------------------------------------------

export const CONSUMER_STRATEGIES = ['RoundRobin', 'DispatchToSingle', 'Pinned', 'PinnedByCorrelation'] as const;
export type ConsumerStrategyName = (typeof CONSUMER_STRATEGIES)[number];

/** Persistent group settings, with the wire fields' meaning (names follow the .NET client). */
export interface PersistentSubscriptionSettings {
  resolveLinkTos: boolean;
  /** First event number when the group has no checkpoint; -1 = only events written after the group starts. */
  startFrom: number;
  /** Un-acknowledged messages are retried after this long; 0 = never. */
  messageTimeoutMs: number;
  /** Extra timing statistics (kept for the wire and the monitor). */
  extraStatistics: boolean;
  /** Live events held in memory before the group falls back to paging through the stream. */
  liveBufferSize: number;
  /** Page size while catching up. */
  readBatchSize: number;
  /** Events held in memory while catching up. */
  historyBufferSize: number;
  /** Deliveries after the first before a message is parked. */
  maxRetryCount: number;
  /** Time-based checkpoint interval; 0 = never by time. */
  checkpointAfterMs: number;
  /** Processed messages needed before a timed checkpoint. */
  minCheckpointCount: number;
  /** Checkpoint as soon as this many messages are processed. */
  maxCheckpointCount: number;
  /** 0 = unlimited. */
  maxSubscriberCount: number;
  consumerStrategy: ConsumerStrategyName;
}

/** A group's settings plus, for a group on `$all`, which events become messages (none = every event). */
export interface PersistentGroupSettings extends PersistentSubscriptionSettings {
  filter?: EventFilter | null;
}

export type CreateGroupResult = { result: 'Success' | 'AlreadyExists' | 'Fail' | 'AccessDenied'; reason?: string };
export type UpdateGroupResult = { result: 'Success' | 'DoesNotExist' | 'Fail' | 'AccessDenied'; reason?: string };
export type DeleteGroupResult = UpdateGroupResult;

export type NakAction = 'Unknown' | 'Park' | 'Retry' | 'Skip' | 'Stop';

/** Where a persistent consumer's messages go. False = the transport is past its send bound. */
export interface PersistentSink {
  eventAppeared(event: ResolvedIndexedEvent, retryCount: number): boolean;
  dropped(reason: DropReason): void;
}

export interface PersistentConnectRequest {
  streamId: string;
  groupName: string;
  allowedInFlightMessages: number;
  caller: Caller;
  subscriber: SubscriberInfo;
  sink: PersistentSink;
}

export interface PersistentConsumerHandle {
  /** Empty until `start`. */
  readonly id: string;
  /** "<stream>::<group>", what the client echoes in Ack/Nak. */
  readonly subscriptionId: string;
  /** Event ids are canonical lower-case UUID text (the link's id when a link was resolved). */
  ack(eventIds: readonly string[]): void;
  nak(eventIds: readonly string[], action: NakAction, message?: string): void;
  /** Client asked to stop: dropped('Unsubscribed') is sent, its in-flight messages are retried. */
  unsubscribe(): void;
  /** Connection went away: in-flight messages are retried, nobody is notified. */
  close(): void;
  /** Begins delivery. Call it right after the confirmation went out, so no event overtakes it. */
  start(): void;
}

export type PersistentConnectResult =
  | {
      ok: true;
      confirmation: { lastCommitPosition: number; subscriptionId: string; lastEventNumber: number };
      consumer: PersistentConsumerHandle;
    }
  | { ok: false; reason: DropReason };

export interface PersistentConnectionInfo {
  id: string;
  connectionId: string;
  connectionName: string | null;
  remoteAddress: string;
  user: string | null;
  connectedAt: number;
  allowedInFlightMessages: number;
  inFlightMessages: number;
  availableSlots: number;
  itemsDelivered: number;
  itemsAcked: number;
  /** Deliveries per second over the last statistics interval. */
  averageItemsPerSecond: number;
  /**
   * With the group's extraStatistics: milliseconds from delivery to ack over the last acks, by EventStoreDB's
   * names (`Mean`, `Median`, `Fastest`, `Quintile 1`…`5`, `90%`…`99.9%`, `Highest`).
   */
  ackLatencyMs?: Record<string, number>;
}

export type GroupStatus = 'Live' | 'CatchingUp' | 'Idle';

export interface PersistentGroupInfo {
  streamId: string;
  groupName: string;
  /** "<stream>::<group>" */
  subscriptionId: string;
  status: GroupStatus;
  /** Processed (acked, skipped or parked) messages per second over the last statistics interval. */
  averageItemsPerSecond: number;
  totalItemsProcessed: number;
  totalItemsDelivered: number;
  totalInFlightMessages: number;
  /** Read ahead, not yet sent. */
  readBufferCount: number;
  liveBufferCount: number;
  retryBufferCount: number;
  outstandingMessagesCount: number;
  parkedMessageCount: number;
  /** -1 when nothing was checkpointed yet. */
  lastCheckpointedEventNumber: number;
  /** Last event number the group has read from its stream (-1 before the first). */
  lastProcessedEventNumber: number;
  /** The stream's current last event number (-1 for an empty or missing stream). */
  lastKnownEventNumber: number;
  /** lastKnown - lastCheckpointed, never negative. */
  behindByMessages: number;
  connectionCount: number;
  connections: PersistentConnectionInfo[];
}

export interface PersistentGroupDetail extends PersistentGroupInfo {
  settings: PersistentSubscriptionSettings;
  parkedStreamId: string;
  checkpointStreamId: string;
}

export interface ParkedMessage {
  /** Position inside the parked stream. */
  parkedEventNumber: number;
  /** The parked event as the group would deliver it; `event` is absent when the target is gone. */
  event: ResolvedIndexedEvent;
  /** The original event's number in the group's stream. */
  eventNumber: number;
  parkedAt: string | null;
  reason: string | null;
}

export interface ParkedPage {
  messages: ParkedMessage[];
  /** Pass as `from` for the next page; null at the end. */
  nextEventNumber: number | null;
  total: number;
}
