// https://docs.joinmastodon.org/methods/admin/email_domain_blocks/ and /canonical_email_blocks/
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../../context.ts';
import { canonicalEmailHash, normalizeDomain } from '../../../domain/index.ts';
import { serializeCanonicalEmailBlock, serializeEmailDomainBlock, PERMISSION } from '../../../entities/index.ts';
import { notFound, ValidationFailure } from '../../../errors.ts';
import {
  auth,
  currentStaff,
  pageQuery,
  setLinkHeader,
  parseParams,
  pathId,
  requestParams,
  zString,
} from '../../../http/index.ts';
import type { SimpleBlockRow } from '../../../store/index.ts';

export function adminEmailBlockRoutes(app: FastifyInstance, ctx: SocialContext): void {
  const staff = (req: FastifyRequest) => currentStaff(req, PERMISSION.manageBlocks).account;
  const m = ctx.store.moderation;
  const domainBlock = (b: SimpleBlockRow) => serializeEmailDomainBlock(b, m.emailDomainHistory(b.value));

  app.get(
    '/api/v1/admin/email_domain_blocks',
    { config: { auth: auth.user('admin:read:email_domain_blocks') } },
    async (req, reply) => {
      staff(req);
      const page = pageQuery(requestParams(req), 100, 200);
      const rows = m.emailDomainBlocks.list(page);
      setLinkHeader(
        req,
        reply,
        ctx.urls,
        rows.map((r) => r.id),
        page,
      );
      return rows.map(domainBlock);
    },
  );

  app.get(
    '/api/v1/admin/email_domain_blocks/:id',
    { config: { auth: auth.user('admin:read:email_domain_blocks') } },
    async (req) => {
      staff(req);
      const row = m.emailDomainBlocks.byId(pathId(req));
      if (!row) throw notFound();
      return domainBlock(row);
    },
  );

  app.post(
    '/api/v1/admin/email_domain_blocks',
    { config: { auth: auth.user('admin:write:email_domain_blocks') } },
    async (req) => {
      staff(req);
      const { domain } = parseParams(
        z.object({
          domain: zString
            .transform(normalizeDomain)
            .refine((d) => /^[a-z0-9.-]+\.[a-z0-9-]+$/.test(d), 'is not a valid domain'),
        }),
        requestParams(req),
      );
      return domainBlock(ctx.moderation.blockEmailDomain(domain));
    },
  );

  app.delete(
    '/api/v1/admin/email_domain_blocks/:id',
    { config: { auth: auth.user('admin:write:email_domain_blocks') } },
    async (req) => {
      staff(req);
      ctx.moderation.unlist('emailDomainBlocks', pathId(req));
      return {};
    },
  );

  app.get(
    '/api/v1/admin/canonical_email_blocks',
    { config: { auth: auth.user('admin:read:canonical_email_blocks') } },
    async (req, reply) => {
      staff(req);
      const page = pageQuery(requestParams(req), 100, 200);
      const rows = m.canonicalEmailBlocks.list(page);
      setLinkHeader(
        req,
        reply,
        ctx.urls,
        rows.map((r) => r.id),
        page,
      );
      return rows.map(serializeCanonicalEmailBlock);
    },
  );

  app.get(
    '/api/v1/admin/canonical_email_blocks/:id',
    { config: { auth: auth.user('admin:read:canonical_email_blocks') } },
    async (req) => {
      staff(req);
      const row = m.canonicalEmailBlocks.byId(pathId(req));
      if (!row) throw notFound();
      return serializeCanonicalEmailBlock(row);
    },
  );

  // Which blocks an address would hit (staff check before blocking or unblocking).
  app.post(
    '/api/v1/admin/canonical_email_blocks/test',
    { config: { auth: auth.user('admin:read:canonical_email_blocks') } },
    async (req) => {
      staff(req);
      const { email } = parseParams(z.object({ email: zString }), requestParams(req));
      const row = m.canonicalEmailBlocks.byValue(canonicalEmailHash(email));
      return row ? [serializeCanonicalEmailBlock(row)] : [];
    },
  );

  app.post(
    '/api/v1/admin/canonical_email_blocks',
    { config: { auth: auth.user('admin:write:canonical_email_blocks') } },
    async (req) => {
      staff(req);
      const p = parseParams(
        z.object({
          email: zString.optional(),
          canonical_email_hash: zString.refine((s) => /^[0-9a-f]{64}$/.test(s), 'is not a SHA-256 hash').optional(),
        }),
        requestParams(req),
      );
      const hash = p.email ? canonicalEmailHash(p.email) : p.canonical_email_hash;
      if (!hash) throw ValidationFailure.single('canonical_email_hash', 'ERR_BLANK', "can't be blank");
      return serializeCanonicalEmailBlock(ctx.moderation.blockCanonicalEmail(hash));
    },
  );

  app.delete(
    '/api/v1/admin/canonical_email_blocks/:id',
    { config: { auth: auth.user('admin:write:canonical_email_blocks') } },
    async (req) => {
      staff(req);
      ctx.moderation.unlist('canonicalEmailBlocks', pathId(req));
      return {};
    },
  );
}
