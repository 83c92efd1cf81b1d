// https://docs.joinmastodon.org/methods/statuses/ (create, view, edit, delete, context, history, source)
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../../context.ts';
import { UnexpectedMentions } from '../../../domain/index.ts';
import { presentScheduled, hasPermission, PERMISSION } from '../../../entities/index.ts';
import { ApiError, notFound } from '../../../errors.ts';
import {
  auth,
  currentUser,
  viewer,
  parseParams,
  pathId,
  requestParams,
  zBool,
  zId,
  zList,
} from '../../../http/index.ts';
import { editInput, editSchema, postInput, postSchema } from './schemas.ts';
import { UPDATE_METHODS } from '../../update-methods.ts';

const MAX_BATCH = 20;

export function statusRoutes(app: FastifyInstance, ctx: SocialContext): void {
  app.post(
    '/api/v1/statuses',
    { config: { auth: auth.user('write:statuses'), actionLimit: 'statuses' } },
    async (req) => {
      const { user, account, app: client } = currentUser(req);
      const input = postInput(parseParams(postSchema, requestParams(req)), req);
      // Remote accounts mentioned for the first time are looked up first, so the mention links and reaches them.
      await ctx.federation?.resolveMentions(input.text);
      try {
        const result = ctx.statuses.post({ account, user, applicationId: client.id }, input);
        if (result.kind === 'scheduled') return presentScheduled(ctx.store, ctx.urls, [result.scheduled])[0];
        return ctx.statusPresenter.one(result.status, account);
      } catch (err) {
        if (err instanceof UnexpectedMentions)
          throw new ApiError(422, err.message, {
            ...err.extra,
            unexpected_accounts: ctx.presenter.present(err.accounts),
          });
        throw err;
      }
    },
  );

  app.get('/api/v1/statuses', { config: { auth: auth.optional('read:statuses') } }, async (req) => {
    const { id: ids } = parseParams(z.object({ id: zList(zId, MAX_BATCH) }), requestParams(req));
    const me = viewer(req);
    const readable = [...new Set(ids)]
      .map((id) => ctx.store.timelines.readable(me?.id ?? null, id))
      .filter((s) => s !== null);
    return ctx.statusPresenter.present(readable, me);
  });

  app.get('/api/v1/statuses/:id', { config: { auth: auth.optional('read:statuses') } }, async (req) => {
    const me = viewer(req);
    return ctx.statusPresenter.one(ctx.statuses.readable(me, pathId(req)), me);
  });

  app.route({
    method: UPDATE_METHODS,
    url: '/api/v1/statuses/:id',
    config: { auth: auth.user('write:statuses'), actionLimit: 'statuses' },
    handler: async (req) => {
      const { account } = currentUser(req);
      const input = editInput(parseParams(editSchema, requestParams(req)));
      await ctx.federation?.resolveMentions(input.text);
      return ctx.statusPresenter.one(ctx.statuses.edit(account, pathId(req), input), account);
    },
  });

  /** Answers with the deleted status and its source text, so clients can redraft it. */
  app.delete(
    '/api/v1/statuses/:id',
    { config: { auth: auth.user('write:statuses'), actionLimit: 'deletes' } },
    async (req) => {
      const { account, user } = currentUser(req);
      const { delete_media: deleteMedia } = parseParams(
        z.object({ delete_media: zBool.optional() }),
        requestParams(req),
      );
      const status = ctx.statuses.readable(account, pathId(req));
      // Staff who handle reports may delete anyone's status here; its author is told (the seed's rule).
      const moderating = status.accountId !== account.id && hasPermission(user.role, PERMISSION.manageReports);
      if (status.accountId !== account.id && !moderating) throw notFound();
      const json = ctx.statusPresenter.one(status, account, { source: true });
      if (moderating) await ctx.statuses.deleteAsModerator(account, status);
      else await ctx.statuses.delete(account, status, deleteMedia ?? false);
      return json;
    },
  );

  app.get('/api/v1/statuses/:id/context', { config: { auth: auth.optional('read:statuses') } }, async (req) => {
    const me = viewer(req);
    const status = ctx.statuses.readable(me, pathId(req));
    const thread = ctx.statuses.context(me, status);
    const ancestors = ctx.filters.visible(me, thread.ancestors, (s) => s, 'thread');
    const descendants = ctx.filters.visible(me, thread.descendants, (s) => s, 'thread');
    const json = ctx.statusPresenter.present([...ancestors, ...descendants], me, { context: 'thread' });
    return { ancestors: json.slice(0, ancestors.length), descendants: json.slice(ancestors.length) };
  });

  app.get('/api/v1/statuses/:id/history', { config: { auth: auth.optional('read:statuses') } }, async (req) => {
    const status = ctx.statuses.readable(viewer(req), pathId(req));
    if (status.reblogOfId !== null) throw notFound();
    return ctx.statusPresenter.history(status, ctx.store.statuses.edits(status.id));
  });

  app.get('/api/v1/statuses/:id/source', { config: { auth: auth.user('read:statuses') } }, async (req) => {
    const { account } = currentUser(req);
    const status = ctx.statuses.readable(account, pathId(req));
    if (status.accountId !== account.id || status.reblogOfId !== null) throw notFound();
    return { id: status.id, text: status.text, spoiler_text: status.spoilerText };
  });
}
