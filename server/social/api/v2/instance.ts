// https://docs.joinmastodon.org/methods/instance/#v2
import type { FastifyInstance } from 'fastify';
import type { SocialContext } from '../../context.ts';
import { serializeInstanceV2 } from '../../entities/index.ts';
import { auth } from '../../http/index.ts';

export function instanceV2Routes(app: FastifyInstance, ctx: SocialContext): void {
  app.get('/api/v2/instance', { config: { auth: auth.public(), publicCache: true } }, async () =>
    serializeInstanceV2(ctx),
  );
}
