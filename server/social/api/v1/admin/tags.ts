// Mastodon's admin hashtags (Api::V1::Admin::TagsController, routed though undocumented): every tag with staff's
// review, and the review changed (display name, trendable, usable, listable).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../../context.ts';
import { PERMISSION, presentAdminTags } from '../../../entities/index.ts';
import { notFound } from '../../../errors.ts';
import {
  auth,
  currentStaff,
  pageQuery,
  setLinkHeader,
  parseParams,
  pathId,
  requestParams,
  zBool,
  zString,
} from '../../../http/index.ts';
import type { TagRow } from '../../../store/index.ts';
import { UPDATE_METHODS } from '../../update-methods.ts';

const reviewSchema = z.object({
  display_name: zString.optional(),
  trendable: zBool.optional(),
  usable: zBool.optional(),
  listable: zBool.optional(),
});

export function adminTagRoutes(app: FastifyInstance, ctx: SocialContext): void {
  const present = (tags: TagRow[]) => presentAdminTags(ctx.store, ctx.urls, tags);
  const tagOf = (req: FastifyRequest) => {
    const tag = ctx.store.tags.byId(pathId(req));
    if (!tag) throw notFound();
    return tag;
  };

  app.get('/api/v1/admin/tags', { config: { auth: auth.user('admin:read') } }, async (req, reply) => {
    currentStaff(req, PERMISSION.manageTaxonomies);
    const page = pageQuery(requestParams(req), 100, 200);
    const tags = ctx.store.tags.page(page);
    setLinkHeader(
      req,
      reply,
      ctx.urls,
      tags.map((t) => t.id),
      page,
    );
    return present(tags);
  });

  app.get('/api/v1/admin/tags/:id', { config: { auth: auth.user('admin:read') } }, async (req) => {
    currentStaff(req, PERMISSION.manageTaxonomies);
    return present([tagOf(req)])[0];
  });

  app.route({
    method: UPDATE_METHODS,
    url: '/api/v1/admin/tags/:id',
    config: { auth: auth.user('admin:write') },
    handler: async (req) => {
      currentStaff(req, PERMISSION.manageTaxonomies);
      const tag = tagOf(req);
      const p = parseParams(reviewSchema, requestParams(req));
      const reviewed = ctx.tags.review(tag.id, {
        displayName: p.display_name,
        trendable: p.trendable,
        usable: p.usable,
        listable: p.listable,
      });
      return present([reviewed])[0];
    },
  });
}
