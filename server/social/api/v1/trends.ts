// https://docs.joinmastodon.org/methods/trends/
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SocialContext } from '../../context.ts';
import { serializeAdminTrendsLink, serializeTrendsLink, presentTags } from '../../entities/index.ts';
import { auth, viewer, offsetPage } from '../../http/index.ts';

/**
 * Links many accounts shared lately with their week of shares: those staff allowed (the public list), or
 * with `review` every candidate, as staff review them (REST::Admin::Trends::LinkSerializer: id, requires_review).
 */
export function linkTrends(
  ctx: SocialContext,
  review: boolean,
  limit: number,
  offset: number,
): Record<string, unknown>[] {
  const usage = ctx.store.trends.links({ allowedOnly: !review, limit, offset });
  const history = ctx.store.trends.linkHistory(usage.map((u) => u.card.id));
  return usage.map((u) =>
    (review ? serializeAdminTrendsLink : serializeTrendsLink)(ctx.urls, u.card, history.get(u.card.id)!),
  );
}

export function trendRoutes(app: FastifyInstance, ctx: SocialContext): void {
  const tags = (req: FastifyRequest, reply: FastifyReply) =>
    offsetPage(req, reply, ctx.urls, 10, 20, (limit, offset) => {
      const usage = ctx.store.trends.tags({ allowedOnly: true, limit, offset });
      return presentTags(
        ctx.store,
        ctx.urls,
        usage.map((u) => u.tag),
        viewer(req),
      );
    });

  app.get('/api/v1/trends/tags', { config: { auth: auth.optional() } }, async (req, reply) => tags(req, reply));
  app.get('/api/v1/trends', { config: { auth: auth.optional(), deprecated: '2022-03-30' } }, async (req, reply) =>
    tags(req, reply),
  );

  // Links many accounts shared lately, once staff allowed them (Trends::Link: the card and its week of shares).
  app.get('/api/v1/trends/links', { config: { auth: auth.optional() } }, async (req, reply) =>
    offsetPage(req, reply, ctx.urls, 10, 20, (limit, offset) => linkTrends(ctx, false, limit, offset)),
  );

  app.get('/api/v1/trends/statuses', { config: { auth: auth.optional('read:statuses') } }, async (req, reply) =>
    offsetPage(req, reply, ctx.urls, 20, 40, (limit, offset) => {
      const me = viewer(req);
      const rows = ctx.store.trends.statuses({ allowedOnly: true, limit, offset });
      const readable = me
        ? ctx.store.timelines.readableIds(
            ctx.store.timelines.scope(me.id),
            rows.map((s) => s.id),
          )
        : null;
      return ctx.statusPresenter.present(readable ? rows.filter((s) => readable.has(s.id)) : rows, me, {
        context: 'public',
      });
    }),
  );
}
