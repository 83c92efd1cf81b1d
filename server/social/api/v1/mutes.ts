// https://docs.joinmastodon.org/methods/mutes/
import type { FastifyInstance } from 'fastify';
import type { SocialContext } from '../../context.ts';
import { auth, currentUser, pageQuery, setLinkHeader, requestParams } from '../../http/index.ts';

export function muteRoutes(app: FastifyInstance, ctx: SocialContext): void {
  app.get('/api/v1/mutes', { config: { auth: auth.user('read:mutes') } }, async (req, reply) => {
    const { account } = currentUser(req);
    const page = pageQuery(requestParams(req), 40, 80);
    const rows = ctx.store.relationships.mutes(account.id, page);
    setLinkHeader(
      req,
      reply,
      ctx.urls,
      rows.map((r) => r.cursor),
      page,
    );
    return ctx.presenter.muted(rows);
  });
}
