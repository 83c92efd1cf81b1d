// https://docs.joinmastodon.org/methods/timelines/ (home, public, tag, link)
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../context.ts';
import { notFound } from '../../errors.ts';
import {
  auth,
  currentUser,
  viewer,
  pageQuery,
  setLinkHeader,
  parseParams,
  requestParams,
  zBool,
  zList,
  zString,
} from '../../http/index.ts';
import type { Account, FilterContext, ListedStatus } from '../../store/index.ts';

const flags = {
  local: zBool.optional(),
  remote: zBool.optional(),
  only_media: zBool.optional(),
};
const tagList = zList(
  zString.transform((s) => s.trim().replace(/^#/, '')),
  10,
).optional();
// Built once: a zod object made per request compiled its parser again every time (a tenth of a tag page's CPU).
const publicFlags = z.object(flags);
const tagFlags = z.object({ ...flags, any: tagList, all: tagList, none: tagList });

export function timelineRoutes(app: FastifyInstance, ctx: SocialContext): void {
  /**
   * Lists a page, serializes it and sets its Link header (cursors are status ids). The listing and every
   * query serializing it read one snapshot (one read transaction): counts, flags and rows agree.
   */
  const respond = (
    req: FastifyRequest,
    reply: FastifyReply,
    list: () => ListedStatus[],
    page: ReturnType<typeof pageQuery>,
    me: Account | null,
    context: FilterContext,
  ) => {
    const { rows, text } = ctx.store.read(() => {
      const rows = list();
      const shown = ctx.filters.visible(me, rows, (r) => r.status, context);
      // Pages are written as JSON text from each status's cached serialization (the hottest read of a client).
      return {
        rows,
        text: ctx.statusPresenter.presentText(
          shown.map((r) => r.status),
          me,
          { context },
        ),
      };
    });
    // The Link header follows the rows read, so paging continues past statuses a filter hides (as Mastodon's).
    setLinkHeader(
      req,
      reply,
      ctx.urls,
      rows.map((r) => r.cursor),
      page,
    );
    // Returned rather than sent: a handler returning the reply makes fastify watch the response stream's end
    // (listeners per request); a returned string is sent as it is, with the type set here.
    reply.type('application/json; charset=utf-8');
    return text;
  };

  app.get('/api/v1/timelines/home', { config: { auth: auth.user('read:statuses') } }, async (req, reply) => {
    const { account } = currentUser(req);
    const page = pageQuery(requestParams(req), 20, 40);
    return respond(
      req,
      reply,
      () => ctx.store.timelines.home(ctx.store.timelines.scope(account.id), page),
      page,
      account,
      'home',
    );
  });

  app.get('/api/v1/timelines/public', { config: { auth: auth.optional('read:statuses') } }, async (req, reply) => {
    const me = viewer(req);
    const params = requestParams(req);
    const p = parseParams(publicFlags, params);
    const page = pageQuery(params, 20, 40);
    const list = () =>
      ctx.store.timelines.public(
        ctx.store.timelines.scope(me?.id ?? null),
        { local: p.local, remote: p.remote, onlyMedia: p.only_media },
        page,
      );
    return respond(req, reply, list, page, me, 'public');
  });

  app.get(
    '/api/v1/timelines/tag/:hashtag',
    { config: { auth: auth.optional('read:statuses') } },
    async (req, reply) => {
      const me = viewer(req);
      const params = requestParams(req);
      const p = parseParams(tagFlags, params);
      const page = pageQuery(params, 20, 40);
      const hashtag = decodeURIComponent((req.params as { hashtag: string }).hashtag).replace(/^#/, '');
      // Unknown tags match nothing: an `any` tag that does not exist just adds nothing, an unknown `all` tag empties the result.
      const anyTagIds = ctx.store.statuses.tagIds([hashtag, ...(p.any ?? [])]);
      const allNames = p.all ?? [];
      const allTagIds = ctx.store.statuses.tagIds(allNames);
      if (anyTagIds.length === 0 || allTagIds.length < allNames.length) return [];
      const noneTagIds = ctx.store.statuses.tagIds(p.none ?? []);
      const list = () =>
        ctx.store.timelines.tag(
          ctx.store.timelines.scope(me?.id ?? null),
          {
            local: p.local,
            remote: p.remote,
            onlyMedia: p.only_media,
            anyTagIds: [...new Set(anyTagIds)],
            allTagIds,
            noneTagIds,
          },
          page,
        );
      return respond(req, reply, list, page, me, 'public');
    },
  );

  // Mastodon 4.3's link timeline: public posts of discoverable accounts sharing a link that trends now (one
  // staff allowed); any other address is 404, as Mastodon finds only cards with an allowed trend.
  app.get('/api/v1/timelines/link', { config: { auth: auth.optional('read:statuses') } }, async (req, reply) => {
    const me = viewer(req);
    const params = requestParams(req);
    const { url } = parseParams(z.object({ url: zString.optional() }), params);
    const page = pageQuery(params, 20, 40);
    const card = url ? ctx.store.trends.trendingLink(url) : null;
    if (!card) throw notFound();
    return respond(
      req,
      reply,
      () => ctx.store.linkTimeline.statuses(ctx.store.timelines.scope(me?.id ?? null), card.id, page),
      page,
      me,
      'public',
    );
  });
}
