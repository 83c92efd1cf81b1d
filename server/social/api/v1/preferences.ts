// https://docs.joinmastodon.org/methods/preferences/
import type { FastifyInstance } from 'fastify';
import type { SocialContext } from '../../context.ts';
import { auth, currentUser } from '../../http/index.ts';

export function preferenceRoutes(app: FastifyInstance, _ctx: SocialContext): void {
  app.get('/api/v1/preferences', { config: { auth: auth.user('read:accounts') } }, async (req) => {
    const s = currentUser(req).user.settings;
    return {
      'posting:default:visibility': s.defaultPrivacy ?? 'public',
      'posting:default:sensitive': s.defaultSensitive ?? false,
      'posting:default:language': s.defaultLanguage ?? null,
      'posting:default:quote_policy': s.defaultQuotePolicy ?? 'public',
      'reading:expand:media': s.expandMedia ?? 'default',
      'reading:expand:spoilers': s.expandSpoilers ?? false,
      'reading:autoplay:gifs': s.autoplayGifs ?? false,
    };
  });
}
