// https://docs.joinmastodon.org/methods/announcements/
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../context.ts';
import { serializeAnnouncement } from '../../entities/index.ts';
import { auth, currentUser, parseParams, pathId, requestParams, zBool } from '../../http/index.ts';
import { UPDATE_METHODS } from '../update-methods.ts';

export function announcementRoutes(app: FastifyInstance, ctx: SocialContext): void {
  app.get('/api/v1/announcements', { config: { auth: auth.user() } }, async (req) => {
    const { account } = currentUser(req);
    const { with_dismissed: withDismissed } = parseParams(
      z.object({ with_dismissed: zBool.optional() }),
      requestParams(req),
    );
    const rows = ctx.store.announcements.current(account.id, withDismissed ?? false);
    const reactions = ctx.store.announcements.reactions(
      rows.map((r) => r.id),
      account.id,
    );
    return rows.map((r) => serializeAnnouncement(ctx.urls, r, reactions.get(r.id) ?? []));
  });

  app.post('/api/v1/announcements/:id/dismiss', { config: { auth: auth.user('write:accounts') } }, async (req) => {
    ctx.announcements.dismiss(currentUser(req).account, pathId(req));
    return {};
  });

  for (const [method, on] of [
    [UPDATE_METHODS, true],
    [['DELETE'], false],
  ] as const) {
    app.route<{ Params: { id: string; name: string } }>({
      method: [...method],
      url: '/api/v1/announcements/:id/reactions/:name',
      config: { auth: auth.user('write:favourites') },
      handler: async (req) => {
        ctx.announcements.react(currentUser(req).account, pathId(req), decodeURIComponent(req.params.name), on);
        return {};
      },
    });
  }
}
