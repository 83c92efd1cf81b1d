/**
 * The event log's UI API as the renderer sees it: types only. The renderer imports this file and nothing
 * else of the event log, so the store and the routes can change behind it.
 */
export type { UiEvent, UiPayload } from './ui-payloads.ts';
export type {
  UiGroupSummary,
  UiGroupDetail,
  UiGroupSettings,
  UiVolatileSubscription,
  UiConnectionSource,
} from './eventlog-context.ts';
export type { StreamPage } from './events.ts';
export type { AllPage } from './all.ts';
export type { LiveMessage } from './live.ts';
export type { UiReplication } from './replications.ts';
export type { UiScavengeStatus } from './scavenge.ts';
export type {
  UiProjectionSummary,
  UiProjectionDetail,
  UiProjectionState,
  UiProjectionConfig,
} from './projections.ts';
export type { StreamMetadata, Position, StreamSummary as UiStreamSummary } from '../store/index.ts';
