// https://docs.joinmastodon.org/methods/admin/domain_blocks/ and /domain_allows/
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../../context.ts';
import { normalizeDomain } from '../../../domain/index.ts';
import { serializeDomainAllow, serializeDomainBlock, PERMISSION } from '../../../entities/index.ts';
import { ApiError, notFound } from '../../../errors.ts';
import {
  auth,
  currentStaff,
  pageQuery,
  setLinkHeader,
  parseParams,
  pathId,
  requestParams,
  zBool,
  zString,
} from '../../../http/index.ts';
import { DOMAIN_BLOCK_SEVERITIES, type DomainBlockInput } from '../../../store/index.ts';
import { UPDATE_METHODS } from '../../update-methods.ts';

const domain = zString
  .transform(normalizeDomain)
  .refine((d) => /^[a-z0-9.-]+$/.test(d) && d.includes('.') && !d.startsWith('.'), 'is not a valid domain');
const blockFields = {
  severity: z.enum(DOMAIN_BLOCK_SEVERITIES).optional(),
  reject_media: zBool.optional(),
  reject_reports: zBool.optional(),
  private_comment: zString.refine((s) => s.length <= 1000, 'is too long (maximum is 1000 characters)').optional(),
  public_comment: zString.refine((s) => s.length <= 1000, 'is too long (maximum is 1000 characters)').optional(),
  obfuscate: zBool.optional(),
};

export function adminDomainRoutes(app: FastifyInstance, ctx: SocialContext): void {
  const staff = (req: FastifyRequest) => currentStaff(req, PERMISSION.manageFederation).account;
  const blocks = ctx.store.moderation;

  app.get(
    '/api/v1/admin/domain_blocks',
    { config: { auth: auth.user('admin:read:domain_blocks') } },
    async (req, reply) => {
      staff(req);
      const page = pageQuery(requestParams(req), 100, 200);
      const rows = blocks.domainBlocks(page);
      setLinkHeader(
        req,
        reply,
        ctx.urls,
        rows.map((r) => r.id),
        page,
      );
      return rows.map(serializeDomainBlock);
    },
  );

  app.get(
    '/api/v1/admin/domain_blocks/:id',
    { config: { auth: auth.user('admin:read:domain_blocks') } },
    async (req) => {
      staff(req);
      const row = blocks.domainBlock(pathId(req));
      if (!row) throw notFound();
      return serializeDomainBlock(row);
    },
  );

  const input = (
    p: { domain: string } & Partial<Record<keyof typeof blockFields, unknown>>,
    base?: DomainBlockInput,
  ): DomainBlockInput => ({
    domain: p.domain,
    severity: (p.severity as DomainBlockInput['severity'] | undefined) ?? base?.severity ?? 'silence',
    rejectMedia: (p.reject_media as boolean | undefined) ?? base?.rejectMedia ?? false,
    rejectReports: (p.reject_reports as boolean | undefined) ?? base?.rejectReports ?? false,
    privateComment: (p.private_comment as string | undefined) ?? base?.privateComment ?? null,
    publicComment: (p.public_comment as string | undefined) ?? base?.publicComment ?? null,
    obfuscate: (p.obfuscate as boolean | undefined) ?? base?.obfuscate ?? false,
  });

  app.post('/api/v1/admin/domain_blocks', { config: { auth: auth.user('admin:write:domain_blocks') } }, async (req) => {
    staff(req);
    const p = parseParams(z.object({ domain, ...blockFields }), requestParams(req));
    const result = ctx.moderation.blockDomain(input(p));
    if ('conflict' in result) {
      throw new ApiError(422, `You have already imposed stricter limits on ${result.conflict.domain}.`, {
        existing_domain_block: serializeDomainBlock(result.conflict),
      });
    }
    return serializeDomainBlock(result.created);
  });

  app.route({
    method: UPDATE_METHODS,
    url: '/api/v1/admin/domain_blocks/:id',
    config: { auth: auth.user('admin:write:domain_blocks') },
    handler: async (req) => {
      staff(req);
      const row = blocks.domainBlock(pathId(req));
      if (!row) throw notFound();
      const p = parseParams(z.object(blockFields), requestParams(req));
      return serializeDomainBlock(
        ctx.moderation.changeDomainBlock(row.id, (current) => input({ ...p, domain: current.domain }, current)),
      );
    },
  });

  app.delete(
    '/api/v1/admin/domain_blocks/:id',
    { config: { auth: auth.user('admin:write:domain_blocks') } },
    async (req) => {
      staff(req);
      ctx.moderation.removeDomainBlock(pathId(req));
      return {};
    },
  );

  app.get(
    '/api/v1/admin/domain_allows',
    { config: { auth: auth.user('admin:read:domain_allows') } },
    async (req, reply) => {
      staff(req);
      const page = pageQuery(requestParams(req), 100, 200);
      const rows = blocks.domainAllows.list(page);
      setLinkHeader(
        req,
        reply,
        ctx.urls,
        rows.map((r) => r.id),
        page,
      );
      return rows.map(serializeDomainAllow);
    },
  );

  app.get(
    '/api/v1/admin/domain_allows/:id',
    { config: { auth: auth.user('admin:read:domain_allows') } },
    async (req) => {
      staff(req);
      const row = blocks.domainAllows.byId(pathId(req));
      if (!row) throw notFound();
      return serializeDomainAllow(row);
    },
  );

  // Allowing a domain that is already allowed answers with the existing record (as Mastodon).
  app.post('/api/v1/admin/domain_allows', { config: { auth: auth.user('admin:write:domain_allows') } }, async (req) => {
    staff(req);
    const p = parseParams(z.object({ domain }), requestParams(req));
    return serializeDomainAllow(ctx.moderation.allowDomain(p.domain));
  });

  app.delete(
    '/api/v1/admin/domain_allows/:id',
    { config: { auth: auth.user('admin:write:domain_allows') } },
    async (req) => {
      staff(req);
      ctx.moderation.unlist('domainAllows', pathId(req));
      return {};
    },
  );
}
