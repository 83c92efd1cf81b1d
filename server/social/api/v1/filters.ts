// https://docs.joinmastodon.org/methods/filters/ (v1, deprecated: each keyword shown as a filter of its own)
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../context.ts';
import { serializeV1Filter } from '../../entities/index.ts';
import { notFound } from '../../errors.ts';
import {
  auth,
  currentUser,
  parseParams,
  pathId,
  requestParams,
  zBool,
  zInt,
  zList,
  zString,
} from '../../http/index.ts';
import type { Account } from '../../store/index.ts';
import { UPDATE_METHODS } from '../update-methods.ts';

const v1Schema = z.object({
  phrase: zString.optional(),
  context: zList(zString, 10).optional(),
  irreversible: zBool.optional(),
  whole_word: zBool.optional(),
  expires_in: z.union([zInt, z.literal('').transform(() => null), z.null()]).optional(),
});

const DEPRECATED = '2022-11-14';

export function filterV1Routes(app: FastifyInstance, ctx: SocialContext): void {
  const read = { config: { auth: auth.user('read:filters'), deprecated: DEPRECATED } };
  const write = { config: { auth: auth.user('write:filters'), deprecated: DEPRECATED } };

  /** A keyword of the caller's with its filter. */
  const own = (me: Account, id: string) => {
    const keyword = ctx.filters.ownKeyword(me, id);
    const filter = ctx.store.filters.byId(me.id, keyword.filterId);
    if (!filter) throw notFound();
    return { filter, keyword: filter.keywords.find((k) => k.id === keyword.id)! };
  };

  app.get('/api/v1/filters', read, async (req) =>
    ctx.store.filters
      .ofAccount(currentUser(req).account.id)
      .flatMap((f) => f.keywords.map((k) => serializeV1Filter(f, k))),
  );

  app.get('/api/v1/filters/:id', read, async (req) => {
    const { filter, keyword } = own(currentUser(req).account, pathId(req));
    return serializeV1Filter(filter, keyword);
  });

  app.post('/api/v1/filters', write, async (req) => {
    const { account } = currentUser(req);
    const p = parseParams(v1Schema, requestParams(req));
    const filter = ctx.filters.create(account, {
      title: p.phrase,
      context: p.context,
      action: p.irreversible ? 'hide' : 'warn',
      expiresIn: p.expires_in,
      keywords: [{ keyword: p.phrase, wholeWord: p.whole_word ?? true }],
    });
    return serializeV1Filter(filter, filter.keywords[0]);
  });

  app.route({
    method: UPDATE_METHODS,
    url: '/api/v1/filters/:id',
    ...write,
    handler: async (req) => {
      const { account } = currentUser(req);
      const { filter, keyword } = own(account, pathId(req));
      const p = parseParams(v1Schema, requestParams(req));
      const updated = ctx.filters.update(account, filter.id, {
        // A filter made by the v1 API is named by its phrase; one made by v2 keeps its title.
        title: filter.keywords.length === 1 && filter.title === keyword.keyword && p.phrase ? p.phrase : undefined,
        context: p.context,
        action: p.irreversible === undefined ? undefined : p.irreversible ? 'hide' : 'warn',
        expiresIn: p.expires_in,
        keywords: [{ id: keyword.id, keyword: p.phrase, wholeWord: p.whole_word }],
      });
      return serializeV1Filter(updated, updated.keywords.find((k) => k.id === keyword.id)!);
    },
  });

  app.delete('/api/v1/filters/:id', write, async (req) => {
    const { account } = currentUser(req);
    const { filter, keyword } = own(account, pathId(req));
    // The last keyword of a filter with no statuses takes the filter with it.
    if (filter.keywords.length === 1 && filter.statuses.length === 0) ctx.filters.delete(account, filter.id);
    else ctx.filters.deleteKeyword(account, keyword.id);
    return {};
  });
}
