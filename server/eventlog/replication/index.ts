/**
 * Event-log replication (`homeport eventlog replicate`): copies `$all` from one event store to another, the
 * local store or a server over TCP or gRPC on either side, exactly once across crashes, once or continuously.
 */
export { replicate, type ReplicationSummary } from './replicator.ts';
export { NO_FILTER, type ReplicationFilter } from './plan.ts';
export type { ReplicationProgress } from './progress.ts';
export { defaultReplicationName } from './checkpoint.ts';
// The CLI reads these off the module it loads lazily (server/cli/eventlog-replicate.ts), where knip does not look.
/** @public */
export { EndpointError, needsPassword, withPassword } from './endpoints.ts';
export {
  openEndpoint,
  parseEndpoint,
  type Endpoint,
  type EndpointSpec,
} from './endpoints.ts';
export { localEndpoint } from './local.ts';
export {
  ReplicationManager,
  ReplicationRequestError,
  type ReplicationJob,
  type ReplicationRequest,
} from './manager.ts';
export { type LogPosition } from './types.ts';
export { planWrites } from './plan.ts';
export { toSourceEvent } from './tcp-events.ts';
export type { SourceEvent, TargetWrite } from './types.ts';
