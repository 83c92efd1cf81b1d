// https://docs.joinmastodon.org/methods/bookmarks/
import type { FastifyInstance } from 'fastify';
import type { SocialContext } from '../../context.ts';
import { auth, currentUser, pageQuery, setLinkHeader, requestParams } from '../../http/index.ts';

/** The caller's bookmarks, newest first; the Link cursors are bookmarks row ids, not status ids. */
export function bookmarksRoutes(app: FastifyInstance, ctx: SocialContext): void {
  app.get('/api/v1/bookmarks', { config: { auth: auth.user('read:bookmarks') } }, async (req, reply) => {
    const { account } = currentUser(req);
    const page = pageQuery(requestParams(req), 20, 40);
    const rows = ctx.store.timelines.marked('bookmarks', ctx.store.timelines.scope(account.id), page);
    setLinkHeader(
      req,
      reply,
      ctx.urls,
      rows.map((r) => r.cursor),
      page,
    );
    return ctx.statusPresenter.present(
      rows.map((r) => r.status),
      account,
    );
  });
}
