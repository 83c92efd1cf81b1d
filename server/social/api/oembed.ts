// https://docs.joinmastodon.org/methods/oembed/
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../context.ts';
import { notFound } from '../errors.ts';
import { auth, parseParams, requestParams, zInt, zString } from '../http/index.ts';
import { escapeHtml } from '../text/index.ts';

const schema = z.object({ url: zString, maxwidth: zInt.optional(), maxheight: zInt.optional() });

/**
 * oEmbed for this server's public and unlisted posts, by their web address (/@user/id) or ActivityPub id
 * (/users/user/statuses/id): a quote of the post with its author and a link back, as Mastodon's fallback.
 */
export function oembedRoutes(app: FastifyInstance, ctx: SocialContext): void {
  app.get('/api/oembed', { config: { auth: auth.public(), publicCache: true } }, async (req) => {
    const p = parseParams(schema, requestParams(req));
    let url: URL;
    try {
      url = new URL(p.url);
    } catch {
      throw notFound();
    }
    const m = /^\/(?:@([A-Za-z0-9_]+)|users\/([A-Za-z0-9_]+)\/statuses)\/(\d+)$/.exec(url.pathname);
    if (url.origin !== ctx.urls.base || !m) throw notFound();
    const account = ctx.store.accounts.byHandle(m[1] ?? m[2], null);
    const status = ctx.store.statuses.byId(m[3]);
    if (
      !account ||
      account.suspendedAt !== null ||
      !status ||
      status.accountId !== account.id ||
      status.deletedAt !== null ||
      status.reblogOfId !== null
    )
      throw notFound();
    if (status.visibility !== 'public' && status.visibility !== 'unlisted') throw notFound();
    const author = account.displayName || account.username;
    const statusUrl = ctx.urls.statusUrl(account.username, status.id);
    const body = status.spoilerText ? `<p>${escapeHtml(status.spoilerText)}</p>` : status.content;
    const width = Math.min(Math.max(p.maxwidth ?? 400, 100), 1000);
    return {
      type: 'rich',
      version: '1.0',
      title: `New status by ${account.username}`,
      author_name: author,
      author_url: ctx.urls.profileUrl(account.username),
      provider_name: ctx.urls.domain,
      provider_url: `${ctx.urls.base}/`,
      cache_age: 86_400,
      html: `<blockquote class="mastodon-embed" style="max-width: ${width}px">${body}<p>&mdash; ${escapeHtml(author)} (<a href="${escapeHtml(ctx.urls.profileUrl(account.username))}">@${escapeHtml(account.username)}@${escapeHtml(ctx.urls.domain)}</a>) <a href="${escapeHtml(statusUrl)}">${escapeHtml(new Date(status.createdAt).toISOString().slice(0, 10))}</a></p></blockquote>`,
      width,
      height: null,
    };
  });
}
