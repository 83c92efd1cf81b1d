// https://docs.joinmastodon.org/methods/scheduled_statuses/
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../context.ts';
import { MIN_SCHEDULE_OFFSET_MS } from '../../domain/statuses/index.ts';
import { presentScheduled } from '../../entities/scheduled-status.ts';
import { notFound, ValidationFailure } from '../../errors.ts';
import { auth, currentUser } from '../../http/auth.ts';
import { pageQuery, setLinkHeader } from '../../http/pagination.ts';
import { parseParams, pathId, requestParams, zString } from '../../http/params.ts';
import { UPDATE_METHODS } from '../update-methods.ts';

export function scheduledStatusRoutes(app: FastifyInstance, ctx: SocialContext): void {
  const own = (req: FastifyRequest) => {
    const { account } = currentUser(req);
    const row = ctx.store.scheduled.byId(pathId(req));
    if (!row || row.accountId !== account.id) throw notFound();
    return row;
  };

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
      const at = Date.parse(value);
      if (Number.isNaN(at))
        throw ValidationFailure.single('scheduled_at', 'ERR_INVALID', 'is not a valid date and time');
      if (at < ctx.store.now() + MIN_SCHEDULE_OFFSET_MS)
        throw ValidationFailure.single('scheduled_at', 'ERR_INVALID', 'must be at least 5 minutes in the future');
      ctx.store.scheduled.reschedule(row.id, at);
      ctx.jobs.reschedule();
      return presentScheduled(ctx.store, ctx.urls, [ctx.store.scheduled.byId(row.id)!])[0];
    },
  });

  app.delete('/api/v1/scheduled_statuses/:id', { config: { auth: auth.user('write:statuses') } }, async (req) => {
    const row = own(req);
    ctx.store.scheduled.delete(row.id);
    return {};
  });
}
