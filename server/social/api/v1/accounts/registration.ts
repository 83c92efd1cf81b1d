// https://docs.joinmastodon.org/methods/accounts/#create
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../../context.ts';
import { serializeToken } from '../../../entities/index.ts';
import { ApiError, ValidationFailure } from '../../../errors.ts';
import { auth, parseParams, requestParams, zBool, zString, SIGN_UP_RATE_LIMIT } from '../../../http/index.ts';

const registrationParams = z.object({
  username: zString.optional(),
  email: zString.optional(),
  password: zString.optional(),
  agreement: zBool.optional(),
  locale: zString.optional(),
  reason: zString.optional(),
  date_of_birth: zString.optional(),
});

export function registrationRoutes(app: FastifyInstance, ctx: SocialContext): void {
  /**
   * Sign-up with an application token. The user starts unconfirmed (and unapproved when registrations
   * need approval), gets a confirmation e-mail, and receives a token for the calling application.
   */
  app.post(
    '/api/v1/accounts',
    { config: { auth: auth.app('write:accounts'), rateLimit: SIGN_UP_RATE_LIMIT } },
    async (req) => {
      const mode = ctx.store.settings.registrationMode();
      if (mode === 'closed')
        throw new ApiError(
          403,
          ctx.store.settings.owner('registrations_message') || 'Registrations are closed on this server',
        );
      const p = parseParams(registrationParams, requestParams(req));
      const principal = req.principal!;
      // The server's e-mail and IP blocks (admin API): refused, or left waiting for approval.
      const ipBlock = ctx.moderation.ipBlockFor(req.ip);
      if (ipBlock?.severity === 'sign_up_block')
        throw ValidationFailure.single('base', 'ERR_BLOCKED', 'sign-ups from your network are not allowed');
      if (p.email && ctx.moderation.emailBlocked(p.email))
        throw ValidationFailure.single('email', 'ERR_BLOCKED', 'is not allowed');
      const { user } = await ctx.accounts.create({
        username: (p.username ?? '').trim(),
        email: (p.email ?? '').trim(),
        password: p.password ?? '',
        requireAgreement: true,
        agreement: p.agreement,
        locale: p.locale?.trim() || null,
        reason: p.reason?.trim() || null,
        // Clients such as masto.js send a full timestamp; Mastodon takes its date part.
        dateOfBirth:
          p.date_of_birth?.trim().replace(/^(\d{4}-\d{2}-\d{2})T[\d:.]+(Z|[+-]\d{2}:?\d{2})?$/, '$1') || null,
        role: 'user',
        confirmed: false,
        approved: mode === 'open' && ipBlock?.severity !== 'sign_up_requires_approval',
        createdByApplicationId: principal.app.id,
        signUpIp: req.ip,
      });
      const { token, secret } = ctx.applications.issueToken({
        applicationId: principal.app.id,
        userId: user.id,
        scopes: principal.token.scopes,
      });
      return serializeToken(secret, token.scopes, token.createdAt);
    },
  );
}
