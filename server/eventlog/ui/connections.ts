import type { FastifyInstance } from 'fastify';
import { requireOwner, type UiSessions } from '../../http/index.ts';
import { ACTIVITY_INTERVAL_MS, ActivityHistory } from './activity.ts';
import type { EventLogUiDeps } from './eventlog-context.ts';

/** Connected TCP clients and volatile (live) subscriptions. Rates are left to the page: it samples and divides. */
export function connectionRoutes(app: FastifyInstance, sessions: UiSessions, deps: EventLogUiDeps): void {
  const auth = { onRequest: requireOwner(sessions) };

  // Events written since the server started (system streams left out), for the pages' charts of the write rate.
  let eventsWritten = 0;
  const stopCounting = deps.store.onCommitted((batch) => {
    for (const e of batch.events) if (!e.streamId.startsWith('$')) eventsWritten++;
  });
  // The charts' last hour, sampled every second whether or not a page is open (activity.ts).
  const history = new ActivityHistory();
  const sample = () => {
    const subs = deps.subscriptions();
    history.record({
      at: Date.now(),
      written: eventsWritten,
      volatile: subs ? subs.listVolatile() : [],
      volatileDelivered: subs?.volatileDelivered(),
      groups: subs ? subs.listGroups() : [],
    });
  };
  sample();
  const timer = setInterval(sample, ACTIVITY_INTERVAL_MS);
  timer.unref();
  app.addHook('onClose', async () => {
    clearInterval(timer);
    stopCounting();
  });

  app.get<{ Querystring: { since?: string } }>('/eventlog/activity', auth, async (req) => {
    const since = Number(req.query.since ?? 0);
    return {
      sampledAt: Date.now(),
      eventsWritten,
      intervalMs: ACTIVITY_INTERVAL_MS,
      samples: history.since(Number.isFinite(since) ? since : 0),
    };
  });

  app.get('/eventlog/connections', auth, async () => ({
    sampledAt: Date.now(),
    connections: deps.connections().map((c) => ({ ...c })),
  }));

  app.get('/eventlog/subscriptions', auth, async () => {
    const subs = deps.subscriptions();
    return { sampledAt: Date.now(), available: subs !== null, subscriptions: subs ? subs.listVolatile() : [] };
  });
}
