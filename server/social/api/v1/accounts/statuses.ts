// https://docs.joinmastodon.org/methods/accounts/#statuses
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../../context.ts';
import {
  auth,
  viewer,
  pageQuery,
  setLinkHeader,
  parseParams,
  pathId,
  requestParams,
  zBool,
  zString,
} from '../../../http/index.ts';

const schema = z.object({
  only_media: zBool.optional(),
  exclude_replies: zBool.optional(),
  exclude_reblogs: zBool.optional(),
  pinned: zBool.optional(),
  tagged: zString.optional(),
});

/** An account's statuses as the caller may read them; works without a token (public and unlisted only). */
export function accountStatusRoutes(app: FastifyInstance, ctx: SocialContext): void {
  app.get('/api/v1/accounts/:id/statuses', { config: { auth: auth.optional('read:statuses') } }, async (req, reply) => {
    const target = ctx.relationships.visibleAccount(pathId(req));
    const me = viewer(req);
    const params = requestParams(req);
    const p = parseParams(schema, params);
    const page = pageQuery(params, 20, 40);
    if (target.suspendedAt !== null) return [];
    if (
      me &&
      (ctx.store.relationships.blocking(target.id, me.id) ||
        (target.domain !== null && ctx.store.userDomainBlocks.domainBlocked(me.id, target.domain)))
    )
      return [];
    let taggedId: string | null = null;
    if (p.tagged?.trim()) {
      taggedId = ctx.store.statuses.tagId(p.tagged.trim().replace(/^#/, ''));
      if (!taggedId) return [];
    }
    const rows = ctx.store.timelines.account(
      ctx.store.timelines.scope(me?.id ?? null),
      target.id,
      {
        pinned: p.pinned,
        excludeReplies: p.exclude_replies,
        excludeReblogs: p.exclude_reblogs,
        onlyMedia: p.only_media,
        taggedId,
      },
      page,
    );
    setLinkHeader(
      req,
      reply,
      ctx.urls,
      rows.map((r) => r.cursor),
      page,
    );
    const shown = ctx.filters.visible(me, rows, (r) => r.status, 'account');
    return ctx.statusPresenter.present(
      shown.map((r) => r.status),
      me,
      { context: 'account' },
    );
  });
}
