import fs from 'node:fs';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { placeholderImages } from './images.ts';
import type { MediaStorage } from './storage.ts';

/**
 * Serves stored media at /system/… and the placeholder avatar and header. Registered in a context of its
 * own: files are not rate limited (a timeline shows dozens of avatars at once) and are publicly cacheable.
 */
export async function mediaFileRoutes(app: FastifyInstance, media: MediaStorage): Promise<void> {
  fs.mkdirSync(media.root, { recursive: true });
  await app.register(fastifyStatic, {
    root: media.root,
    prefix: '/system/',
    decorateReply: false,
    index: false,
    list: false,
    dotfiles: 'deny',
    maxAge: 365 * 24 * 3600 * 1000,
    immutable: true,
    setHeaders: (reply) => {
      reply.header('X-Content-Type-Options', 'nosniff');
      reply.header('Access-Control-Allow-Origin', '*');
      reply.header('Content-Security-Policy', "default-src 'none'; sandbox");
    },
  });
  for (const kind of ['avatar', 'header'] as const) {
    app.get(`/${kind}s/original/missing.png`, async (_req, reply) => {
      const images = await placeholderImages();
      return reply
        .type('image/png')
        .header('Cache-Control', 'public, max-age=86400')
        .header('Access-Control-Allow-Origin', '*')
        .send(images[kind]);
    });
  }
}
