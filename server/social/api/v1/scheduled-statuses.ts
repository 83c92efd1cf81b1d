// https://docs.joinmastodon.org/methods/scheduled_statuses/
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../context.ts';
import { presentScheduled } from '../../entities/index.ts';
import {
  auth,
  currentUser,
  pageQuery,
  setLinkHeader,
  parseParams,
  pathId,
  requestParams,
  zString,
} from '../../http/index.ts';
import { UPDATE_METHODS } from '../update-methods.ts';

export function scheduledStatusRoutes(app: FastifyInstance, ctx: SocialContext): void {
  const own = (req: FastifyRequest) => ctx.scheduledStatuses.own(currentUser(req).account, pathId(req));

  app.get('/api/v1/scheduled_statuses', { config: { auth: auth.user('read:statuses') } }, async (req, reply) => {
    const { account } = currentUser(req);
    const page = pageQuery(requestParams(req), 20, 40);
    const rows = ctx.store.scheduled.list(account.id, page);
    setLinkHeader(
      req,
      reply,
      ctx.urls,
      rows.map((r) => r.id),
      page,
    );
    return presentScheduled(ctx.store, ctx.urls, rows);
  });

  app.get(
    '/api/v1/scheduled_statuses/:id',
    { config: { auth: auth.user('read:statuses') } },
    async (req) => presentScheduled(ctx.store, ctx.urls, [own(req)])[0],
  );

  app.route({
    method: UPDATE_METHODS,
    url: '/api/v1/scheduled_statuses/:id',
    config: { auth: auth.user('write:statuses') },
    handler: async (req) => {
      const row = own(req);
      const { scheduled_at: value } = parseParams(z.object({ scheduled_at: zString }), requestParams(req));
      const moved = ctx.scheduledStatuses.reschedule(currentUser(req).account, row.id, Date.parse(value));
      return presentScheduled(ctx.store, ctx.urls, [moved])[0];
    },
  });

  app.delete('/api/v1/scheduled_statuses/:id', { config: { auth: auth.user('write:statuses') } }, async (req) => {
    ctx.scheduledStatuses.cancel(currentUser(req).account, pathId(req));
    return {};
  });
}
