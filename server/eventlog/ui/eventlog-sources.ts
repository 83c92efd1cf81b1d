import type { EventLog } from '../eventlog.ts';
import type {
  CreateGroupResult,
  PersistentGroupDetail,
  PersistentGroupInfo,
  PersistentSubscriptionSettings,
  Subscriptions,
  UpdateGroupResult,
  VolatileSubscriptionInfo,
} from '../subscriptions/index.ts';
import type { ConnectionInfo } from '../tcp/index.ts';
import type { ProjectionManager } from '../projections/index.ts';
import type {
  EventLogUiDeps,
  UiConnectionSource,
  UiGroupDetail,
  UiGroupOperationResult,
  UiGroupSummary,
  UiSubscriptionsSource,
  UiVolatileSubscription,
} from './eventlog-context.ts';

const orNull = (n: number) => (n < 0 ? null : n);

function volatileView(v: VolatileSubscriptionInfo): UiVolatileSubscription {
  return {
    id: v.id,
    stream: v.streamId || '$all',
    filter: v.filter,
    connectionId: v.connectionId,
    connectionName: v.connectionName ?? '',
    remoteAddress: v.remoteAddress,
    user: v.user,
    delivered: v.eventsDelivered,
    resolveLinkTos: v.resolveLinkTos,
    subscribedAt: v.subscribedAt,
  };
}

function groupView(g: PersistentGroupInfo): UiGroupSummary {
  return {
    stream: g.streamId,
    group: g.groupName,
    status: g.status,
    averagePerSecond: g.averageItemsPerSecond,
    totalItemsProcessed: g.totalItemsProcessed,
    totalItemsDelivered: g.totalItemsDelivered,
    lastCheckpointedEventNumber: orNull(g.lastCheckpointedEventNumber),
    lastProcessedEventNumber: orNull(g.lastProcessedEventNumber),
    lastKnownEventNumber: orNull(g.lastKnownEventNumber),
    behindByMessages: g.behindByMessages,
    inFlight: g.totalInFlightMessages,
    parkedCount: g.parkedMessageCount,
    connectionCount: g.connectionCount,
    readBufferCount: g.readBufferCount,
    liveBufferCount: g.liveBufferCount,
    retryBufferCount: g.retryBufferCount,
    outstandingMessagesCount: g.outstandingMessagesCount,
  };
}

function detailView(g: PersistentGroupDetail): UiGroupDetail {
  return {
    ...groupView(g),
    settings: { ...g.settings },
    parkedStream: g.parkedStreamId,
    checkpointStream: g.checkpointStreamId,
    connections: g.connections.map((c) => ({
      id: c.id,
      from: c.remoteAddress,
      user: c.user,
      connectionName: c.connectionName ?? '',
      connectedAt: c.connectedAt,
      averagePerSecond: c.averageItemsPerSecond,
      delivered: c.itemsDelivered,
      acked: c.itemsAcked,
      allowedInFlight: c.allowedInFlightMessages,
      availableSlots: c.availableSlots,
      inFlight: c.inFlightMessages,
    })),
  };
}

function outcome(r: CreateGroupResult | UpdateGroupResult): UiGroupOperationResult {
  return r.result === 'Success' ? { ok: true } : { ok: false, code: r.result, message: r.reason };
}

/** The subscription engines as the UI API sees them. */
export function subscriptionsSource(subs: Subscriptions): UiSubscriptionsSource {
  return {
    listVolatile: () => subs.listVolatile().map(volatileView),
    volatileDelivered: () => subs.volatile.deliveredTotal,
    listGroups: () => subs.listGroups().map(groupView),
    getGroup: (s, g) => {
      const d = subs.getGroup(s, g);
      return d ? detailView(d) : undefined;
    },
    createGroup: async (s, g, settings, caller) =>
      outcome(await subs.createGroup(s, g, settings as Partial<PersistentSubscriptionSettings>, caller)),
    updateGroup: async (s, g, settings, caller) =>
      outcome(await subs.updateGroup(s, g, settings as Partial<PersistentSubscriptionSettings>, caller)),
    deleteGroup: async (s, g, caller) => outcome(await subs.deleteGroup(s, g, caller)),
    replayParked: async (s, g, stopAt) => {
      const replayed = subs.replayParked(s, g, stopAt === null ? {} : { stopAt });
      return replayed === undefined
        ? { ok: false, code: 'DoesNotExist', message: `There is no group "${g}" on stream "${s}"` }
        : { ok: true, replayed };
    },
  };
}

export function connectionView(c: ConnectionInfo): UiConnectionSource {
  return {
    id: c.id,
    connectionName: c.connectionName,
    remoteAddress: c.remoteAddress.includes(':')
      ? `[${c.remoteAddress}]:${c.remotePort}`
      : `${c.remoteAddress}:${c.remotePort}`,
    user: c.user,
    connectedAt: c.connectedAt,
    bytesReceived: c.bytesReceived,
    bytesSent: c.bytesSent,
    pendingSendBytes: c.pendingSendBytes,
    pendingSendPackages: c.pendingSendPackages,
    tls: c.tls,
  };
}

/**
 * Everything the event-log pages of the UI API read from. The TCP listener starts after the HTTP server,
 * so its connection list comes through a getter that answers [] until then.
 */
export function eventLogUiDeps(options: {
  eventLog: EventLog;
  subscriptions: Subscriptions;
  connections: () => readonly ConnectionInfo[];
  projections?: ProjectionManager | null;
}): EventLogUiDeps {
  const subs = subscriptionsSource(options.subscriptions);
  return {
    store: options.eventLog.store,
    browser: options.eventLog.browser,
    users: options.eventLog.users,
    tokens: options.eventLog.tokens,
    connections: () => options.connections().map(connectionView),
    subscriptions: () => subs,
    subscribeLive: (request) => options.subscriptions.volatile.subscribe(request),
    projections: () => options.projections ?? null,
  };
}
