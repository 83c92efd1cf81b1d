// https://docs.joinmastodon.org/methods/statuses/#translate
import type { FastifyInstance } from 'fastify';
import type { SocialContext } from '../../../context.ts';
import { notFound } from '../../../errors.ts';
import { auth, viewer, pathId } from '../../../http/index.ts';

/**
 * Homeport has no translation service (instance configuration says `translation.enabled: false`): as
 * Mastodon without one, a readable status answers 404 after the usual checks, as an unreadable one does.
 */
export function statusTranslateRoutes(app: FastifyInstance, ctx: SocialContext): void {
  app.post('/api/v1/statuses/:id/translate', { config: { auth: auth.app('read:statuses') } }, async (req) => {
    ctx.statuses.readable(viewer(req), pathId(req));
    throw notFound();
  });
}
