// https://docs.joinmastodon.org/methods/custom_emojis/
import type { FastifyInstance } from 'fastify';
import type { SocialContext } from '../../context.ts';
import { auth } from '../../http/index.ts';

export function customEmojiRoutes(app: FastifyInstance, ctx: SocialContext): void {
  app.get('/api/v1/custom_emojis', { config: { auth: auth.public(), publicCache: true } }, async () =>
    ctx.store.emojis.local().map((e) => ({
      shortcode: e.shortcode,
      url: ctx.urls.media(e.imagePath),
      static_url: ctx.urls.media(e.staticPath),
      visible_in_picker: e.visibleInPicker,
      category: e.category,
    })),
  );
}
