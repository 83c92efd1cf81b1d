// https://docs.joinmastodon.org/methods/follow_requests/
import type { FastifyInstance } from 'fastify';
import type { SocialContext } from '../../context.ts';
import { notFound } from '../../errors.ts';
import { auth, currentUser, pageQuery, setLinkHeader, pathId, requestParams } from '../../http/index.ts';
import { relationshipJson } from './accounts/relationships.ts';

export function followRequestRoutes(app: FastifyInstance, ctx: SocialContext): void {
  app.get('/api/v1/follow_requests', { config: { auth: auth.user('read:follows') } }, async (req, reply) => {
    const { account } = currentUser(req);
    const page = pageQuery(requestParams(req), 40, 80);
    const rows = ctx.store.relationships.incomingFollowRequests(account.id, page);
    setLinkHeader(
      req,
      reply,
      ctx.urls,
      rows.map((r) => r.cursor),
      page,
    );
    return ctx.presenter.listed(rows);
  });

  app.post(
    '/api/v1/follow_requests/:account_id/authorize',
    { config: { auth: auth.user('write:follows') } },
    async (req) => {
      const { account: me } = currentUser(req);
      const requester = ctx.store.accounts.byId(pathId(req, 'account_id'));
      if (!requester) throw notFound();
      ctx.relationships.authorizeFollowRequest(me, requester);
      return relationshipJson(ctx, me, requester.id);
    },
  );

  app.post(
    '/api/v1/follow_requests/:account_id/reject',
    { config: { auth: auth.user('write:follows') } },
    async (req) => {
      const { account: me } = currentUser(req);
      const requester = ctx.store.accounts.byId(pathId(req, 'account_id'));
      if (!requester) throw notFound();
      ctx.relationships.rejectFollowRequest(me, requester);
      return relationshipJson(ctx, me, requester.id);
    },
  );
}
