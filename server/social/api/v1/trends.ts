// https://docs.joinmastodon.org/methods/trends/
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../context.ts';
import { serializeAdminTrendsLink, serializeTrendsLink } from '../../entities/preview-card.ts';
import { serializeTag } from '../../entities/tag.ts';
import { auth, viewer } from '../../http/auth.ts';
import { parseParams, requestParams, zInt } from '../../http/params.ts';

const pageSchema = z.object({ limit: zInt.optional(), offset: zInt.optional() });

/** Offset pagination with a `next` Link while pages are full (Mastodon's for trends, the admin's too). */
export function offsetPage(
  ctx: SocialContext,
  req: FastifyRequest,
  reply: FastifyReply,
  defaultLimit: number,
  maxLimit: number,
  found: (limit: number, offset: number) => unknown[],
): unknown[] {
  const p = parseParams(pageSchema, requestParams(req));
  const limit = Math.min(Math.max(p.limit ?? defaultLimit, 1), maxLimit);
  const offset = Math.max(p.offset ?? 0, 0);
  const rows = found(limit, offset);
  if (rows.length === limit) {
    const url = new URL(req.url, ctx.urls.base);
    url.searchParams.set('offset', String(offset + limit));
    reply.header('Link', `<${ctx.urls.base}${url.pathname}${url.search}>; rel="next"`);
  }
  return rows;
}

/**
 * Links many accounts shared lately with their week of shares: those staff allowed (the public list), or
 * with `review` every candidate, as staff review them (REST::Admin::Trends::LinkSerializer: id, requires_review).
 */
export function linkTrends(ctx: SocialContext, review: boolean, limit: number, offset: number): Record<string, unknown>[] {
  const usage = ctx.store.trends.links({ allowedOnly: !review, limit, offset });
  const history = ctx.store.trends.linkHistory(usage.map((u) => u.card.id));
  return usage.map((u) => (review ? serializeAdminTrendsLink : serializeTrendsLink)(ctx.urls, u.card, history.get(u.card.id)!));
}

export function trendRoutes(app: FastifyInstance, ctx: SocialContext): void {
  const tags = (req: FastifyRequest, reply: FastifyReply) =>
    offsetPage(ctx, req, reply, 10, 20, (limit, offset) => {
      const usage = ctx.store.trends.tags({ allowedOnly: true, limit, offset });
      const history = ctx.store.search.tagHistory(usage.map((u) => u.tag.id));
      const me = viewer(req);
      const following = me ? ctx.store.tags.followedAmong(me.id, usage.map((u) => u.tag.id)) : null;
      return usage.map((u) => serializeTag(ctx.urls, u.tag, history.get(u.tag.id)!, following ? following.has(u.tag.id) : null));
    });

  app.get('/api/v1/trends/tags', { config: { auth: auth.optional() } }, async (req, reply) => tags(req, reply));
  app.get('/api/v1/trends', { config: { auth: auth.optional(), deprecated: '2022-03-30' } }, async (req, reply) => tags(req, reply));

  // Links many accounts shared lately, once staff allowed them (Trends::Link: the card and its week of shares).
  app.get('/api/v1/trends/links', { config: { auth: auth.optional() } }, async (req, reply) => offsetPage(ctx, req, reply, 10, 20, (limit, offset) => linkTrends(ctx, false, limit, offset)));

  app.get('/api/v1/trends/statuses', { config: { auth: auth.optional('read:statuses') } }, async (req, reply) =>
    offsetPage(ctx, req, reply, 20, 40, (limit, offset) => {
      const me = viewer(req);
      const rows = ctx.store.trends.statuses({ limit, offset });
      const readable = me ? ctx.store.timelines.readableIds(ctx.store.timelines.scope(me.id), rows.map((s) => s.id)) : null;
      return ctx.statusPresenter.present(readable ? rows.filter((s) => readable.has(s.id)) : rows, me, { context: 'public' });
    }),
  );
}
