// https://docs.joinmastodon.org/methods/directory/
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../context.ts';
import { auth, viewer, parseParams, requestParams, zBool, zInt } from '../../http/index.ts';

const schema = z.object({
  offset: zInt.optional(),
  limit: zInt.optional(),
  order: z.enum(['active', 'new']).optional(),
  local: zBool.optional(),
});

export function directoryRoutes(app: FastifyInstance, ctx: SocialContext): void {
  app.get('/api/v1/directory', { config: { auth: auth.optional('read:accounts') } }, async (req) => {
    const p = parseParams(schema, requestParams(req));
    const found = ctx.store.accounts.directory({
      order: p.order ?? 'active',
      localOnly: p.local ?? false,
      limit: Math.min(Math.max(p.limit ?? 40, 1), 80),
      offset: Math.max(p.offset ?? 0, 0),
    });
    const me = viewer(req);
    if (!me) return ctx.presenter.present(found);
    // Accounts the viewer blocks or that block the viewer are left out, as from search.
    const hidden = new Set(
      ctx.store.relationships
        .facts(
          me.id,
          found.map((a) => a.id),
        )
        .filter((f) => f.blocking || f.blockedBy || f.domainBlocking)
        .map((f) => f.id),
    );
    return ctx.presenter.present(found.filter((a) => !hidden.has(a.id)));
  });

  // Mastodon's load-balancer probe: answers while the server serves.
  app.get('/health', { config: { auth: auth.public() } }, async (_req, reply) =>
    reply.type('text/plain; charset=utf-8').send('OK'),
  );
}
