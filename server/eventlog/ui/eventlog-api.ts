import type { FastifyPluginAsync } from 'fastify';
import { allRoutes } from './all.ts';
import type { UiSessions } from '../../http/index.ts';
import { connectionRoutes } from './connections.ts';
import { UiApiError } from './ui-errors.ts';
import { type EventLogUiDeps } from './eventlog-context.ts';
import { eventLogTokenRoutes } from './eventlog-tokens.ts';
import { eventLogUserRoutes } from './eventlog-users.ts';
import { eventRoutes } from './events.ts';
import { DEFAULT_LIVE_LIMITS, liveRoutes, type LiveTailLimits } from './live.ts';
import { metadataRoutes } from './metadata.ts';
import { persistentGroupRoutes } from './persistent-groups.ts';
import { projectionRoutes } from './projections.ts';
import { replicationRoutes } from './replications.ts';
import { scavengeRoutes } from './scavenge.ts';
import { streamRoutes } from './streams.ts';

export type { EventLogUiDeps } from './eventlog-context.ts';

/** The event-log pages of the UI API (streams, events, `$all`, live tails, subscriptions, users), all owner-only. */
export function eventLogUiRoutes(
  deps: EventLogUiDeps,
  options: { live?: LiveTailLimits } = {},
): FastifyPluginAsync<{ sessions: UiSessions }> {
  return async (app, { sessions }) => {
    app.setErrorHandler((err, _req, reply) =>
      err instanceof UiApiError ? reply.code(err.status).send({ error: err.message }) : reply.send(err),
    );
    streamRoutes(app, sessions, deps);
    eventRoutes(app, sessions, deps);
    metadataRoutes(app, sessions, deps);
    allRoutes(app, sessions, deps);
    liveRoutes(app, sessions, deps, options.live ?? DEFAULT_LIVE_LIMITS);
    connectionRoutes(app, sessions, deps);
    persistentGroupRoutes(app, sessions, deps);
    eventLogUserRoutes(app, sessions, deps);
    eventLogTokenRoutes(app, sessions, deps);
    replicationRoutes(app, sessions, deps);
    scavengeRoutes(app, sessions, deps);
    projectionRoutes(app, sessions, deps);
  };
}
