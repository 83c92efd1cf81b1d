// https://docs.joinmastodon.org/methods/notifications/ (v1)
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../context.ts';
import { presentNotifications } from '../../entities/index.ts';
import { notFound } from '../../errors.ts';
import {
  auth,
  currentUser,
  pageQuery,
  setLinkHeader,
  parseParams,
  pathId,
  requestParams,
  zBool,
  zId,
  zInt,
  zList,
  zString,
} from '../../http/index.ts';

const listSchema = z.object({
  types: zList(zString, 50).optional(),
  exclude_types: zList(zString, 50).optional(),
  account_id: z.preprocess((v) => (v === '' ? undefined : v), zId.optional()),
  include_filtered: zBool.optional(),
});

export function notificationRoutes(app: FastifyInstance, ctx: SocialContext): void {
  app.get('/api/v1/notifications', { config: { auth: auth.user('read:notifications') } }, async (req, reply) => {
    const { account } = currentUser(req);
    const params = requestParams(req);
    const p = parseParams(listSchema, params);
    const page = pageQuery(params, 40, 80);
    const rows = ctx.store.notifications.list(
      account.id,
      {
        types: p.types,
        excludeTypes: p.exclude_types,
        fromAccountId: p.account_id,
        includeFiltered: p.include_filtered,
      },
      page,
    );
    setLinkHeader(
      req,
      reply,
      ctx.urls,
      rows.map((r) => r.id),
      page,
    );
    // Notifications about statuses a hide filter covers in the notifications context are left out.
    const statuses = new Map(ctx.store.statuses.byIds(rows.flatMap((n) => n.statusId ?? [])).map((s) => [s.id, s]));
    const shown = ctx.filters.visible(
      account,
      rows,
      (n) => (n.statusId ? (statuses.get(n.statusId) ?? null) : null),
      'notifications',
    );
    return presentNotifications(ctx.store, ctx.presenter, ctx.statusPresenter, shown, account);
  });

  // Unread notifications after the notifications marker (Mastodon 4.3), capped at `limit`.
  app.get('/api/v1/notifications/unread_count', { config: { auth: auth.user('read:notifications') } }, async (req) => {
    const { account } = currentUser(req);
    const { limit } = parseParams(z.object({ limit: zInt.optional() }), requestParams(req));
    const cap = Math.min(Math.max(limit ?? 100, 1), 1000);
    return {
      count: ctx.store.notifications.countAfter(
        account.id,
        ctx.store.markers.lastReadId(account.id, 'notifications'),
        cap,
      ),
    };
  });

  app.get('/api/v1/notifications/:id', { config: { auth: auth.user('read:notifications') } }, async (req) => {
    const { account } = currentUser(req);
    const row = ctx.store.notifications.byId(account.id, pathId(req));
    const json = row
      ? presentNotifications(ctx.store, ctx.presenter, ctx.statusPresenter, [row], account)[0]
      : undefined;
    if (!json) throw notFound();
    return json;
  });

  app.post('/api/v1/notifications/clear', { config: { auth: auth.user('write:notifications') } }, async (req) => {
    const { account } = currentUser(req);
    ctx.notifications.clear(account.id);
    return {};
  });

  // Routed by Mastodon though undocumented: the notifications named by `ids[]` (the caller's own) go.
  app.delete(
    '/api/v1/notifications/destroy_multiple',
    { config: { auth: auth.user('write:notifications') } },
    async (req) => {
      const { account } = currentUser(req);
      const { ids } = parseParams(z.object({ ids: zList(zId, 100).optional() }), requestParams(req));
      ctx.notifications.dismissMany(account.id, ids ?? []);
      return {};
    },
  );

  app.post('/api/v1/notifications/:id/dismiss', { config: { auth: auth.user('write:notifications') } }, async (req) => {
    const { account } = currentUser(req);
    if (!ctx.notifications.dismiss(account.id, pathId(req))) throw notFound();
    return {};
  });
}
