// Legacy remote follow (removed from Mastodon's docs, kept because our API seed names it):
// POST /api/v1/follows with `uri` = user@domain (or an actor URL); succeeds when already following.
// Accounts unknown here are resolved through federation.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../context.ts';
import { ApiError } from '../../errors.ts';
import { auth, currentUser, parseParams, requestParams, zString } from '../../http/index.ts';
import { isListed, type Account } from '../../store/index.ts';
import { resolveRemote } from './accounts/accounts.ts';

export function followRoutes(app: FastifyInstance, ctx: SocialContext): void {
  function resolve(uri: string): Account | null {
    const handle = uri
      .trim()
      .replace(/^acct:/i, '')
      .replace(/^@/, '');
    if (/^https?:\/\//i.test(handle)) {
      const local = /^https?:\/\/[^/]+\/(?:users\/|@)([a-z0-9_]+)\/?$/i.exec(handle);
      if (local && new URL(handle).host.toLowerCase() === ctx.urls.domain.toLowerCase())
        return ctx.store.accounts.byHandle(local[1], null);
      return ctx.store.accounts.byUri(handle);
    }
    const at = handle.indexOf('@');
    const username = at >= 0 ? handle.slice(0, at) : handle;
    const domain = at >= 0 ? handle.slice(at + 1).toLowerCase() : null;
    const isLocal =
      domain === null || domain === ctx.urls.domain.toLowerCase() || domain === ctx.urls.hostname.toLowerCase();
    return username ? ctx.store.accounts.byHandle(username, isLocal ? null : domain) : null;
  }

  app.post(
    '/api/v1/follows',
    { config: { auth: auth.user('write:follows'), deprecated: '2019-01-08' } },
    async (req) => {
      const { account: me } = currentUser(req);
      const { uri } = parseParams(z.object({ uri: zString }), requestParams(req));
      if (!uri.trim()) throw new ApiError(400, 'param is missing or the value is empty: uri');
      // Unknown remote accounts are looked up on their server (WebFinger, then the actor).
      const target = resolve(uri) ?? (await resolveRemote(ctx, uri));
      if (!target || !isListed(target)) throw new ApiError(404, 'Record not found');
      ctx.relationships.follow(me, target);
      return ctx.presenter.one(target);
    },
  );
}
