/**
 * A projection's persisted definition: the JSON of its `$ProjectionUpdated` events in
 * `$projections-<name>`, camelCase with defaults left out, as EventStoreDB keeps it.
 */

export type ProjectionMode = 'Continuous' | 'OneTime' | 'Transient';

export interface ProjectionDefinition {
  handlerType: string;
  query: string;
  mode: ProjectionMode;
  enabled: boolean;
  deleted?: boolean;
  deleting?: boolean;
  deleteEmittedStreams?: boolean;
  deleteCheckpointStream?: boolean;
  deleteStateStream?: boolean;
  emitEnabled?: boolean;
  checkpointsDisabled?: boolean;
  trackEmittedStreams?: boolean;
  /** The version of the last reset (-1: never reset); checkpoints of earlier epochs are ignored. */
  epoch: number;
  /** The event number of this definition in `$projections-<name>`. */
  version: number;
  runAs?: { name: string; roles: string[] };
  projectionSubsystemVersion?: number;
  projectionExecutionTimeout?: number;
  checkpointAfterMs?: number;
  checkpointHandledThreshold?: number;
  checkpointUnhandledBytesThreshold?: number;
  pendingEventsThreshold?: number;
  maxWriteBatchLength?: number;
  maxAllowedWritesInFlight?: number;
}

/** What GET/PUT `/projection/<name>/config` carry (EventStoreDB's ProjectionConfig). */
export interface ProjectionConfig {
  emitEnabled: boolean;
  trackEmittedStreams: boolean;
  checkpointAfterMs: number;
  checkpointHandledThreshold: number;
  checkpointUnhandledBytesThreshold: number;
  pendingEventsThreshold: number;
  maxWriteBatchLength: number;
  maxAllowedWritesInFlight: number;
  projectionExecutionTimeout: number;
}

/** EventStoreDB's defaults (ProjectionConsts, ProjectionExecutionTimeout). */
export function configOf(d: ProjectionDefinition, defaultTimeoutMs: number): ProjectionConfig {
  return {
    emitEnabled: d.emitEnabled === true,
    trackEmittedStreams: d.trackEmittedStreams === true,
    checkpointAfterMs: d.checkpointAfterMs ?? 0,
    checkpointHandledThreshold: d.checkpointHandledThreshold ?? 4000,
    checkpointUnhandledBytesThreshold: d.checkpointUnhandledBytesThreshold ?? 10_000_000,
    pendingEventsThreshold: d.pendingEventsThreshold ?? 5000,
    maxWriteBatchLength: d.maxWriteBatchLength ?? 500,
    maxAllowedWritesInFlight: d.maxAllowedWritesInFlight ?? 0,
    projectionExecutionTimeout: d.projectionExecutionTimeout ?? defaultTimeoutMs,
  };
}

/** Serialised with false/undefined values left out, as EventStoreDB's JSON writer omits defaults. */
export function definitionJson(d: ProjectionDefinition): string {
  return JSON.stringify(d, (_key, value) => (value === false || value === undefined ? undefined : value));
}

export function parseDefinition(text: string): ProjectionDefinition | null {
  try {
    const d = JSON.parse(text) as Partial<ProjectionDefinition>;
    if (!d || typeof d !== 'object' || typeof d.handlerType !== 'string') return null;
    return {
      ...d,
      handlerType: d.handlerType,
      query: typeof d.query === 'string' ? d.query : '',
      mode: d.mode === 'OneTime' || d.mode === 'Transient' ? d.mode : 'Continuous',
      enabled: d.enabled === true,
      epoch: typeof d.epoch === 'number' ? d.epoch : -1,
      version: typeof d.version === 'number' ? d.version : 0,
    };
  } catch {
    return null;
  }
}
