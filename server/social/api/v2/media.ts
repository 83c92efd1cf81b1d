// https://docs.joinmastodon.org/methods/media/#v2
import type { FastifyInstance } from 'fastify';
import { UPLOADS } from '../../limits.ts';
import type { SocialContext } from '../../context.ts';
import { serializeMedia } from '../../entities/index.ts';
import { auth, currentUser, parseParams, requestParams } from '../../http/index.ts';
import { uploadSchema } from '../v1/media.ts';

/** Asynchronous upload: the file is checked, then 202 with url null; processing runs after the response. */
export function mediaV2Routes(app: FastifyInstance, ctx: SocialContext): void {
  app.post(
    '/api/v2/media',
    { config: { auth: auth.user('write:media'), uploads: UPLOADS.media, actionLimit: 'media' } },
    async (req, reply) => {
      const { account } = currentUser(req);
      const p = parseParams(uploadSchema, requestParams(req));
      const row = await ctx.mediaService.create(account, p, 'async');
      reply.code(202);
      return serializeMedia(ctx.urls, row);
    },
  );
}
