// https://docs.joinmastodon.org/methods/admin/ip_blocks/
import net from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../../context.ts';
import { serializeIpBlock, PERMISSION } from '../../../entities/index.ts';
import { notFound } from '../../../errors.ts';
import {
  auth,
  currentStaff,
  pageQuery,
  setLinkHeader,
  parseParams,
  pathId,
  requestParams,
  zInt,
  zString,
} from '../../../http/index.ts';
import { IP_BLOCK_SEVERITIES } from '../../../store/index.ts';
import { UPDATE_METHODS } from '../../update-methods.ts';

/** An address or CIDR range, written the way it is stored (a bare address becomes /32 or /128). */
const ipRange = zString.transform((v, c) => {
  const [address, bits] = v.trim().split('/');
  const family = net.isIP(address);
  const max = family === 6 ? 128 : 32;
  const prefix = bits === undefined ? max : Number(bits);
  if (family === 0 || !Number.isInteger(prefix) || prefix < 0 || prefix > max) {
    c.addIssue({ code: 'custom', message: 'is not a valid IP address or range' });
    return z.NEVER;
  }
  return `${address.toLowerCase()}/${prefix}`;
});
const fields = {
  severity: z.enum(IP_BLOCK_SEVERITIES),
  comment: zString.refine((s) => s.length <= 1000, 'is too long (maximum is 1000 characters)').optional(),
  expires_in: zInt.optional(),
};

export function adminIpBlockRoutes(app: FastifyInstance, ctx: SocialContext): void {
  const staff = (req: FastifyRequest) => currentStaff(req, PERMISSION.manageBlocks).account;
  const m = ctx.store.moderation;
  const expiry = (seconds: number | undefined) =>
    seconds === undefined ? undefined : seconds > 0 ? ctx.store.now() + seconds * 1000 : null;

  app.get('/api/v1/admin/ip_blocks', { config: { auth: auth.user('admin:read:ip_blocks') } }, async (req, reply) => {
    staff(req);
    const page = pageQuery(requestParams(req), 100, 200);
    const rows = m.ipBlocks(page);
    setLinkHeader(
      req,
      reply,
      ctx.urls,
      rows.map((r) => r.id),
      page,
    );
    return rows.map(serializeIpBlock);
  });

  app.get('/api/v1/admin/ip_blocks/:id', { config: { auth: auth.user('admin:read:ip_blocks') } }, async (req) => {
    staff(req);
    const row = m.ipBlock(pathId(req));
    if (!row) throw notFound();
    return serializeIpBlock(row);
  });

  app.post('/api/v1/admin/ip_blocks', { config: { auth: auth.user('admin:write:ip_blocks') } }, async (req) => {
    staff(req);
    const p = parseParams(z.object({ ip: ipRange, ...fields }), requestParams(req));
    const block = ctx.moderation.addIpBlock({
      ip: p.ip,
      severity: p.severity,
      comment: p.comment ?? '',
      expiresAt: expiry(p.expires_in) ?? null,
    });
    return serializeIpBlock(block);
  });

  app.route({
    method: UPDATE_METHODS,
    url: '/api/v1/admin/ip_blocks/:id',
    config: { auth: auth.user('admin:write:ip_blocks') },
    handler: async (req) => {
      staff(req);
      const row = m.ipBlock(pathId(req));
      if (!row) throw notFound();
      const p = parseParams(
        z.object({
          ip: ipRange.optional(),
          severity: fields.severity.optional(),
          comment: fields.comment,
          expires_in: fields.expires_in,
        }),
        requestParams(req),
      );
      const expiresAt = expiry(p.expires_in);
      const block = ctx.moderation.changeIpBlock(row.id, (current) => ({
        ip: p.ip ?? current.ip,
        severity: p.severity ?? current.severity,
        comment: p.comment ?? current.comment,
        expiresAt: expiresAt === undefined ? current.expiresAt : expiresAt,
      }));
      return serializeIpBlock(block);
    },
  });

  app.delete('/api/v1/admin/ip_blocks/:id', { config: { auth: auth.user('admin:write:ip_blocks') } }, async (req) => {
    staff(req);
    ctx.moderation.removeIpBlock(pathId(req));
    return {};
  });
}
