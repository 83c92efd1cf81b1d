// https://docs.joinmastodon.org/methods/collections/
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../context.ts';
import { isoTime } from '../../entities/index.ts';
import { DomainError } from '../../errors.ts';
import {
  auth,
  currentUser,
  viewer,
  offsetPage,
  socialErrorHandler,
  parseParams,
  pathId,
  requestParams,
  zBool,
  zId,
  zList,
  zString,
} from '../../http/index.ts';
import type { Account, CollectionItemRow, CollectionRow } from '../../store/index.ts';
import { UPDATE_METHODS } from '../update-methods.ts';

const fields = {
  name: zString.optional(),
  description: zString.optional(),
  language: z.preprocess((v) => (v === '' ? null : v), zString.nullable()).optional(),
  sensitive: zBool.optional(),
  discoverable: zBool.optional(),
  tag_name: z.preprocess((v) => (v === '' ? null : v), zString.nullable()).optional(),
};
const createSchema = z.object({ ...fields, name: zString, account_ids: zList(zId, 100).optional() });

/** Creating and editing a collection answer refused input as Mastodon's do: the usual 422 body inside `error`. */
function collectionErrors(err: Error, req: FastifyRequest, reply: FastifyReply): void {
  if (err instanceof DomainError && err.kind === 'invalid') {
    reply.code(422).send({ error: err.body() });
    return;
  }
  socialErrorHandler(err, req, reply);
}

export function collectionRoutes(app: FastifyInstance, ctx: SocialContext): void {
  const serializeItem = (item: CollectionItemRow) => ({
    id: item.id,
    account_id: item.accountId,
    state: item.state,
    created_at: isoTime(item.createdAt),
  });

  const serialize = (me: Account | null, collections: CollectionRow[]) => {
    const items = ctx.collections.itemsFor(me, collections);
    const owners = new Map(
      ctx.store.accounts.byIds([...new Set(collections.map((c) => c.accountId))]).map((a) => [a.id, a]),
    );
    const tags = new Map(
      collections.flatMap((c) => (c.tagId ? [c.tagId] : [])).map((id) => [id, ctx.store.tags.byId(id)]),
    );
    return collections.map((c) => {
      const owner = owners.get(c.accountId)!;
      const shown = items.get(c.id)!;
      const tag = c.tagId ? tags.get(c.tagId) : null;
      return {
        id: c.id,
        uri: `${ctx.urls.accountUri(owner.username)}/collections/${c.id}`,
        url: null,
        name: c.name,
        description: c.description,
        language: c.language,
        account_id: c.accountId,
        local: true,
        sensitive: c.sensitive,
        discoverable: c.discoverable,
        tag: tag ? { name: tag.displayName, url: ctx.urls.tagUrl(tag.name) } : null,
        item_count: shown.filter((i) => i.state === 'accepted').length,
        items: shown.map(serializeItem),
        created_at: isoTime(c.createdAt),
        updated_at: isoTime(c.updatedAt),
      };
    });
  };

  const input = (p: Partial<z.output<typeof createSchema>>) => ({
    name: p.name,
    description: p.description,
    language: p.language,
    sensitive: p.sensitive,
    discoverable: p.discoverable,
    tagName: p.tag_name,
  });

  /** Offset pages of collections with a `next` Link while full. */
  const page = (
    req: FastifyRequest,
    reply: FastifyReply,
    find: (limit: number, offset: number) => CollectionRow[],
  ) => ({
    collections: serialize(viewer(req), offsetPage(req, reply, ctx.urls, 40, 80, find)),
  });

  app.get(
    '/api/v1/accounts/:id/collections',
    { config: { auth: auth.optional('read:collections') } },
    async (req, reply) => {
      const account = ctx.store.accounts.byId(pathId(req));
      if (!account || account.deletedAt !== null || account.suspendedAt !== null)
        return reply.code(404).send({ error: 'Record not found' });
      return page(req, reply, (limit, offset) =>
        ctx.store.collections.ofAccount(account.id, { discoverableOnly: false, limit, offset }),
      );
    },
  );

  app.get(
    '/api/v1/accounts/:id/in_collections',
    { config: { auth: auth.user('read:collections') } },
    async (req, reply) => {
      const accountId = pathId(req);
      return page(req, reply, (limit, offset) => ctx.store.collections.featuring(accountId, { limit, offset }));
    },
  );

  app.get('/api/v1/collections/:id', { config: { auth: auth.optional('read:collections') } }, async (req) => {
    const me = viewer(req);
    const collection = ctx.collections.visible(me, pathId(req));
    const [json] = serialize(me, [collection]);
    const accountIds = [collection.accountId, ...json.items.map((i) => i.account_id)];
    return { collection: json, accounts: ctx.presenter.present(ctx.store.accounts.byIds([...new Set(accountIds)])) };
  });

  app.post(
    '/api/v1/collections',
    { config: { auth: auth.user('write:collections') }, errorHandler: collectionErrors },
    async (req) => {
      const { account } = currentUser(req);
      const p = parseParams(createSchema, requestParams(req));
      const collection = ctx.collections.create(account, { ...input(p), name: p.name }, p.account_ids ?? []);
      return { collection: serialize(account, [collection])[0] };
    },
  );

  app.route({
    method: UPDATE_METHODS,
    url: '/api/v1/collections/:id',
    config: { auth: auth.user('write:collections') },
    errorHandler: collectionErrors,
    handler: async (req) => {
      const { account } = currentUser(req);
      const p = parseParams(z.object(fields), requestParams(req));
      return { collection: serialize(account, [ctx.collections.update(account, pathId(req), input(p))])[0] };
    },
  });

  app.delete('/api/v1/collections/:id', { config: { auth: auth.user('write:collections') } }, async (req) => {
    const { account } = currentUser(req);
    ctx.collections.delete(account, pathId(req));
    return {};
  });

  app.post('/api/v1/collections/:id/items', { config: { auth: auth.user('write:collections') } }, async (req) => {
    const { account } = currentUser(req);
    const { account_id: accountId } = parseParams(z.object({ account_id: zId }), requestParams(req));
    return { collection_item: serializeItem(ctx.collections.addItem(account, pathId(req), accountId)) };
  });

  app.delete(
    '/api/v1/collections/:id/items/:item_id',
    { config: { auth: auth.user('write:collections') } },
    async (req) => {
      const { account } = currentUser(req);
      ctx.collections.removeItem(account, pathId(req), pathId(req, 'item_id'));
      return {};
    },
  );

  app.post(
    '/api/v1/collections/:id/items/:item_id/revoke',
    { config: { auth: auth.user('write:collections') } },
    async (req) => {
      const { account } = currentUser(req);
      ctx.collections.revoke(account, pathId(req), pathId(req, 'item_id'));
      return {};
    },
  );
}
