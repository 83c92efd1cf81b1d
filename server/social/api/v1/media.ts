// https://docs.joinmastodon.org/methods/media/ (v1 upload, view, update, delete)
import type { FastifyInstance } from 'fastify';
import { UPLOADS } from '../../limits.ts';
import { z } from 'zod';
import type { SocialContext } from '../../context.ts';
import { ApiError } from '../../errors.ts';
import { serializeMedia } from '../../entities/index.ts';
import { auth, currentUser, parseParams, pathId, requestParams, zFile, zString } from '../../http/index.ts';
import { UPDATE_METHODS } from '../update-methods.ts';

const blankToUndefined = (v: unknown) => (v === '' ? undefined : v);
export const uploadSchema = z.object({
  file: zFile,
  thumbnail: z.preprocess(blankToUndefined, zFile.optional()),
  description: z.preprocess((v) => (v === null ? undefined : v), zString.optional()),
  focus: z.preprocess((v) => (v === null ? undefined : v), zString.optional()),
});
const updateSchema = z.object({
  thumbnail: z.preprocess(blankToUndefined, zFile.optional()),
  description: z.preprocess((v) => (v === null ? '' : v), zString.optional()),
  focus: z.preprocess((v) => (v === null ? '' : v), zString.optional()),
});

export function mediaRoutes(app: FastifyInstance, ctx: SocialContext): void {
  // Synchronous upload (deprecated in favour of v2): answers when the file is processed.
  app.post(
    '/api/v1/media',
    {
      config: {
        auth: auth.user('write:media'),
        deprecated: '2020-04-03',
        uploads: UPLOADS.media,
        actionLimit: 'media',
      },
    },
    async (req) => {
      const { account } = currentUser(req);
      const p = parseParams(uploadSchema, requestParams(req));
      return serializeMedia(ctx.urls, await ctx.mediaService.create(account, p, 'sync'));
    },
  );

  /** 206 while processing, 200 once done; a file that failed processing is a 422 with the reason. */
  app.get('/api/v1/media/:id', { config: { auth: auth.user('write:media') } }, async (req, reply) => {
    const { account } = currentUser(req);
    const row = ctx.mediaService.own(account, pathId(req));
    if (row.processing === 'failed')
      throw new ApiError(422, `Validation failed: File ${row.processingError ?? 'could not be processed'}`, {
        details: { file: [{ error: 'ERR_INVALID', description: row.processingError ?? 'could not be processed' }] },
      });
    if (row.processing !== 'done') reply.code(206);
    return serializeMedia(ctx.urls, row);
  });

  app.route({
    method: UPDATE_METHODS,
    url: '/api/v1/media/:id',
    config: { auth: auth.user('write:media'), uploads: UPLOADS.images },
    handler: async (req) => {
      const { account } = currentUser(req);
      const p = parseParams(updateSchema, requestParams(req));
      return serializeMedia(ctx.urls, await ctx.mediaService.update(account, pathId(req), p));
    },
  });

  app.delete('/api/v1/media/:id', { config: { auth: auth.user('write:media') } }, async (req) => {
    const { account } = currentUser(req);
    await ctx.mediaService.remove(account, pathId(req));
    return {};
  });
}
