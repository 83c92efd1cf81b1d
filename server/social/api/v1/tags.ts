// https://docs.joinmastodon.org/methods/tags/, /methods/followed_tags/, /methods/featured_tags/
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../context.ts';
import { presentTags, serializeFeaturedTag } from '../../entities/tag.ts';
import { notFound, ValidationFailure } from '../../errors.ts';
import { auth, currentUser, viewer } from '../../http/auth.ts';
import { pageQuery, setLinkHeader } from '../../http/pagination.ts';
import { parseParams, pathId, requestParams, zString } from '../../http/params.ts';
import { LIMITS } from '../../limits.ts';
import type { Account, TagRow } from '../../store/index.ts';

/** A hashtag name as Mastodon accepts one: letters, digits, marks, underscores and middle dots. */
const TAG_NAME = /^[\p{L}\p{N}\p{M}_·]{1,100}$/u;

export function tagRoutes(app: FastifyInstance, ctx: SocialContext): void {
  const present = (tags: TagRow[], me: Account | null) => presentTags(ctx.store, ctx.urls, tags, me);

  /** The tag named in the path; a valid name never used yet is created (as Mastodon's find_or_create). */
  const tagOf = (req: FastifyRequest, create: boolean): TagRow => {
    const name = decodeURIComponent(
      (req.params as { name?: string; id?: string }).name ?? (req.params as { id: string }).id,
    ).replace(/^#/, '');
    if (!TAG_NAME.test(name)) throw notFound();
    const existing = ctx.store.tags.byName(name);
    if (existing) return existing;
    if (!create) throw notFound();
    return ctx.store.tags.byId(ctx.store.statuses.tagId(name, true)!)!;
  };

  app.get(
    '/api/v1/tags/:name',
    { config: { auth: auth.optional() } },
    async (req) => present([tagOf(req, false)], viewer(req))[0],
  );

  app.post('/api/v1/tags/:name/follow', { config: { auth: auth.user('write:follows') } }, async (req) => {
    const { account } = currentUser(req);
    const tag = tagOf(req, true);
    ctx.store.tags.follow(account.id, tag.id);
    return present([tag], account)[0];
  });

  app.post('/api/v1/tags/:name/unfollow', { config: { auth: auth.user('write:follows') } }, async (req) => {
    const { account } = currentUser(req);
    const tag = tagOf(req, false);
    ctx.store.tags.unfollow(account.id, tag.id);
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

  const feature = (account: Account, tag: TagRow) => {
    const featured = ctx.store.tags.featured(account.id);
    if (!featured.some((f) => f.tag.id === tag.id) && featured.length >= LIMITS.accounts.max_featured_tags) {
      throw ValidationFailure.single(
        'featured_tag',
        'ERR_TOO_LONG',
        `you cannot feature more than ${LIMITS.accounts.max_featured_tags} hashtags`,
      );
    }
    const row = ctx.store.tags.feature(account.id, tag.id);
    // Other servers re-read the featured collections when the profile is updated.
    ctx.events.emit('account.updated', { accountId: account.id });
    return row;
  };
  const unfeature = (account: Account, tagId: string) => {
    ctx.store.tags.unfeature(account.id, tagId);
    ctx.events.emit('account.updated', { accountId: account.id });
  };

  app.post('/api/v1/tags/:name/feature', { config: { auth: auth.user('write:accounts') } }, async (req) => {
    const { account } = currentUser(req);
    const tag = tagOf(req, true);
    feature(account, tag);
    return present([tag], account)[0];
  });

  app.post('/api/v1/tags/:name/unfeature', { config: { auth: auth.user('write:accounts') } }, async (req) => {
    const { account } = currentUser(req);
    const tag = tagOf(req, false);
    unfeature(account, tag.id);
    return present([tag], account)[0];
  });

  app.get('/api/v1/featured_tags', { config: { auth: auth.user('read:accounts') } }, async (req) => {
    const { account } = currentUser(req);
    return ctx.store.tags.featured(account.id).map((f) => serializeFeaturedTag(ctx.presenter.profileUrl(account), f));
  });

  app.post('/api/v1/featured_tags', { config: { auth: auth.user('write:accounts') } }, async (req) => {
    const { account } = currentUser(req);
    const { name } = parseParams(z.object({ name: zString }), requestParams(req));
    const clean = name.trim().replace(/^#/, '');
    if (!TAG_NAME.test(clean)) throw ValidationFailure.single('name', 'ERR_INVALID', 'is not a valid hashtag');
    const tag = ctx.store.tags.byName(clean) ?? ctx.store.tags.byId(ctx.store.statuses.tagId(clean, true)!)!;
    return serializeFeaturedTag(ctx.presenter.profileUrl(account), feature(account, tag));
  });

  app.delete('/api/v1/featured_tags/:id', { config: { auth: auth.user('write:accounts') } }, async (req) => {
    const { account } = currentUser(req);
    const featured = ctx.store.tags.featuredById(account.id, pathId(req));
    if (!featured) throw notFound();
    unfeature(account, featured.tag.id);
    return {};
  });

  app.get('/api/v1/featured_tags/suggestions', { config: { auth: auth.user('read:accounts') } }, async (req) => {
    const { account } = currentUser(req);
    return present(ctx.store.tags.recentlyUsed(account.id, 10), account);
  });
}
