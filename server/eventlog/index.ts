/**
 * The event-log subsystem's public face: storage (an EventStoreDB-compatible store on SQLite) and
 * the TCP protocol listeners. Everything else in Homeport uses only what is exported here.
 */
export * from './store/index.ts';
export { openEventLog, EVENTLOG_FILE, type EventLog } from './eventlog.ts';
export {
  startEventLogTcp,
  type EventLogTcpServer,
  type ConnectionLimits,
  TcpCommand,
  TcpFlags,
  FrameReader,
  guidStringToBytes,
  decodeMessage,
  encodeMessage,
  encodeFrame,
  encodeWriteEventsCompleted,
  parsePackage,
  type TcpPackage,
} from './tcp/index.ts';
export {
  startSubscriptions,
  type Subscriptions,
} from './subscriptions/index.ts';
export { subscriptionTcpHandlers } from './subscriptions/index.ts';
export { type SubscriptionTcpOptions } from './subscriptions/index.ts';
export {
  startProjections,
  mountProjectionsHttp,
  projectionsGrpcService,
  ProjectionManager,
  RUN_PROJECTIONS_VALUES,
  type RunProjections,
} from './projections/index.ts';
export { startEventLogGrpc, serviceDefinition, type EventLogGrpcServer } from './grpc/index.ts';
export { eventLogUiRoutes, eventLogUiDeps } from './ui/index.ts';
// The CLI reads these off the module it loads lazily (server/cli/eventlog-replicate.ts), where knip does not look.
/** @public */
export { EndpointError, needsPassword, parseEndpoint, withPassword } from './replication/index.ts';
export {
  defaultReplicationName,
  NO_FILTER,
  openEndpoint,
  replicate,
  type Endpoint,
  type EndpointSpec,
  type LogPosition,
  type ReplicationFilter,
  type ReplicationProgress,
  type ReplicationSummary,
} from './replication/index.ts';
export { planWrites, toSourceEvent } from './replication/index.ts';
export type { SourceEvent, TargetWrite } from './replication/index.ts';
