/**
 * Projections, as EventStoreDB runs them: the standard projections (`$by_category` → `$ce-…`,
 * `$by_event_type` → `$et-…`, `$stream_by_category`, `$streams`, `$by_correlation_id`) writing the same
 * links to the same streams, with checkpoints in `$projections-<name>-checkpoint`.
 */
import { ProjectionManager, type ProjectionsEventLog, type ProjectionsOptions } from './manager.ts';

export { ProjectionManager, type ProjectionsOptions, type ProjectionsEventLog } from './manager.ts';
export {
  ProjectionNotFoundError,
  ProjectionCommandError,
  ProjectionConflictError,
  ProjectionConfigError,
  RUN_PROJECTIONS_VALUES,
  type RunProjections,
  type ProjectionEntry,
} from './commands.ts';
export type { ProjectionConfig } from './definition.ts';
export { projectionsGrpcService } from './grpc-service.ts';
export { mountProjectionsHttp, MAX_QUERY_BYTES } from './http/routes.ts';
export { projectionStatistics } from './http/statistics.ts';

/** Starts the subsystem (nothing at all with mode `none`); the standard projections catch up in the background. */
export async function startProjections(
  eventLog: ProjectionsEventLog,
  options: ProjectionsOptions,
): Promise<ProjectionManager | null> {
  if (options.mode === 'none') return null;
  const manager = new ProjectionManager(eventLog, options);
  await manager.start();
  return manager;
}
