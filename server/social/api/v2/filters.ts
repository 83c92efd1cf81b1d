// https://docs.joinmastodon.org/methods/filters/ (v2: filters, their keywords and statuses)
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../context.ts';
import type { KeywordAttribute } from '../../domain/index.ts';
import { serializeFilter, serializeFilterKeyword } from '../../entities/index.ts';
import {
  auth,
  currentUser,
  parseParams,
  pathId,
  requestParams,
  zBool,
  zId,
  zInt,
  zList,
  zString,
} from '../../http/index.ts';
import { UPDATE_METHODS } from '../update-methods.ts';

const keywordAttributes = zList(
  z.object({
    id: zId.optional(),
    keyword: zString.optional(),
    whole_word: zBool.optional(),
    _destroy: zBool.optional(),
  }),
  200,
).optional();

const filterSchema = z.object({
  title: zString.optional(),
  context: zList(zString, 10).optional(),
  filter_action: zString.optional(),
  expires_in: z.union([zInt, z.literal('').transform(() => null), z.null()]).optional(),
  keywords_attributes: keywordAttributes,
});

const keywordSchema = z.object({ keyword: zString.optional(), whole_word: zBool.optional() });

function toInput(p: z.output<typeof filterSchema>) {
  return {
    title: p.title,
    context: p.context,
    action: p.filter_action,
    expiresIn: p.expires_in,
    keywords: p.keywords_attributes?.map(
      (k): KeywordAttribute => ({ id: k.id, keyword: k.keyword, wholeWord: k.whole_word, destroy: k._destroy }),
    ),
  };
}

export function filterV2Routes(app: FastifyInstance, ctx: SocialContext): void {
  const read = { config: { auth: auth.user('read:filters') } };
  const write = { config: { auth: auth.user('write:filters') } };

  app.get('/api/v2/filters', read, async (req) =>
    ctx.store.filters.ofAccount(currentUser(req).account.id).map((f) => serializeFilter(f)),
  );

  app.post('/api/v2/filters', write, async (req) =>
    serializeFilter(
      ctx.filters.create(currentUser(req).account, toInput(parseParams(filterSchema, requestParams(req)))),
    ),
  );

  // Static segments first: /filters/keywords/:id and /filters/statuses/:id are not filters.
  app.get('/api/v2/filters/keywords/:id', read, async (req) =>
    serializeFilterKeyword(ctx.filters.ownKeyword(currentUser(req).account, pathId(req))),
  );

  app.route({
    method: UPDATE_METHODS,
    url: '/api/v2/filters/keywords/:id',
    ...write,
    handler: async (req) => {
      const { account } = currentUser(req);
      const p = parseParams(keywordSchema, requestParams(req));
      ctx.filters.updateKeyword(account, pathId(req), p.keyword, p.whole_word);
      return serializeFilterKeyword(ctx.filters.ownKeyword(account, pathId(req)));
    },
  });

  app.delete('/api/v2/filters/keywords/:id', write, async (req) => {
    ctx.filters.deleteKeyword(currentUser(req).account, pathId(req));
    return {};
  });

  app.get('/api/v2/filters/statuses/:id', read, async (req) => {
    const entry = ctx.filters.ownStatusEntry(currentUser(req).account, pathId(req));
    return { id: entry.id, status_id: entry.statusId };
  });

  app.delete('/api/v2/filters/statuses/:id', write, async (req) => {
    const { account } = currentUser(req);
    const entry = ctx.filters.ownStatusEntry(account, pathId(req));
    ctx.filters.deleteStatus(account, entry.id);
    // The entry as it was (the API document's FilterStatus; Mastodon's clients read nothing from this answer).
    return { id: entry.id, status_id: entry.statusId };
  });

  app.get('/api/v2/filters/:id', read, async (req) =>
    serializeFilter(ctx.filters.ownFilter(currentUser(req).account, pathId(req))),
  );

  app.route({
    method: UPDATE_METHODS,
    url: '/api/v2/filters/:id',
    ...write,
    handler: async (req) =>
      serializeFilter(
        ctx.filters.update(
          currentUser(req).account,
          pathId(req),
          toInput(parseParams(filterSchema, requestParams(req))),
        ),
      ),
  });

  app.delete('/api/v2/filters/:id', write, async (req) => {
    ctx.filters.delete(currentUser(req).account, pathId(req));
    return {};
  });

  app.get('/api/v2/filters/:id/keywords', read, async (req) =>
    ctx.filters.ownFilter(currentUser(req).account, pathId(req)).keywords.map(serializeFilterKeyword),
  );

  app.post('/api/v2/filters/:id/keywords', write, async (req) => {
    const { account } = currentUser(req);
    const p = parseParams(keywordSchema, requestParams(req));
    const id = ctx.filters.addKeyword(account, pathId(req), p.keyword, p.whole_word);
    return serializeFilterKeyword(ctx.filters.ownKeyword(account, id));
  });

  app.get('/api/v2/filters/:id/statuses', read, async (req) =>
    ctx.filters
      .ownFilter(currentUser(req).account, pathId(req))
      .statuses.map((s) => ({ id: s.id, status_id: s.statusId })),
  );

  app.post('/api/v2/filters/:id/statuses', write, async (req) => {
    const { account } = currentUser(req);
    const { status_id: statusId } = parseParams(z.object({ status_id: zId }), requestParams(req));
    const status = ctx.statuses.readable(account, statusId);
    const id = ctx.filters.addStatus(account, pathId(req), status);
    return { id, status_id: status.id };
  });
}
