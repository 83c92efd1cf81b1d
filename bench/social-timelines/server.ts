/** The social server as bench/social-timelines.ts serves it (the general API rate limit off), with extra routes. */
import type { FastifyInstance } from 'fastify';
import { createHttpServer } from '../../server/http/index.ts';
import { openSocial, type Social } from '../../server/social/index.ts';
import { benchLogger } from './seed.ts';

export async function openBenchServer(
  dataDir: string,
  routes: (app: FastifyInstance, social: Social) => Promise<void>,
): Promise<{ social: Social; http: FastifyInstance }> {
  const logger = benchLogger();
  const social = await openSocial({ dataDir, logger, domain: 'localhost:0', generalRateLimit: false });
  const http = await createHttpServer({
    logger,
    rendererDir: null,
    plugins: [
      { name: 'social', plugin: social.plugin },
      { name: 'bench', plugin: (app) => routes(app, social) },
    ],
  });
  return { social, http };
}
