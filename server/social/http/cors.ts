import fastifyCors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { allowsCrossOrigin } from '../../http/index.ts';

/**
 * Other sites' pages may call the Mastodon API and read discovery documents and profiles (browser clients such as
 * Elk and Phanpy do), never the UI's API or pages, though the preflight route this registers answers OPTIONS on
 * every path. Registered once for all the social server's routes (API, federation, media).
 */
export async function registerSocialCors(app: FastifyInstance): Promise<void> {
  await app.register(fastifyCors, {
    delegator: (req, done) => done(null, allowsCrossOrigin(req.url) ? MASTODON_CORS : NO_CORS),
  });
}

// Lists written out once (the plugin joins arrays again for every request it answers).
const MASTODON_CORS = {
  origin: '*',
  methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].join(', '),
  allowedHeaders: ['Authorization', 'Content-Type', 'Accept', 'Idempotency-Key', 'Cache-Control'].join(', '),
  exposedHeaders: [
    'Link',
    'X-RateLimit-Limit',
    'X-RateLimit-Remaining',
    'X-RateLimit-Reset',
    'X-Request-Id',
    'Idempotency-Key',
    'Deprecation',
    'Mastodon-Async-Refresh',
  ].join(', '),
  maxAge: 86400,
} satisfies FastifyCorsOptions;
const NO_CORS = { origin: false } satisfies FastifyCorsOptions;
