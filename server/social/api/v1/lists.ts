// https://docs.joinmastodon.org/methods/lists/
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../context.ts';
import { serializeList } from '../../entities/list.ts';
import { notFound, ValidationFailure } from '../../errors.ts';
import { auth, currentUser } from '../../http/auth.ts';
import { pageQuery, setLinkHeader } from '../../http/pagination.ts';
import { parseParams, pathId, requestParams, zBool, zId, zList, zString } from '../../http/params.ts';
import type { Account, ListRow, RepliesPolicy } from '../../store/index.ts';
import { UPDATE_METHODS } from '../update-methods.ts';

const POLICIES = ['followed', 'list', 'none'] as const;
const TITLE_MAX = 255;
/** Lists one user may have, and accounts one list may hold (Mastodon's limits). */
export const MAX_LISTS = 50;
export const MAX_LIST_ACCOUNTS = 500;

const listSchema = z.object({
  title: zString.optional(),
  replies_policy: z.enum(POLICIES).optional(),
  exclusive: zBool.optional(),
});
const membersSchema = z.object({ account_ids: zList(zId, MAX_LIST_ACCOUNTS) });

export function listRoutes(app: FastifyInstance, ctx: SocialContext): void {
  /** The caller's own list named in the path; anyone else's is a 404, as if it did not exist. */
  const ownList = (req: FastifyRequest, me: Account): ListRow => {
    const list = ctx.store.lists.byId(pathId(req));
    if (!list || list.accountId !== me.id) throw notFound();
    return list;
  };

  const title = (raw: string | undefined, required: boolean): string | undefined => {
    const t = raw?.trim();
    if (t === undefined || t === '') {
      if (required || raw !== undefined) throw ValidationFailure.single('title', 'ERR_BLANK', "can't be blank");
      return undefined;
    }
    if ([...t].length > TITLE_MAX)
      throw ValidationFailure.single('title', 'ERR_TOO_LONG', `is too long (maximum is ${TITLE_MAX} characters)`);
    return t;
  };

  app.get('/api/v1/lists', { config: { auth: auth.user('read:lists') } }, async (req) =>
    ctx.store.lists.ofOwner(currentUser(req).account.id).map(serializeList),
  );

  app.get('/api/v1/lists/:id', { config: { auth: auth.user('read:lists') } }, async (req) =>
    serializeList(ownList(req, currentUser(req).account)),
  );

  app.post('/api/v1/lists', { config: { auth: auth.user('write:lists') } }, async (req) => {
    const { account } = currentUser(req);
    const p = parseParams(listSchema, requestParams(req));
    const t = title(p.title, true)!;
    if (ctx.store.lists.ofOwner(account.id).length >= MAX_LISTS)
      throw ValidationFailure.single('base', 'ERR_TOO_LONG', `you cannot have more than ${MAX_LISTS} lists`);
    return serializeList(
      ctx.store.lists.create(account.id, {
        title: t,
        repliesPolicy: (p.replies_policy ?? 'list') as RepliesPolicy,
        exclusive: p.exclusive ?? false,
      }),
    );
  });

  app.route({
    method: UPDATE_METHODS,
    url: '/api/v1/lists/:id',
    config: { auth: auth.user('write:lists') },
    handler: async (req) => {
      const { account } = currentUser(req);
      const list = ownList(req, account);
      const p = parseParams(listSchema, requestParams(req));
      ctx.store.lists.update(list.id, {
        title: title(p.title, false) ?? list.title,
        repliesPolicy: p.replies_policy ?? list.repliesPolicy,
        exclusive: p.exclusive ?? list.exclusive,
      });
      return serializeList(ctx.store.lists.byId(list.id)!);
    },
  });

  app.delete('/api/v1/lists/:id', { config: { auth: auth.user('write:lists') } }, async (req) => {
    ctx.store.lists.delete(ownList(req, currentUser(req).account).id);
    return {};
  });

  app.get('/api/v1/lists/:id/accounts', { config: { auth: auth.user('read:lists') } }, async (req, reply) => {
    const list = ownList(req, currentUser(req).account);
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
    const list = ownList(req, account);
    const { account_ids: ids } = parseParams(membersSchema, requestParams(req));
    const unique = [...new Set(ids)];
    const accounts = ctx.store.accounts.byIds(unique);
    if (accounts.length !== unique.length) throw notFound();
    // Only accounts one follows (or asked to follow) may be in one's lists.
    const strangers = accounts.filter(
      (a) =>
        !ctx.store.relationships.follow(account.id, a.id) && !ctx.store.relationships.followRequest(account.id, a.id),
    );
    if (strangers.length)
      throw ValidationFailure.single(
        'account_ids',
        'ERR_INVALID',
        `must be accounts you follow: ${strangers.map((a) => a.id).join(', ')}`,
      );
    const fresh = unique.filter((id) => !ctx.store.lists.isMember(list.id, id));
    if (fresh.length !== unique.length)
      throw ValidationFailure.single('account_ids', 'ERR_TAKEN', 'are already in the list');
    ctx.store.transaction(() => ctx.store.lists.addMembers(list.id, fresh));
    return {};
  });

  app.delete('/api/v1/lists/:id/accounts', { config: { auth: auth.user('write:lists') } }, async (req) => {
    const list = ownList(req, currentUser(req).account);
    const { account_ids: ids } = parseParams(membersSchema, requestParams(req));
    ctx.store.lists.removeMembers(list.id, ids);
    return {};
  });

  app.get('/api/v1/timelines/list/:id', { config: { auth: auth.user('read:lists') } }, async (req, reply) => {
    const { account } = currentUser(req);
    const list = ownList(req, account);
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
