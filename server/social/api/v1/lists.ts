// https://docs.joinmastodon.org/methods/lists/
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../context.ts';
import { MAX_LIST_ACCOUNTS } from '../../domain/index.ts';
import { serializeList } from '../../entities/index.ts';
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
  zList,
  zString,
} from '../../http/index.ts';
import { UPDATE_METHODS } from '../update-methods.ts';

const POLICIES = ['followed', 'list', 'none'] as const;

const listSchema = z.object({
  title: zString.optional(),
  replies_policy: z.enum(POLICIES).optional(),
  exclusive: zBool.optional(),
});
const membersSchema = z.object({ account_ids: zList(zId, MAX_LIST_ACCOUNTS) });

export function listRoutes(app: FastifyInstance, ctx: SocialContext): void {
  app.get('/api/v1/lists', { config: { auth: auth.user('read:lists') } }, async (req) =>
    ctx.store.lists.ofOwner(currentUser(req).account.id).map(serializeList),
  );

  app.get('/api/v1/lists/:id', { config: { auth: auth.user('read:lists') } }, async (req) =>
    serializeList(ctx.lists.own(currentUser(req).account, pathId(req))),
  );

  const changes = (p: z.infer<typeof listSchema>) => ({
    title: p.title,
    repliesPolicy: p.replies_policy,
    exclusive: p.exclusive,
  });

  app.post('/api/v1/lists', { config: { auth: auth.user('write:lists') } }, async (req) =>
    serializeList(ctx.lists.create(currentUser(req).account, changes(parseParams(listSchema, requestParams(req))))),
  );

  app.route({
    method: UPDATE_METHODS,
    url: '/api/v1/lists/:id',
    config: { auth: auth.user('write:lists') },
    handler: async (req) => {
      const { account } = currentUser(req);
      const list = ctx.lists.own(account, pathId(req));
      return serializeList(ctx.lists.update(account, list.id, changes(parseParams(listSchema, requestParams(req)))));
    },
  });

  app.delete('/api/v1/lists/:id', { config: { auth: auth.user('write:lists') } }, async (req) => {
    ctx.lists.remove(currentUser(req).account, pathId(req));
    return {};
  });

  app.get('/api/v1/lists/:id/accounts', { config: { auth: auth.user('read:lists') } }, async (req, reply) => {
    const list = ctx.lists.own(currentUser(req).account, pathId(req));
    const params = requestParams(req);
    // limit=0 means every member, as Mastodon's.
    const all = String(params.limit ?? '') === '0';
    const page = pageQuery(all ? { ...params, limit: MAX_LIST_ACCOUNTS } : params, 40, all ? MAX_LIST_ACCOUNTS : 80);
    const rows = ctx.store.lists.members(list.id, page);
    if (!all)
      setLinkHeader(
        req,
        reply,
        ctx.urls,
        rows.map((r) => r.cursor),
        page,
      );
    return ctx.presenter.listed(rows);
  });

  app.post('/api/v1/lists/:id/accounts', { config: { auth: auth.user('write:lists') } }, async (req) => {
    const { account } = currentUser(req);
    const list = ctx.lists.own(account, pathId(req));
    const { account_ids: ids } = parseParams(membersSchema, requestParams(req));
    ctx.lists.addMembers(account, list.id, ids);
    return {};
  });

  app.delete('/api/v1/lists/:id/accounts', { config: { auth: auth.user('write:lists') } }, async (req) => {
    const { account } = currentUser(req);
    const list = ctx.lists.own(account, pathId(req));
    const { account_ids: ids } = parseParams(membersSchema, requestParams(req));
    ctx.lists.removeMembers(account, list.id, ids);
    return {};
  });

  app.get('/api/v1/timelines/list/:id', { config: { auth: auth.user('read:lists') } }, async (req, reply) => {
    const { account } = currentUser(req);
    const list = ctx.lists.own(account, pathId(req));
    const page = pageQuery(requestParams(req), 20, 40);
    const rows = ctx.store.timelines.list(ctx.store.timelines.scope(account.id), list, page);
    setLinkHeader(
      req,
      reply,
      ctx.urls,
      rows.map((r) => r.cursor),
      page,
    );
    // Lists are read with the home filters, as Mastodon's.
    const shown = ctx.filters.visible(account, rows, (r) => r.status, 'home');
    return ctx.statusPresenter.present(
      shown.map((r) => r.status),
      account,
      { context: 'home' },
    );
  });
}
