/**
 * What the projection manager's callers send and get back: the run modes, a projection's entry, the command
 * requests, and the errors the HTTP and gRPC faces turn into their status codes.
 */
import type { ProjectionDefinition, ProjectionMode } from './definition.ts';
import type { RunnerProgress } from './system/runner.ts';
export type RunProjections = 'none' | 'system' | 'all';
export const RUN_PROJECTIONS_VALUES: readonly RunProjections[] = ['none', 'system', 'all'];

/** A projection as the statistics and the commands see it. */
export interface ProjectionEntry {
  name: string;
  id: number;
  definition: ProjectionDefinition;
  progress: RunnerProgress;
  /** Partition states held in memory (1 for an unpartitioned projection with state). */
  partitionsCached: number;
}

export interface CreateProjection {
  /** Optional for one-time projections (a UUID then). */
  name?: string;
  query: string;
  mode: ProjectionMode;
  enabled?: boolean;
  emit?: boolean;
  /** One-time projections only (continuous ones always checkpoint, transient ones never). */
  checkpoints?: boolean;
  trackEmittedStreams?: boolean;
}

export interface DeleteFlags {
  deleteCheckpointStream?: boolean;
  deleteStateStream?: boolean;
  deleteEmittedStreams?: boolean;
}

export class ProjectionNotFoundError extends Error {}
/** A name already taken (HTTP 409). */
export class ProjectionConflictError extends Error {}
/** A command refused in the projection's current state (HTTP 500 "Failed" as EventStoreDB answers). */
export class ProjectionCommandError extends Error {}
/** A configuration EventStoreDB refuses with 400 (a timeout of 0 or less). */
export class ProjectionConfigError extends Error {}
/** RestartSubsystem while a restart is still under way (KurrentDB's InvalidSubsystemRestart). */
export class SubsystemRestartError extends Error {}
