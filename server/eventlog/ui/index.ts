/** The event log's pages of the owner's UI: their routes, and the sources they read the live subsystems through. */
export { eventLogUiRoutes } from './eventlog-api.ts';
export { eventLogUiDeps } from './eventlog-sources.ts';
