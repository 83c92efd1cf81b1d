// https://docs.joinmastodon.org/methods/timelines/ (home, public, tag, link)
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../context.ts';
import { notFound } from '../../errors.ts';
import {
  auth,
  currentUser,
  viewer,
  linkHeader,
  pageQuery,
  parseParams,
  requestParams,
  zBool,
  zList,
  zString,
} from '../../http/index.ts';
import type { Account, FilterContext, ListedStatus, PageQuery } from '../../store/index.ts';
import { TimelineAnswers } from './timeline-answers.ts';

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
const linkParams = z.object({ url: zString.optional() });
const tagFlags = z.object({ ...flags, any: tagList, all: tagList, none: tagList });

export function timelineRoutes(app: FastifyInstance, ctx: SocialContext): void {
  const answers = new TimelineAnswers(ctx);
  /**
   * Answers a timeline page: `read` parses the request's parameters and lists the page (null: a page that
   * cannot hold anything); the rows are filtered, presented as JSON text and given their Link header. The
   * listing and every query presenting it read one snapshot (one read transaction): counts, flags and rows
   * agree. Home, public and hashtag answers are kept while they hold (timeline-answers.ts).
   */
  const respond = (
    req: FastifyRequest,
    reply: FastifyReply,
    me: Account | null,
    context: FilterContext,
    keep: boolean,
    read: (params: Record<string, unknown>) => { rows: ListedStatus[]; page: PageQuery } | null,
  ) => {
    // Parameters in a body are not in the address the answer is kept under, nor is a token there kept.
    const cacheable = keep && !hasBody(req) && !req.url.includes('access_token');
    const { body, link } = answers.answer(me?.id ?? null, req.url, cacheable, (horizon) => {
      const listed = read(requestParams(req));
      if (!listed) return { text: '[]', link: null };
      const shown = ctx.filters.visible(me, listed.rows, (r) => r.status, context);
      return {
        // Pages are written as JSON text from each status's cached serialization (the hottest read of a client).
        text: ctx.statusPresenter.presentText(
          shown.map((r) => r.status),
          me,
          { context, horizon },
        ),
        // The Link header follows the rows read, so paging continues past statuses a filter hides (as Mastodon's).
        link: linkHeader(
          req.url,
          ctx.urls,
          listed.rows.map((r) => r.cursor),
          listed.page,
        ),
      };
    });
    if (link !== null) reply.header('Link', link);
    // Returned rather than sent: a handler returning the reply makes fastify watch the response stream's end
    // (listeners per request); returned bytes are sent as they are, with the type set here.
    reply.type('application/json; charset=utf-8');
    return body;
  };

  app.get('/api/v1/timelines/home', { config: { auth: auth.user('read:statuses') } }, async (req, reply) => {
    const { account } = currentUser(req);
    return respond(req, reply, account, 'home', true, (params) => {
      const page = pageQuery(params, 20, 40);
      return { rows: ctx.store.timelines.home(ctx.store.timelines.scope(account.id), page), page };
    });
  });

  app.get('/api/v1/timelines/public', { config: { auth: auth.optional('read:statuses') } }, async (req, reply) => {
    const me = viewer(req);
    return respond(req, reply, me, 'public', true, (params) => {
      const p = parseParams(publicFlags, params);
      const page = pageQuery(params, 20, 40);
      const rows = ctx.store.timelines.public(
        ctx.store.timelines.scope(me?.id ?? null),
        { local: p.local, remote: p.remote, onlyMedia: p.only_media },
        page,
      );
      return { rows, page };
    });
  });

  app.get(
    '/api/v1/timelines/tag/:hashtag',
    { config: { auth: auth.optional('read:statuses') } },
    async (req, reply) => {
      const me = viewer(req);
      return respond(req, reply, me, 'public', true, (params) => {
        const p = parseParams(tagFlags, params);
        const page = pageQuery(params, 20, 40);
        const hashtag = decodeURIComponent((req.params as { hashtag: string }).hashtag).replace(/^#/, '');
        // Unknown tags match nothing: an `any` tag that does not exist just adds nothing, an unknown `all` tag empties the result.
        const anyTagIds = ctx.store.statuses.tagIds([hashtag, ...(p.any ?? [])]);
        const allNames = p.all ?? [];
        const allTagIds = ctx.store.statuses.tagIds(allNames);
        if (anyTagIds.length === 0 || allTagIds.length < allNames.length) return null;
        const noneTagIds = ctx.store.statuses.tagIds(p.none ?? []);
        const rows = ctx.store.timelines.tag(
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
        return { rows, page };
      });
    },
  );

  // Mastodon 4.3's link timeline: public posts of discoverable accounts sharing a link that trends now (one
  // staff allowed); any other address is 404, as Mastodon finds only cards with an allowed trend. Not kept:
  // what trends moves with time.
  app.get('/api/v1/timelines/link', { config: { auth: auth.optional('read:statuses') } }, async (req, reply) => {
    const me = viewer(req);
    const params = requestParams(req);
    const { url } = parseParams(linkParams, params);
    const page = pageQuery(params, 20, 40);
    const card = url ? ctx.store.trends.trendingLink(url) : null;
    if (!card) throw notFound();
    return respond(req, reply, me, 'public', false, () => {
      return {
        rows: ctx.store.linkTimeline.statuses(ctx.store.timelines.scope(me?.id ?? null), card.id, page),
        page,
      };
    });
  });
}

/** Whether the request brought parameters in a body (a GET may). */
function hasBody(req: FastifyRequest): boolean {
  const body = req.body;
  return body !== undefined && body !== null && (typeof body !== 'object' || Object.keys(body).length > 0);
}
