import type { ProjectionManager } from '../projections/index.ts';
import type { EventLogTokens, EventLogUsers, EventStore, Principal, StreamBrowser } from '../store/index.ts';
import type {
  PersistentSubscriptionSettings,
  VolatileSubscribeRequest,
  VolatileSubscribeResult,
} from '../subscriptions/index.ts';

/**
 * What the event-log pages of the UI API need. Everything is reached through getters because the TCP
 * listener (connection registry) and the subscription engines start after the HTTP server does.
 */
export interface EventLogUiDeps {
  store: EventStore;
  /** Browsing by name, category and time for the stream list. */
  browser: StreamBrowser;
  users: EventLogUsers;
  /** Bearer tokens of the users (gRPC clients). */
  tokens: EventLogTokens;
  /** Connected TCP clients; empty until the TCP listener runs. */
  connections: () => readonly UiConnectionSource[];
  /** The subscription engines' admin face; null until they run. */
  subscriptions: () => UiSubscriptionsSource | null;
  /** Subscribes the UI's live tail as a volatile subscription; absent while the engine does not run. */
  subscribeLive?: (request: VolatileSubscribeRequest) => VolatileSubscribeResult;
  /** The projections subsystem; null (or absent) with `--run-projections none`. */
  projections?: () => ProjectionManager | null;
}

/** A connected TCP client (from the TCP server's connection registry). */
export interface UiConnectionSource {
  id: string;
  connectionName: string;
  /** host:port of the client. */
  remoteAddress: string;
  user: string | null;
  connectedAt: number;
  bytesReceived: number;
  bytesSent: number;
  pendingSendBytes: number;
  pendingSendPackages: number;
  tls: boolean;
}

/** The subscription engines' admin operations, in the UI API's terms (see eventlog-sources.ts for the adapter). */
export interface UiSubscriptionsSource {
  listVolatile(): UiVolatileSubscription[];
  /** Events delivered to volatile subscriptions since start, including subscriptions that have ended. */
  volatileDelivered(): number;
  listGroups(): UiGroupSummary[];
  getGroup(stream: string, group: string): UiGroupDetail | undefined;
  createGroup(
    stream: string,
    group: string,
    settings: Partial<UiGroupSettings>,
    caller: Principal,
  ): Promise<UiGroupOperationResult>;
  updateGroup(
    stream: string,
    group: string,
    settings: Partial<UiGroupSettings>,
    caller: Principal,
  ): Promise<UiGroupOperationResult>;
  deleteGroup(stream: string, group: string, caller: Principal): Promise<UiGroupOperationResult>;
  replayParked(
    stream: string,
    group: string,
    stopAt: number | null,
    caller: Principal,
  ): Promise<UiGroupOperationResult & { replayed?: number }>;
}

export interface UiGroupOperationResult {
  ok: boolean;
  /** 'DoesNotExist' | 'AlreadyExists' | 'AccessDenied' | 'Fail' */
  code?: string;
  message?: string;
}

export interface UiVolatileSubscription {
  id: string;
  /** '$all' for the global log. */
  stream: string;
  filter: string | null;
  connectionId: string;
  connectionName: string;
  remoteAddress: string;
  user: string | null;
  delivered: number;
  resolveLinkTos: boolean;
  subscribedAt: number;
}

/** Group settings, named as the .NET client names them: the subscriptions engine's own shape. */
export type UiGroupSettings = Omit<PersistentSubscriptionSettings, 'consumerStrategy'> & { consumerStrategy: string };

export interface UiGroupSummary {
  stream: string;
  group: string;
  status: string;
  /** Processed messages per second, recent. */
  averagePerSecond: number;
  totalItemsProcessed: number;
  totalItemsDelivered: number;
  /** null until the first checkpoint. */
  lastCheckpointedEventNumber: number | null;
  lastProcessedEventNumber: number | null;
  /** The stream's last event number, null for an empty stream. */
  lastKnownEventNumber: number | null;
  behindByMessages: number;
  inFlight: number;
  parkedCount: number;
  connectionCount: number;
  readBufferCount: number;
  liveBufferCount: number;
  retryBufferCount: number;
  outstandingMessagesCount: number;
}

export interface UiGroupConnection {
  id: string;
  from: string;
  user: string | null;
  connectionName: string;
  connectedAt: number;
  averagePerSecond: number;
  delivered: number;
  acked: number;
  allowedInFlight: number;
  availableSlots: number;
  inFlight: number;
}

export interface UiGroupDetail extends UiGroupSummary {
  settings: UiGroupSettings;
  connections: UiGroupConnection[];
  parkedStream: string;
  checkpointStream: string;
}
