import type { FastifyPluginAsync } from 'fastify';
import { requireOwner, type UiSessions } from '../http/index.ts';
import type { SocialContext } from './context.ts';
import { ValidationFailure } from './errors.ts';
import { checkInstance, type SelfCheckReport } from './federation/index.ts';
import { holdAnswersUntilDurable } from './durable-answers.ts';
import { PROFILE_IMAGE_LIMIT, processProfileImage } from './media/index.ts';

export type { SelfCheckReport };

/** What the Social tab needs to know before its client signs in: is there a profile yet. */
export interface SocialSetup {
  hasAccounts: boolean;
  domain: string;
  publicUrl: string;
  /** Local only until a public https address is configured. */
  federating: boolean;
}

const profileBody = {
  type: 'object',
  required: ['username', 'email', 'password'],
  additionalProperties: false,
  properties: {
    username: { type: 'string', minLength: 1, maxLength: 30 },
    displayName: { type: 'string', maxLength: 30 },
    email: { type: 'string', minLength: 3, maxLength: 320 },
    password: { type: 'string', minLength: 8, maxLength: 72 },
    note: { type: 'string', maxLength: 500 },
  },
} as const;

/** The social server's routes in the Homeport UI's API (owner only): first run and the federation self-check. */
export function socialUiRoutes(ctx: SocialContext): FastifyPluginAsync<{ sessions: UiSessions }> {
  return async (app, { sessions }) => {
    holdAnswersUntilDurable(app, ctx.store);
    // Checked on request, before any body is read.
    const owner = { onRequest: requireOwner(sessions) };
    let running: Promise<SelfCheckReport> | null = null;
    app.post('/federation/self-check', owner, async () => {
      // One check at a time: a second click waits for the first instead of fetching everything again.
      running ??= checkInstance(ctx).finally(() => (running = null));
      return running;
    });

    app.get(
      '/social/setup',
      owner,
      async (): Promise<SocialSetup> => ({
        hasAccounts: ctx.store.accounts.localUserCount() > 0 || ctx.store.users.staffContact() !== null,
        domain: ctx.urls.domain,
        publicUrl: ctx.urls.base,
        federating: ctx.urls.base.startsWith('https://'),
      }),
    );

    // First run: the owner's profile, made from the UI instead of the CLI; refused once any account exists.
    app.post<{ Body: { username: string; displayName?: string; email: string; password: string; note?: string } }>(
      '/social/setup',
      { ...owner, schema: { body: profileBody } },
      async (req, reply) => {
        if (ctx.store.accounts.localUserCount() > 0 || ctx.store.users.staffContact() !== null)
          return reply.code(409).send({ error: 'A profile exists already: sign in with it' });
        const input = req.body;
        try {
          const created = await ctx.accounts.create({
            username: input.username.trim().replace(/^@/, ''),
            email: input.email.trim(),
            password: input.password,
            role: 'owner',
            confirmed: true,
            approved: true,
          });
          const changes = { displayName: input.displayName?.trim() ?? '', note: input.note ?? '' };
          ctx.accounts.updateProfile(created.account.id, changes);
          return reply.code(201).send({ username: created.account.username });
        } catch (err) {
          if (err instanceof ValidationFailure)
            return reply.code(422).send({ error: `The profile could not be created: ${describe(err)}` });
          throw err;
        }
      },
    );

    // The first-run profile's picture, sent as the image file itself (the form's other fields are JSON).
    await app.register(async (images) => {
      images.addContentTypeParser(
        /^image\//,
        { parseAs: 'buffer', bodyLimit: PROFILE_IMAGE_LIMIT },
        (_req, body, done) => done(null, body),
      );
      images.put('/social/setup/avatar', owner, async (req, reply) => {
        const user = ctx.store.users.staffContact();
        if (user?.role !== 'owner') return reply.code(409).send({ error: 'Create the profile first' });
        if (!Buffer.isBuffer(req.body))
          return reply.code(415).send({ error: 'Send the picture as the body, with its image/* content type' });
        const account = ctx.store.accounts.byId(user.accountId)!;
        const body = req.body;
        let processed: { data: Buffer; extension: string };
        try {
          processed = await processProfileImage('avatar', { data: body, size: body.length }, 400, 400);
        } catch (err) {
          if (err instanceof ValidationFailure)
            return reply.code(422).send({ error: `The picture was refused: ${describe(err)}` });
          throw err;
        }
        const written = await ctx.media.write(`accounts/avatars/${account.id}`, processed.extension, processed.data);
        ctx.accounts.updateProfile(account.id, { avatarFile: written });
        if (account.avatarFile && account.avatarFile !== written) await ctx.media.remove(account.avatarFile);
        return reply.code(204).send();
      });
    });
  };
}

/** A validation failure as one sentence ("username is taken; password is too short"). */
function describe(err: ValidationFailure): string {
  return Object.entries(err.details)
    .map(([field, errors]) => `${field} ${errors.map((e) => e.description).join(', ')}`)
    .join('; ');
}
