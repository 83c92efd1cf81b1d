// https://docs.joinmastodon.org/methods/domain_blocks/ (the user's own domain blocks)
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../context.ts';
import { typedDomainHost } from '../../domain/index.ts';
import { ValidationFailure } from '../../errors.ts';
import { auth, currentUser, pageQuery, setLinkHeader, parseParams, requestParams, zString } from '../../http/index.ts';

const domainSchema = z.object({ domain: zString });

export function domainBlockRoutes(app: FastifyInstance, ctx: SocialContext): void {
  app.get('/api/v1/domain_blocks', { config: { auth: auth.user('read:blocks') } }, async (req, reply) => {
    const { account } = currentUser(req);
    const page = pageQuery(requestParams(req), 100, 200);
    const rows = ctx.store.userDomainBlocks.domainBlocks(account.id, page);
    setLinkHeader(
      req,
      reply,
      ctx.urls,
      rows.map((r) => r.cursor),
      page,
    );
    return rows.map((r) => r.domain);
  });

  const domainParam = (params: Record<string, unknown>): string => {
    const { domain: raw } = parseParams(domainSchema, params);
    if (!raw.trim()) throw ValidationFailure.single('domain', 'ERR_BLANK', "can't be blank");
    const domain = typedDomainHost(raw);
    if (!domain) throw ValidationFailure.single('domain', 'ERR_INVALID', 'is not a valid domain name');
    return domain;
  };

  app.post('/api/v1/domain_blocks', { config: { auth: auth.user('write:blocks') } }, async (req) => {
    const { account } = currentUser(req);
    ctx.relationships.blockDomain(account, domainParam(requestParams(req)), ctx.urls.domain);
    return {};
  });

  app.delete('/api/v1/domain_blocks', { config: { auth: auth.user('write:blocks') } }, async (req) => {
    const { account } = currentUser(req);
    ctx.relationships.unblockDomain(account, domainParam(requestParams(req)));
    return {};
  });
}
