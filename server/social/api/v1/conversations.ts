// https://docs.joinmastodon.org/methods/conversations/
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SocialContext } from '../../context.ts';
import { presentConversations } from '../../entities/conversation.ts';
import { notFound } from '../../errors.ts';
import { auth, currentUser } from '../../http/auth.ts';
import { pageQuery, setLinkHeader } from '../../http/pagination.ts';
import { pathId, requestParams } from '../../http/params.ts';

/** Direct-message threads; the Link cursors are the ids of each thread's last status. */
export function conversationRoutes(app: FastifyInstance, ctx: SocialContext): void {
  const own = (req: FastifyRequest) => {
    const { account } = currentUser(req);
    const row = ctx.store.conversations.byId(pathId(req));
    if (!row || row.accountId !== account.id) throw notFound();
    return { account, row };
  };

  app.get('/api/v1/conversations', { config: { auth: auth.user('read:statuses') } }, async (req, reply) => {
    const { account } = currentUser(req);
    const page = pageQuery(requestParams(req), 20, 40);
    const rows = ctx.store.conversations.list(account.id, page);
    setLinkHeader(
      req,
      reply,
      ctx.urls,
      rows.map((r) => r.lastStatusId!),
      page,
    );
    return presentConversations(ctx.store, ctx.presenter, ctx.statusPresenter, rows, account);
  });

  for (const [action, unread] of [
    ['read', false],
    ['unread', true],
  ] as const) {
    app.post(
      `/api/v1/conversations/:id/${action}`,
      { config: { auth: auth.user('write:conversations') } },
      async (req) => {
        const { account, row } = own(req);
        ctx.store.conversations.setUnread(row.id, unread);
        return presentConversations(
          ctx.store,
          ctx.presenter,
          ctx.statusPresenter,
          [ctx.store.conversations.byId(row.id)!],
          account,
        )[0];
      },
    );
  }

  app.delete('/api/v1/conversations/:id', { config: { auth: auth.user('write:conversations') } }, async (req) => {
    const { row } = own(req);
    ctx.store.conversations.delete(row.id);
    return {};
  });
}
