// https://docs.joinmastodon.org/methods/blocks/
import type { FastifyInstance } from 'fastify';
import type { SocialContext } from '../../context.ts';
import { auth, currentUser, pageQuery, setLinkHeader, requestParams } from '../../http/index.ts';

export function blockRoutes(app: FastifyInstance, ctx: SocialContext): void {
  app.get('/api/v1/blocks', { config: { auth: auth.user('read:blocks') } }, async (req, reply) => {
    const { account } = currentUser(req);
    const page = pageQuery(requestParams(req), 40, 80);
    const rows = ctx.store.relationships.blocks(account.id, page);
    setLinkHeader(
      req,
      reply,
      ctx.urls,
      rows.map((r) => r.cursor),
      page,
    );
    return ctx.presenter.listed(rows);
  });
}
