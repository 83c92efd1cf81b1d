// https://docs.joinmastodon.org/methods/statuses/ (reblog, favourite, bookmark, pin, mute and their reverses; reblogged_by, favourited_by)
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../../context.ts';
import {
  auth,
  currentUser,
  viewer,
  pageQuery,
  setLinkHeader,
  parseParams,
  pathId,
  requestParams,
} from '../../../http/index.ts';
import { VISIBILITIES } from '../../../store/index.ts';

export function statusActionRoutes(app: FastifyInstance, ctx: SocialContext): void {
  const answer = (statusId: string, me: Parameters<typeof ctx.statusPresenter.one>[1]) =>
    ctx.statusPresenter.one(ctx.store.statuses.byId(statusId)!, me);

  app.post(
    '/api/v1/statuses/:id/reblog',
    { config: { auth: auth.user('write:statuses'), actionLimit: 'statuses' } },
    async (req) => {
      const { account, user, app: client } = currentUser(req);
      const { visibility } = parseParams(
        z.object({
          visibility: z.preprocess((v) => (v === '' || v === null ? undefined : v), z.enum(VISIBILITIES).optional()),
        }),
        requestParams(req),
      );
      const reblog = ctx.statuses.reblog({ account, user, applicationId: client.id }, pathId(req), visibility);
      return answer(reblog.id, account);
    },
  );

  app.post(
    '/api/v1/statuses/:id/unreblog',
    { config: { auth: auth.user('write:statuses'), actionLimit: 'deletes' } },
    async (req) => {
      const { account } = currentUser(req);
      return answer(ctx.statuses.unreblog(account, pathId(req)).id, account);
    },
  );

  const simple: [string, string, (me: ReturnType<typeof currentUser>['account'], id: string) => { id: string }][] = [
    ['favourite', 'write:favourites', (me, id) => ctx.statuses.favourite(me, id)],
    ['unfavourite', 'write:favourites', (me, id) => ctx.statuses.unfavourite(me, id)],
    ['bookmark', 'write:bookmarks', (me, id) => ctx.statuses.bookmark(me, id, true)],
    ['unbookmark', 'write:bookmarks', (me, id) => ctx.statuses.bookmark(me, id, false)],
    ['pin', 'write:accounts', (me, id) => ctx.statuses.pin(me, id)],
    ['unpin', 'write:accounts', (me, id) => ctx.statuses.unpin(me, id)],
    ['mute', 'write:mutes', (me, id) => ctx.statuses.muteConversation(me, id, true)],
    ['unmute', 'write:mutes', (me, id) => ctx.statuses.muteConversation(me, id, false)],
  ];
  for (const [action, scope, run] of simple) {
    app.post(`/api/v1/statuses/:id/${action}`, { config: { auth: auth.user(scope) } }, async (req) => {
      const { account } = currentUser(req);
      return answer(run(account, pathId(req)).id, account);
    });
  }

  for (const [path, kind] of [
    ['reblogged_by', 'reblogs'],
    ['favourited_by', 'favourites'],
  ] as const) {
    app.get(
      `/api/v1/statuses/:id/${path}`,
      { config: { auth: auth.optional('read:accounts') } },
      async (req, reply) => {
        const me = viewer(req);
        const status = ctx.statuses.readable(me, pathId(req));
        const page = pageQuery(requestParams(req), 40, 80);
        const rows = ctx.store.timelines.interactors(
          kind,
          ctx.store.timelines.scope(me?.id ?? null),
          status.reblogOfId ?? status.id,
          page,
        );
        setLinkHeader(
          req,
          reply,
          ctx.urls,
          rows.map((r) => r.cursor),
          page,
        );
        return ctx.presenter.listed(rows);
      },
    );
  }
}
