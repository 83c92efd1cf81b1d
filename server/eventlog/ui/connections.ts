import type { FastifyInstance } from 'fastify';
import { requireOwner, type UiSessions } from '../../http/index.ts';
import type { EventLogUiDeps } from './eventlog-context.ts';

/** Connected TCP clients and volatile (live) subscriptions. Rates are left to the page: it samples and divides. */
export function connectionRoutes(app: FastifyInstance, sessions: UiSessions, deps: EventLogUiDeps): void {
  const auth = { onRequest: requireOwner(sessions) };

  // Events written since the server started (system streams left out), for the pages' charts of the write rate.
  let eventsWritten = 0;
  const stopCounting = deps.store.onCommitted((batch) => {
    for (const e of batch.events) if (!e.streamId.startsWith('$')) eventsWritten++;
  });
  app.addHook('onClose', async () => stopCounting());

  app.get('/eventlog/activity', auth, async () => ({ sampledAt: Date.now(), eventsWritten }));

  app.get('/eventlog/connections', auth, async () => ({
    sampledAt: Date.now(),
    connections: deps.connections().map((c) => ({ ...c })),
  }));

  app.get('/eventlog/subscriptions', auth, async () => {
    const subs = deps.subscriptions();
    return { sampledAt: Date.now(), available: subs !== null, subscriptions: subs ? subs.listVolatile() : [] };
  });
}
