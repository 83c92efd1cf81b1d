/**
 * Event-log replication (`homeport eventlog replicate`): copies `$all` from one event store to another, the
 * local store or a server over TCP or gRPC on either side, exactly once across crashes, once or continuously.
 */
export { replicate, type ReplicateOptions, type ReplicationSummary } from './replicator.ts';
export { NO_FILTER, type ReplicationFilter } from './plan.ts';
export type { ReplicationPhase, ReplicationProgress } from './progress.ts';
export { checkpointStream, defaultReplicationName, parseCheckpoint, type Checkpoint } from './checkpoint.ts';
export {
  EndpointError,
  needsPassword,
  openEndpoint,
  parseEndpoint,
  withPassword,
  type Endpoint,
  type EndpointSpec,
} from './endpoints.ts';
export { localEndpoint } from './local.ts';
export {
  LOCAL,
  ReplicationManager,
  ReplicationRequestError,
  type ReplicationJob,
  type ReplicationRequest,
} from './manager.ts';
export { ReplicationError, type LogPosition } from './types.ts';
export { planWrites } from './plan.ts';
export { toSourceEvent } from './tcp.ts';
export type { SourceEvent, TargetWrite } from './types.ts';
