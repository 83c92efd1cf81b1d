/**
 * Stream and event-type names of the projections subsystem, as EventStoreDB/KurrentDB names them, so
 * clients and tools that read `$projections-…`, `$ce-…` or `$et-…` streams find them where they expect.
 */

export const ProjectionStreams = {
  /** The registry: `$ProjectionsInitialized`, then `$ProjectionCreated` / `$ProjectionDeleted` (data = name). */
  Registry: '$projections-$all',
  definition: (name: string) => `$projections-${name}`,
  checkpoint: (name: string) => `$projections-${name}-checkpoint`,
  partitionCheckpoint: (name: string, partition: string) => `$projections-${name}-${partition}-checkpoint`,
  result: (name: string) => `$projections-${name}-result`,
  partitionResult: (name: string, partition: string) => `$projections-${name}-${partition}-result`,
  partitions: (name: string) => `$projections-${name}-partitions`,
  emittedStreams: (name: string) => `$projections-${name}-emittedstreams`,
  order: (name: string) => `$projections-${name}-order`,
} as const;

export const ProjectionEventTypes = {
  Initialized: '$ProjectionsInitialized',
  Created: '$ProjectionCreated',
  Deleted: '$ProjectionDeleted',
  Updated: '$ProjectionUpdated',
  Checkpoint: '$ProjectionCheckpoint',
  PartitionCheckpoint: '$Checkpoint',
  StreamTracked: '$StreamTracked',
  Partition: '$partition',
  Result: 'Result',
  ResultRemoved: 'ResultRemoved',
  /** `$stream_by_category`'s stream reference: data is a stream name. */
  StreamReference: '$@',
} as const;

/** The five standard projections, in the order EventStoreDB registers them (their ids are 1 to 5). */
export const SystemProjectionNames = {
  Streams: '$streams',
  StreamByCategory: '$stream_by_category',
  ByCategory: '$by_category',
  ByEventType: '$by_event_type',
  ByCorrelationId: '$by_correlation_id',
} as const;
export type SystemProjectionName = (typeof SystemProjectionNames)[keyof typeof SystemProjectionNames];

/** The subsystem version EventStoreDB writes last in `$v` (content-type validation is on from 4). */
export const PROJECTION_SUBSYSTEM_VERSION = 4;

export function isSystemProjectionName(name: string): boolean {
  return name.startsWith('$');
}
