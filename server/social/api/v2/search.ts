// https://docs.joinmastodon.org/methods/search/#v2
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../context.ts';
import { presentTags } from '../../entities/index.ts';
import { ApiError } from '../../errors.ts';
import { auth, viewer, parseParams, requestParams, zBool, zId, zInt, zString } from '../../http/index.ts';
import { isListed, type Account, type StatusRow } from '../../store/index.ts';
import { resolveRemote } from '../v1/accounts/accounts.ts';

const schema = z.object({
  q: zString,
  type: z.enum(['accounts', 'hashtags', 'statuses']).optional(),
  resolve: zBool.optional(),
  following: zBool.optional(),
  account_id: zId.optional(),
  exclude_unreviewed: zBool.optional(),
  max_id: zId.optional(),
  min_id: zId.optional(),
  limit: zInt.optional(),
  offset: zInt.optional(),
});

/** Anonymous queries shorter than this match exactly only (the seed's rule, as Mastodon's). */
const EXACT_ONLY_BELOW = 5;

function isUrl(q: string): boolean {
  return /^https?:\/\/\S+$/i.test(q);
}

export function searchV2Routes(app: FastifyInstance, ctx: SocialContext): void {
  /** A local status by its web address or id URL, or a remote one known here. */
  const statusByAddress = (q: string): string | null => {
    let url: URL;
    try {
      url = new URL(q);
    } catch {
      return null;
    }
    if (url.origin === new URL(ctx.urls.base).origin) {
      const m = /^\/(?:@[^/]+|users\/[^/]+\/statuses)\/(\d+)\/?$/.exec(url.pathname);
      return m ? m[1] : null;
    }
    return ctx.store.statuses.idByUriOrUrl(q);
  };

  const accounts = async (
    me: Account | null,
    q: string,
    p: z.output<typeof schema>,
    limit: number,
    offset: number,
  ): Promise<Account[]> => {
    const handle = q.replace(/^@/, '');
    const at = handle.indexOf('@');
    let found: Account[];
    if (isUrl(q) || at > 0) {
      if (p.resolve && me && offset === 0) {
        const resolved = await resolveRemote(ctx, handle);
        found = resolved ? [resolved] : [];
      } else if (at > 0) {
        const domain = handle.slice(at + 1).toLowerCase();
        const local = domain === ctx.urls.domain.toLowerCase() || domain === ctx.urls.hostname.toLowerCase();
        const exact = ctx.store.accounts.byHandle(handle.slice(0, at), local ? null : domain);
        found = exact && offset === 0 ? [exact] : [];
      } else {
        const known = ctx.store.accounts.byUri(q);
        found = known && offset === 0 ? [known] : [];
      }
    } else if (!me && handle.length < EXACT_ONLY_BELOW) {
      const exact = ctx.store.accounts.byHandle(handle, null);
      found = exact && offset === 0 ? [exact] : [];
    } else {
      found = ctx.store.accounts.search(handle, { limit, offset, followingOf: p.following && me ? me.id : undefined });
    }
    found = found.filter((a) => isListed(a) && a.suspendedAt === null);
    if (!me || found.length === 0) return found;
    // Accounts that block the viewer, that the viewer blocks or whose domain the viewer blocks are left out.
    const hidden = new Set(
      ctx.store.relationships
        .facts(
          me.id,
          found.map((a) => a.id),
        )
        .filter((f) => f.blocking || f.blockedBy || f.domainBlocking)
        .map((f) => f.id),
    );
    return found.filter((a) => !hidden.has(a.id));
  };

  const statuses = (
    me: Account | null,
    q: string,
    p: z.output<typeof schema>,
    limit: number,
    offset: number,
  ): StatusRow[] => {
    if (isUrl(q)) {
      const id = offset === 0 ? statusByAddress(q) : null;
      const status = id ? ctx.store.timelines.readable(me?.id ?? null, id) : null;
      return status ? [status] : [];
    }
    // Full text searches what Mastodon lets a user search (their own posts, favourites, bookmarks, mentions): nothing anonymously.
    if (!me) return [];
    const ids = ctx.store.search.statusIds(me.id, q, {
      accountId: p.account_id,
      maxId: p.max_id,
      minId: p.min_id,
      limit,
      offset,
    });
    const readable = ctx.store.timelines.readableIds(ctx.store.timelines.scope(me.id), ids);
    return ctx.store.statuses.byIds(ids.filter((id) => readable.has(id)));
  };

  app.get('/api/v2/search', { config: { auth: auth.optional('read:search') } }, async (req) => {
    const p = parseParams(schema, requestParams(req));
    const me = viewer(req);
    const limit = Math.min(Math.max(p.limit ?? 20, 1), 40);
    const offset = Math.max(p.offset ?? 0, 0);
    if (!me && p.resolve)
      throw new ApiError(401, 'Search queries that resolve remote resources are not supported without authentication');
    if (!me && offset > 0) throw new ApiError(401, 'Search queries pagination is not supported without authentication');
    const q = p.q.trim();
    const wants = (type: NonNullable<typeof p.type>) => !p.type || p.type === type;
    if (!q) return { accounts: [], statuses: [], hashtags: [] };

    const foundAccounts = wants('accounts') ? await accounts(me, q, p, limit, offset) : [];
    const foundStatuses = wants('statuses') ? statuses(me, q, p, limit, offset) : [];
    const tags =
      wants('hashtags') && !isUrl(q) && !q.replace(/^@/, '').includes('@')
        ? ctx.store.search.tags(q, {
            exact: !me && q.replace(/^#/, '').length < EXACT_ONLY_BELOW,
            limit,
            offset,
            reviewedOnly: p.exclude_unreviewed ?? false,
          })
        : [];
    return {
      accounts: ctx.presenter.present(foundAccounts),
      statuses: ctx.statusPresenter.present(foundStatuses, me),
      hashtags: presentTags(ctx.store, ctx.urls, tags, me),
    };
  });
}
