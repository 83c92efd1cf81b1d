// https://docs.joinmastodon.org/methods/profile/
import type { FastifyInstance } from 'fastify';
import type { SocialContext } from '../../context.ts';
import { auth, currentUser, parseParams, requestParams, zBool } from '../../http/index.ts';
import { UPLOADS } from '../../limits.ts';
import type { Account, ProfileChanges, User } from '../../store/index.ts';
import { removeReplaced, updateProfile, updateSchema } from './accounts/credentials.ts';
import { UPDATE_METHODS } from '../update-methods.ts';

const profileSchema = updateSchema.extend({
  show_media: zBool.optional(),
  show_media_replies: zBool.optional(),
  show_featured: zBool.optional(),
});

/** The editable profile (Mastodon 4.6): the owner's own fields as entered, not as rendered. */
export function profileRoutes(app: FastifyInstance, ctx: SocialContext): void {
  const present = (account: Account, user: User) => {
    const json = ctx.presenter.one(account);
    const s = user.settings;
    return {
      id: account.id,
      display_name: account.displayName,
      note: account.note,
      fields: account.fields.map((f) => ({ name: f.name, value: f.value, verified_at: f.verified_at })),
      avatar: account.avatarFile ? json.avatar : null,
      avatar_static: account.avatarFile ? json.avatar_static : null,
      avatar_description: account.avatarDescription,
      header: account.headerFile ? json.header : null,
      header_static: account.headerFile ? json.header_static : null,
      header_description: account.headerDescription,
      locked: account.locked,
      bot: json.bot,
      discoverable: account.discoverable,
      hide_collections: account.hideCollections,
      indexable: account.indexable,
      attribution_domains: account.attributionDomains,
      show_media: s.showMedia ?? true,
      show_media_replies: s.showMediaReplies ?? true,
      show_featured: s.showFeatured ?? true,
    };
  };

  app.get('/api/v1/profile', { config: { auth: auth.user('profile', 'read:accounts') } }, async (req) => {
    const { account, user } = currentUser(req);
    return present(account, user);
  });

  app.route({
    method: UPDATE_METHODS,
    url: '/api/v1/profile',
    config: { auth: auth.user('write:accounts'), uploads: UPLOADS.images },
    handler: async (req) => {
      const { account, user } = currentUser(req);
      const {
        show_media: showMedia,
        show_media_replies: showMediaReplies,
        show_featured: showFeatured,
        ...fields
      } = parseParams(profileSchema, requestParams(req));
      const shown = Object.fromEntries(
        Object.entries({ showMedia, showMediaReplies, showFeatured }).filter(([, v]) => v !== undefined),
      );
      await updateProfile(ctx, account, user, fields, shown);
      return present(ctx.store.accounts.byId(account.id)!, ctx.store.users.byId(user.id)!);
    },
  });

  for (const image of ['avatar', 'header'] as const) {
    app.delete(`/api/v1/profile/${image}`, { config: { auth: auth.user('write:accounts') } }, async (req) => {
      const { account, user } = currentUser(req);
      const changes: ProfileChanges =
        image === 'avatar' ? { avatarFile: null, avatarDescription: '' } : { headerFile: null, headerDescription: '' };
      ctx.accounts.updateProfile(account.id, changes);
      await removeReplaced(ctx, account, changes);
      return ctx.presenter.credential(ctx.store.accounts.byId(account.id)!, user);
    });
  }
}
