// https://docs.joinmastodon.org/methods/accounts/ (follow … note, relationships, familiar_followers)
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../../context.ts';
import { serializeRelationship } from '../../../entities/index.ts';
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
import type { Account } from '../../../store/index.ts';

const MAX_IDS = 40;

export function relationshipJson(ctx: SocialContext, me: Account, targetId: string) {
  return serializeRelationship(ctx.store.relationships.facts(me.id, [targetId])[0]);
}

const followSchema = z.object({
  reblogs: zBool.optional(),
  notify: zBool.optional(),
  languages: z
    .preprocess(
      (v) => (v === '' ? null : v),
      zList(zString.refine((s) => /^[a-z]{2,3}$/.test(s), 'must be ISO 639-1 language codes')).nullable(),
    )
    .optional(),
});
const muteSchema = z.object({ notifications: zBool.optional(), duration: zInt.optional() });
const noteSchema = z.object({ comment: z.preprocess((v) => (v === null || v === undefined ? '' : v), zString) });

export function relationshipRoutes(app: FastifyInstance, ctx: SocialContext): void {
  const target = (req: FastifyRequest) => ctx.relationships.visibleAccount(pathId(req));

  app.get('/api/v1/accounts/relationships', { config: { auth: auth.user('read:follows') } }, async (req) => {
    const { account: me } = currentUser(req);
    const p = parseParams(
      z.object({ id: zList(zId, MAX_IDS).optional(), with_suspended: zBool.optional() }),
      requestParams(req),
    );
    const ids = [...new Set(p.id ?? [])];
    const accounts = ctx.store.accounts
      .byIds(ids)
      .filter((a) => a.deletedAt === null && (p.with_suspended || a.suspendedAt === null));
    return ctx.store.relationships
      .facts(
        me.id,
        accounts.map((a) => a.id),
      )
      .map(serializeRelationship);
  });

  app.get('/api/v1/accounts/familiar_followers', { config: { auth: auth.user('read:follows') } }, async (req) => {
    const { account: me } = currentUser(req);
    const p = parseParams(z.object({ id: zList(zId, MAX_IDS).optional() }), requestParams(req));
    const ids = [...new Set(p.id ?? [])];
    const accounts = ctx.store.accounts.byIds(ids).filter((a) => a.deletedAt === null);
    return accounts.map((a) => {
      const hide = a.suspendedAt !== null || a.hideCollections === true;
      return {
        id: a.id,
        accounts: hide ? [] : ctx.presenter.present(ctx.store.relationships.familiarFollowers(me.id, a.id, 40)),
      };
    });
  });

  app.post(
    '/api/v1/accounts/:id/follow',
    { config: { auth: auth.user('write:follows'), actionLimit: 'follows' } },
    async (req) => {
      const { account: me } = currentUser(req);
      const other = target(req);
      const p = parseParams(followSchema, requestParams(req));
      ctx.relationships.follow(me, other, {
        reblogs: p.reblogs,
        notify: p.notify,
        languages: p.languages === undefined ? undefined : p.languages,
      });
      return relationshipJson(ctx, me, other.id);
    },
  );

  app.post('/api/v1/accounts/:id/unfollow', { config: { auth: auth.user('write:follows') } }, async (req) => {
    const { account: me } = currentUser(req);
    const other = target(req);
    ctx.relationships.unfollow(me, other);
    return relationshipJson(ctx, me, other.id);
  });

  app.post(
    '/api/v1/accounts/:id/remove_from_followers',
    { config: { auth: auth.user('write:follows') } },
    async (req) => {
      const { account: me } = currentUser(req);
      const other = target(req);
      ctx.relationships.removeFromFollowers(me, other);
      return relationshipJson(ctx, me, other.id);
    },
  );

  app.post('/api/v1/accounts/:id/block', { config: { auth: auth.user('write:blocks') } }, async (req) => {
    const { account: me } = currentUser(req);
    const other = target(req);
    ctx.relationships.block(me, other);
    return relationshipJson(ctx, me, other.id);
  });

  app.post('/api/v1/accounts/:id/unblock', { config: { auth: auth.user('write:blocks') } }, async (req) => {
    const { account: me } = currentUser(req);
    const other = target(req);
    ctx.relationships.unblock(me, other);
    return relationshipJson(ctx, me, other.id);
  });

  app.post('/api/v1/accounts/:id/mute', { config: { auth: auth.user('write:mutes') } }, async (req) => {
    const { account: me } = currentUser(req);
    const other = target(req);
    const p = parseParams(muteSchema, requestParams(req));
    ctx.relationships.mute(me, other, { notifications: p.notifications ?? true, durationSeconds: p.duration ?? 0 });
    return relationshipJson(ctx, me, other.id);
  });

  app.post('/api/v1/accounts/:id/unmute', { config: { auth: auth.user('write:mutes') } }, async (req) => {
    const { account: me } = currentUser(req);
    const other = target(req);
    ctx.relationships.unmute(me, other);
    return relationshipJson(ctx, me, other.id);
  });

  app.post('/api/v1/accounts/:id/note', { config: { auth: auth.user('write:accounts') } }, async (req) => {
    const { account: me } = currentUser(req);
    const other = target(req);
    const p = parseParams(noteSchema, requestParams(req));
    ctx.relationships.setNote(me, other, p.comment);
    return relationshipJson(ctx, me, other.id);
  });

  for (const [path, deprecated] of [
    ['endorse', undefined],
    ['pin', '2025-04-23'],
  ] as const) {
    app.post(
      `/api/v1/accounts/:id/${path}`,
      { config: { auth: auth.user('write:accounts'), deprecated } },
      async (req) => {
        const { account: me } = currentUser(req);
        const other = target(req);
        ctx.relationships.endorse(me, other);
        return relationshipJson(ctx, me, other.id);
      },
    );
  }
  for (const [path, deprecated] of [
    ['unendorse', undefined],
    ['unpin', '2025-04-23'],
  ] as const) {
    app.post(
      `/api/v1/accounts/:id/${path}`,
      { config: { auth: auth.user('write:accounts'), deprecated } },
      async (req) => {
        const { account: me } = currentUser(req);
        const other = target(req);
        ctx.relationships.unendorse(me, other);
        return relationshipJson(ctx, me, other.id);
      },
    );
  }
}
