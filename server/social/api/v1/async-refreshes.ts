// https://docs.joinmastodon.org/methods/async_refreshes/
import type { FastifyInstance } from 'fastify';
import type { SocialContext } from '../../context.ts';
import { notFound } from '../../errors.ts';
import { auth } from '../../http/index.ts';

/**
 * Mastodon names a background refresh (of a thread's remote replies) in a `Mastodon-Async-Refresh` header
 * that clients poll here. Homeport fetches what a thread needs while answering and never sends that header,
 * so every id is unknown: 404, as Mastodon answers for a refresh it does not know.
 */
export function asyncRefreshRoutes(app: FastifyInstance, _ctx: SocialContext): void {
  app.get('/api/v1_alpha/async_refreshes/:id', { config: { auth: auth.user('read') } }, async () => {
    throw notFound();
  });
}
