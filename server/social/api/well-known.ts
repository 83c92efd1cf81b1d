// NodeInfo 2.0 (https://nodeinfo.diaspora.software/protocol): how other software (e.g. megalodon's detector) learns what we are.
import type { FastifyInstance } from 'fastify';
import type { SocialContext } from '../context.ts';
import { activeUsers } from '../entities/index.ts';
import { auth } from '../http/index.ts';
import { MASTODON_COMPAT_VERSION } from '../limits.ts';
import { HOMEPORT_VERSION } from '../../version.ts';

const NODEINFO_20 = 'http://nodeinfo.diaspora.software/ns/schema/2.0';
const NODEINFO_21 = 'http://nodeinfo.diaspora.software/ns/schema/2.1';

export function wellKnownRoutes(app: FastifyInstance, ctx: SocialContext): void {
  const cached = { auth: auth.public(), publicCache: true } as const;

  app.get('/.well-known/nodeinfo', { config: cached }, async () => ({
    links: [
      { rel: NODEINFO_20, href: ctx.urls.absolute('/nodeinfo/2.0') },
      { rel: NODEINFO_21, href: ctx.urls.absolute('/nodeinfo/2.1') },
    ],
  }));

  // The same document in both versions; 2.1 adds where the software comes from.
  const document = (version: '2.0' | '2.1') => ({
    version,
    // Our own name; clients that only know Mastodon-compatible servers read metadata.upstream.
    software: {
      name: 'homeport',
      version: HOMEPORT_VERSION,
      ...(version === '2.1' ? { homepage: ctx.urls.base } : {}),
    },
    protocols: ['activitypub'],
    services: { outbound: [], inbound: [] },
    usage: {
      users: {
        total: ctx.store.accounts.localUserCount(),
        activeMonth: activeUsers(ctx, 30),
        activeHalfyear: activeUsers(ctx, 180),
      },
      localPosts: ctx.store.accounts.localStatusCount(),
    },
    openRegistrations: ctx.store.settings.registrationMode() === 'open',
    metadata: {
      nodeName: ctx.store.settings.owner('title'),
      nodeDescription: ctx.store.settings.owner('description'),
      upstream: { name: 'mastodon', version: MASTODON_COMPAT_VERSION },
    },
  });
  app.get('/nodeinfo/2.0', { config: cached }, async (_req, reply) =>
    reply.type(`application/json; profile="${NODEINFO_20}#"`).send(document('2.0')),
  );
  app.get('/nodeinfo/2.1', { config: cached }, async (_req, reply) =>
    reply.type(`application/json; profile="${NODEINFO_21}#"`).send(document('2.1')),
  );
}
