// https://docs.joinmastodon.org/methods/accounts/ (followers, following, endorsements, featured_tags, lists)
import type { FastifyInstance } from 'fastify';
import type { SocialContext } from '../../../context.ts';
import { serializeList, serializeFeaturedTag } from '../../../entities/index.ts';
import { auth, currentUser, viewer, pageQuery, setLinkHeader, pathId, requestParams } from '../../../http/index.ts';
import type { Account } from '../../../store/index.ts';

export function accountCollectionRoutes(app: FastifyInstance, ctx: SocialContext): void {
  /**
   * Whether `target`'s collections are hidden from the caller: suspended accounts, accounts that hide them
   * (except from themselves), and accounts that block the caller show nothing.
   */
  function hidden(target: Account, me: Account | null): boolean {
    if (target.suspendedAt !== null) return true;
    if (me && me.id === target.id) return false;
    if (target.hideCollections) return true;
    return me !== null && ctx.store.relationships.blocking(target.id, me.id);
  }

  for (const kind of ['followers', 'following'] as const) {
    app.get(
      `/api/v1/accounts/:id/${kind}`,
      { config: { auth: auth.optional('read:accounts') } },
      async (req, reply) => {
        const target = ctx.relationships.visibleAccount(pathId(req));
        const me = viewer(req);
        const page = pageQuery(requestParams(req), 40, 80);
        if (hidden(target, me)) return [];
        const rows =
          kind === 'followers'
            ? ctx.store.relationships.followers(target.id, me?.id ?? null, page)
            : ctx.store.relationships.following(target.id, me?.id ?? null, page);
        setLinkHeader(
          req,
          reply,
          ctx.urls,
          rows.map((r) => r.cursor),
          page,
        );
        return ctx.presenter.listed(rows);
      },
    );
  }

  app.get(
    '/api/v1/accounts/:id/endorsements',
    { config: { auth: auth.optional('read:accounts') } },
    async (req, reply) => {
      const target = ctx.relationships.visibleAccount(pathId(req));
      const me = viewer(req);
      const page = pageQuery(requestParams(req), 40, 80);
      if (target.suspendedAt !== null || (me && ctx.store.relationships.blocking(target.id, me.id))) return [];
      const rows = ctx.store.relationships.endorsements(target.id, me?.id ?? null, page);
      setLinkHeader(
        req,
        reply,
        ctx.urls,
        rows.map((r) => r.cursor),
        page,
      );
      return ctx.presenter.listed(rows);
    },
  );

  // The caller's own featured accounts.
  app.get('/api/v1/endorsements', { config: { auth: auth.user('read:accounts') } }, async (req, reply) => {
    const { account } = currentUser(req);
    const page = pageQuery(requestParams(req), 40, 80);
    const rows = ctx.store.relationships.endorsements(account.id, account.id, page);
    setLinkHeader(
      req,
      reply,
      ctx.urls,
      rows.map((r) => r.cursor),
      page,
    );
    return ctx.presenter.listed(rows);
  });

  app.get('/api/v1/accounts/:id/featured_tags', { config: { auth: auth.optional('read:accounts') } }, async (req) => {
    const target = ctx.relationships.visibleAccount(pathId(req));
    if (target.suspendedAt !== null) return [];
    return ctx.store.tags.featured(target.id).map((f) => serializeFeaturedTag(ctx.presenter.profileUrl(target), f));
  });

  // The caller's lists that contain the account.
  app.get('/api/v1/accounts/:id/lists', { config: { auth: auth.user('read:lists') } }, async (req) => {
    const { account: me } = currentUser(req);
    const target = ctx.relationships.visibleAccount(pathId(req));
    return ctx.store.lists.holding(me.id, target.id).map(serializeList);
  });
}
