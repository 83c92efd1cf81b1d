// https://docs.joinmastodon.org/methods/tags/, /methods/followed_tags/, /methods/featured_tags/
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../context.ts';
import { presentTags, serializeFeaturedTag } from '../../entities/index.ts';
import { notFound } from '../../errors.ts';
import {
  auth,
  currentUser,
  viewer,
  pageQuery,
  setLinkHeader,
  parseParams,
  pathId,
  requestParams,
  zString,
} from '../../http/index.ts';
import type { Account, TagRow } from '../../store/index.ts';

export function tagRoutes(app: FastifyInstance, ctx: SocialContext): void {
  const present = (tags: TagRow[], me: Account | null) => presentTags(ctx.store, ctx.urls, tags, me);

  /** The tag named in the path; a valid name never used yet is created when `create` (as Mastodon's find_or_create). */
  const tagOf = (req: FastifyRequest, create: boolean): TagRow => {
    const params = req.params as { name?: string; id?: string };
    return ctx.tags.named(decodeURIComponent(params.name ?? params.id ?? ''), create);
  };

  app.get(
    '/api/v1/tags/:name',
    { config: { auth: auth.optional() } },
    async (req) => present([tagOf(req, false)], viewer(req))[0],
  );

  app.post('/api/v1/tags/:name/follow', { config: { auth: auth.user('write:follows') } }, async (req) => {
    const { account } = currentUser(req);
    const tag = tagOf(req, true);
    ctx.tags.follow(account, tag);
    return present([tag], account)[0];
  });

  app.post('/api/v1/tags/:name/unfollow', { config: { auth: auth.user('write:follows') } }, async (req) => {
    const { account } = currentUser(req);
    const tag = tagOf(req, false);
    ctx.tags.unfollow(account, tag);
    return present([tag], account)[0];
  });

  app.get('/api/v1/followed_tags', { config: { auth: auth.user('read:follows') } }, async (req, reply) => {
    const { account } = currentUser(req);
    const page = pageQuery(requestParams(req), 100, 200);
    const rows = ctx.store.tags.followed(account.id, page);
    setLinkHeader(
      req,
      reply,
      ctx.urls,
      rows.map((r) => r.cursor),
      page,
    );
    return present(
      rows.map((r) => r.tag),
      account,
    );
  });

  app.post('/api/v1/tags/:name/feature', { config: { auth: auth.user('write:accounts') } }, async (req) => {
    const { account } = currentUser(req);
    const tag = tagOf(req, true);
    ctx.tags.feature(account, tag);
    return present([tag], account)[0];
  });

  app.post('/api/v1/tags/:name/unfeature', { config: { auth: auth.user('write:accounts') } }, async (req) => {
    const { account } = currentUser(req);
    const tag = tagOf(req, false);
    ctx.tags.unfeature(account, tag.id);
    return present([tag], account)[0];
  });

  app.get('/api/v1/featured_tags', { config: { auth: auth.user('read:accounts') } }, async (req) => {
    const { account } = currentUser(req);
    return ctx.store.tags.featured(account.id).map((f) => serializeFeaturedTag(ctx.presenter.profileUrl(account), f));
  });

  app.post('/api/v1/featured_tags', { config: { auth: auth.user('write:accounts') } }, async (req) => {
    const { account } = currentUser(req);
    const { name } = parseParams(z.object({ name: zString }), requestParams(req));
    return serializeFeaturedTag(ctx.presenter.profileUrl(account), ctx.tags.featureNamed(account, name));
  });

  app.delete('/api/v1/featured_tags/:id', { config: { auth: auth.user('write:accounts') } }, async (req) => {
    const { account } = currentUser(req);
    const featured = ctx.store.tags.featuredById(account.id, pathId(req));
    if (!featured) throw notFound();
    ctx.tags.unfeature(account, featured.tag.id);
    return {};
  });

  app.get('/api/v1/featured_tags/suggestions', { config: { auth: auth.user('read:accounts') } }, async (req) => {
    const { account } = currentUser(req);
    return present(ctx.store.tags.recentlyUsed(account.id, 10), account);
  });
}
