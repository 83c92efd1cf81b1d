// https://docs.joinmastodon.org/methods/conversations/
import type { FastifyInstance } from 'fastify';
import type { SocialContext } from '../../context.ts';
import { presentConversations } from '../../entities/index.ts';
import { auth, currentUser, pageQuery, setLinkHeader, pathId, requestParams } from '../../http/index.ts';

/** Direct-message threads; the Link cursors are the ids of each thread's last status. */
export function conversationRoutes(app: FastifyInstance, ctx: SocialContext): void {
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
        const { account } = currentUser(req);
        const row = ctx.conversations.setUnread(account, pathId(req), unread);
        return presentConversations(ctx.store, ctx.presenter, ctx.statusPresenter, [row], account)[0];
      },
    );
  }

  app.delete('/api/v1/conversations/:id', { config: { auth: auth.user('write:conversations') } }, async (req) => {
    ctx.conversations.remove(currentUser(req).account, pathId(req));
    return {};
  });
}
