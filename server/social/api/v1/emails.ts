// https://docs.joinmastodon.org/methods/emails/
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../context.ts';
import { ApiError, forbidden } from '../../errors.ts';
import { auth, currentUser, parseParams, requestParams, zString } from '../../http/index.ts';

export function emailRoutes(app: FastifyInstance, ctx: SocialContext): void {
  /** Resends the confirmation e-mail, optionally to a corrected address; only for the app the user signed up with. */
  app.post(
    '/api/v1/emails/confirmations',
    { config: { auth: auth.unconfirmedUser('write:accounts') } },
    async (req) => {
      const { user, account, app: callerApp } = currentUser(req);
      if (user.createdByApplicationId !== callerApp.id) throw forbidden();
      if (user.confirmedAt !== null)
        throw new ApiError(403, 'This method is only available while the e-mail is awaiting confirmation');
      const { email } = parseParams(z.object({ email: zString.optional() }), requestParams(req));
      if (email !== undefined && email.trim() !== '' && email.trim().toLowerCase() !== user.email.toLowerCase())
        ctx.accounts.changeUnconfirmedEmail(user, email.trim());
      ctx.accounts.sendConfirmation(ctx.store.users.byId(user.id)!, account);
      return {};
    },
  );

  // Undocumented in Mastodon's docs but routed: whether the user confirmed, for apps polling after sign-up.
  app.get(
    '/api/v1/emails/check_confirmation',
    { config: { auth: auth.unconfirmedUser('read:accounts') } },
    async (req) => {
      const { user, app: callerApp } = currentUser(req);
      if (user.createdByApplicationId !== callerApp.id) throw forbidden();
      return user.confirmedAt !== null;
    },
  );
}
