// https://docs.joinmastodon.org/methods/accounts/ (get, index, lookup, search)
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../../context.ts';
import { ApiError, notFound } from '../../../errors.ts';
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
} from '../../../http/index.ts';
import { type Account, isListed } from '../../../store/index.ts';
import { RejectedDocument } from '../../../federation/index.ts';

const MAX_IDS = 40;

/** A document of another server that cannot be used answers 422, saying why. */
export async function unlessRejected<T>(lookup: Promise<T>): Promise<T> {
  try {
    return await lookup;
  } catch (err) {
    if (err instanceof RejectedDocument) throw new ApiError(422, `Validation failed: ${err.message}`);
    throw err;
  }
}

/** A remote account by handle or URL through federation; a document that cannot be used answers 422 with why. */
export async function resolveRemote(
  ctx: SocialContext,
  input: string,
  options: { refresh?: boolean } = {},
): Promise<Account | null> {
  return (await unlessRejected(ctx.federation?.resolveAccount(input, options) ?? Promise.resolve(null))) ?? null;
}

export function accountReadRoutes(app: FastifyInstance, ctx: SocialContext): void {
  app.get('/api/v1/accounts/:id', { config: { auth: auth.optional('read:accounts') } }, async (req) => {
    return ctx.presenter.one(ctx.relationships.visibleAccount(pathId(req)));
  });

  app.get('/api/v1/accounts', { config: { auth: auth.optional('read:accounts') } }, async (req) => {
    const { id: ids } = parseParams(z.object({ id: zList(zId, MAX_IDS) }), requestParams(req));
    const accounts = ctx.store.accounts.byIds([...new Set(ids)]).filter(isListed);
    return ctx.presenter.present(accounts);
  });

  /** Finds an account by handle without WebFinger; also finds unconfirmed and unapproved accounts so a name can be checked. */
  app.get('/api/v1/accounts/lookup', { config: { auth: auth.optional('read:accounts') } }, async (req) => {
    const { acct } = parseParams(z.object({ acct: zString }), requestParams(req));
    const handle = acct.trim().replace(/^@/, '');
    if (!handle) throw new ApiError(400, 'param is missing or the value is empty: acct');
    const at = handle.indexOf('@');
    const username = at >= 0 ? handle.slice(0, at) : handle;
    let domain: string | null = at >= 0 ? handle.slice(at + 1).toLowerCase() : null;
    if (domain !== null && (domain === ctx.urls.domain.toLowerCase() || domain === ctx.urls.hostname.toLowerCase()))
      domain = null;
    let account = username ? ctx.store.accounts.byHandle(username, domain) : null;
    // An account on another server is looked up there (WebFinger) when unknown here.
    if (!account && username && domain !== null && ctx.federation)
      account = await resolveRemote(ctx, `${username}@${domain}`);
    if (!account || account.deletedAt !== null) throw notFound();
    return ctx.presenter.one(account);
  });

  const searchSchema = z.object({
    q: zString,
    limit: zInt.optional(),
    offset: zInt.optional(),
    resolve: zBool.optional(),
    following: zBool.optional(),
  });
  app.get('/api/v1/accounts/search', { config: { auth: auth.user('read:accounts') } }, async (req) => {
    const { account: me } = currentUser(req);
    const p = parseParams(searchSchema, requestParams(req));
    const q = p.q.trim().replace(/^@/, '');
    if (!q) return [];
    const limit = Math.min(Math.max(p.limit ?? 40, 1), 80);
    const offset = Math.max(p.offset ?? 0, 0);
    let found: Account[];
    const at = q.indexOf('@');
    if (p.resolve && ctx.federation && offset === 0 && (/^https?:\/\//i.test(q) || at > 0)) {
      const resolved = await resolveRemote(ctx, q);
      found = resolved && isListed(resolved) && resolved.suspendedAt === null ? [resolved] : [];
    } else if (at > 0) {
      // An exact handle first; remote resolution (WebFinger) arrives with federation.
      const domainPart = q.slice(at + 1).toLowerCase();
      const local = domainPart === ctx.urls.domain.toLowerCase() || domainPart === ctx.urls.hostname.toLowerCase();
      const exact = ctx.store.accounts.byHandle(q.slice(0, at), local ? null : domainPart);
      found = exact && isListed(exact) && exact.suspendedAt === null && offset === 0 ? [exact] : [];
    } else {
      found = ctx.store.accounts.search(q, { limit, offset, followingOf: p.following ? me.id : undefined });
    }
    const hidden = new Set(
      ctx.store.relationships
        .facts(
          me.id,
          found.map((a) => a.id),
        )
        .filter((f) => f.blocking || f.blockedBy || f.domainBlocking)
        .map((f) => f.id),
    );
    return ctx.presenter.present(found.filter((a) => !hidden.has(a.id)));
  });

  // Keybase identity proofs were removed from Mastodon; the endpoint answers with an empty list.
  app.get(
    '/api/v1/accounts/:id/identity_proofs',
    { config: { auth: auth.optional('read:accounts'), deprecated: '2022-11-14' } },
    async (req) => {
      ctx.relationships.visibleAccount(pathId(req));
      return [];
    },
  );
}
