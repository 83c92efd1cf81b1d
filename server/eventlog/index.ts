/**
 * The event-log subsystem's public face: storage (an EventStoreDB-compatible store on SQLite) and
 * the TCP protocol listeners. Everything else in Homeport uses only what is exported here.
 */
export * from './store/index.ts';
export { LINK_EVENT_TYPE, parseLink, type ParsedLink } from './store/index.ts';
export { openEventLog, EVENTLOG_FILE, type EventLog, type OpenEventLogOptions } from './eventlog.ts';
export { DEFAULT_PASSWORD, EventLogUserError, type EventLogUserErrorCode } from './store/index.ts';
export { DEFAULT_STORE_LIMITS, type StoreLimits } from './store/index.ts';
export { eventlogMigrations } from './store/index.ts';
export {
  startEventLogTcp,
  type EventLogTcpServer,
  type EventLogTcpOptions,
  DEFAULT_CONNECTION_LIMITS,
  type ConnectionInfo,
  type ConnectionLimits,
  type ConnectionRegistry,
  type TcpServerStats,
  TcpCommand,
  TcpFlags,
  FrameReader,
  guidStringToBytes,
  decodeMessage,
  encodeMessage,
  encodeFrame,
  parsePackage,
  type TcpPackage,
} from './tcp/index.ts';
export {
  startSubscriptions,
  DEFAULT_PERSISTENT_SETTINGS,
  CONSUMER_STRATEGIES,
  checkpointStreamOf,
  parkedStreamOf,
  type Subscriptions,
  type SubscriptionsOptions,
  type ConsumerStrategyName,
  type PersistentSubscriptionSettings,
  type PersistentGroupInfo,
  type PersistentGroupDetail,
  type PersistentConnectionInfo,
  type ParkedMessage,
  type ParkedPage,
  type VolatileSubscriptionInfo,
  type CreateGroupResult,
  type UpdateGroupResult,
  type DeleteGroupResult,
  type GroupStatus,
} from './subscriptions/index.ts';
export { subscriptionTcpHandlers } from './subscriptions/index.ts';
export {
  DEFAULT_MAX_SUBSCRIPTIONS,
  DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION,
  type SubscriptionTcpOptions,
} from './subscriptions/index.ts';
export {
  startProjections,
  mountProjectionsHttp,
  projectionsGrpcService,
  ProjectionManager,
  ProjectionNotFoundError,
  ProjectionCommandError,
  RUN_PROJECTIONS_VALUES,
  type RunProjections,
  type ProjectionEntry,
} from './projections/index.ts';
export { startEventLogGrpc, serviceDefinition, type EventLogGrpcServer } from './grpc/index.ts';
export { eventLogUiRoutes, eventLogUiDeps } from './ui/index.ts';
export {
  defaultReplicationName,
  EndpointError,
  needsPassword,
  NO_FILTER,
  openEndpoint,
  parseEndpoint,
  replicate,
  withPassword,
  type Endpoint,
  type EndpointSpec,
  type LogPosition,
  type ReplicationFilter,
  type ReplicationProgress,
  type ReplicationSummary,
} from './replication/index.ts';
export { planWrites, toSourceEvent } from './replication/index.ts';
export type { SourceEvent, TargetWrite } from './replication/index.ts';
