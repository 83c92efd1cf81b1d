// https://docs.joinmastodon.org/methods/statuses/#quotes and #revoke_quote
import type { FastifyInstance } from 'fastify';
import type { SocialContext } from '../../../context.ts';
import { auth, currentUser, viewer, pageQuery, setLinkHeader, pathId, requestParams } from '../../../http/index.ts';

/** The posts quoting a post, and its author taking back the permission to quote it. */
export function statusQuoteRoutes(app: FastifyInstance, ctx: SocialContext): void {
  app.get('/api/v1/statuses/:id/quotes', { config: { auth: auth.optional('read:statuses') } }, async (req, reply) => {
    const me = viewer(req);
    const status = ctx.statuses.readable(me, pathId(req));
    const page = pageQuery(requestParams(req), 20, 40);
    const hits = ctx.store.quotes.quoting(status.id, page);
    setLinkHeader(
      req,
      reply,
      ctx.urls,
      hits.map((h) => h.cursor),
      page,
    );
    // Only the quoting posts this viewer may read (the quoted post's author sees them all the same way).
    const readable = ctx.store.timelines.readableIds(
      ctx.store.timelines.scope(me?.id ?? null),
      hits.map((h) => h.statusId),
    );
    const rows = ctx.store.statuses.byIds(hits.map((h) => h.statusId).filter((id) => readable.has(id)));
    return ctx.statusPresenter.present(rows, me);
  });

  app.post(
    '/api/v1/statuses/:id/quotes/:quoting_status_id/revoke',
    { config: { auth: auth.user('write:statuses') } },
    async (req) => {
      const { account } = currentUser(req);
      const quoting = ctx.statuses.revokeQuote(account, pathId(req), pathId(req, 'quoting_status_id'));
      return ctx.statusPresenter.one(quoting, account);
    },
  );
}
