// https://docs.joinmastodon.org/methods/admin/accounts/ (v1 and v2)
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../../context.ts';
import { ACCOUNT_ACTIONS } from '../../../domain/index.ts';
import { defaultLocale, presentAdminAccounts, PERMISSION } from '../../../entities/index.ts';
import { notFound } from '../../../errors.ts';
import {
  auth,
  currentStaff,
  pageQuery,
  setLinkHeader,
  parseParams,
  pathId,
  requestParams,
  zBool,
  zId,
  zString,
} from '../../../http/index.ts';
import type { AdminAccountFilter } from '../../../store/index.ts';

const text = zString.optional();
const v1Schema = z.object({
  local: zBool.optional(),
  remote: zBool.optional(),
  active: zBool.optional(),
  pending: zBool.optional(),
  disabled: zBool.optional(),
  silenced: zBool.optional(),
  suspended: zBool.optional(),
  sensitized: zBool.optional(),
  staff: zBool.optional(),
  username: text,
  display_name: text,
  by_domain: text,
  email: text,
  ip: text,
});
const v2Schema = z.object({
  origin: z.enum(['local', 'remote']).optional(),
  status: z.enum(['active', 'pending', 'disabled', 'silenced', 'suspended']).optional(),
  permissions: z.enum(['staff']).optional(),
  username: text,
  display_name: text,
  by_domain: text,
  email: text,
  ip: text,
});
const actionSchema = z.object({
  type: z.enum(ACCOUNT_ACTIONS),
  report_id: zId.optional(),
  text: zString.optional(),
  send_email_notification: zBool.optional(),
  warning_preset_id: zString.optional(),
});

export function adminAccountRoutes(app: FastifyInstance, ctx: SocialContext): void {
  const read = { config: { auth: auth.user('admin:read:accounts') } };
  const write = { config: { auth: auth.user('admin:write:accounts') } };
  const staff = (req: FastifyRequest) => currentStaff(req, PERMISSION.manageUsers).account;

  const one = (accountId: string) => {
    const row = ctx.store.adminAccounts.byAccountId(accountId);
    if (!row) throw notFound();
    return presentAdminAccounts(ctx.presenter, [row], defaultLocale(ctx.store))[0];
  };

  const list = (req: FastifyRequest, reply: FastifyReply, filter: AdminAccountFilter) => {
    const page = pageQuery(requestParams(req), 100, 200);
    const rows = ctx.store.adminAccounts.list(filter, page);
    setLinkHeader(
      req,
      reply,
      ctx.urls,
      rows.map((r) => r.account.id),
      page,
    );
    return presentAdminAccounts(ctx.presenter, rows, defaultLocale(ctx.store));
  };

  app.get('/api/v1/admin/accounts', read, async (req, reply) => {
    staff(req);
    const p = parseParams(v1Schema, requestParams(req));
    const status = (['pending', 'disabled', 'silenced', 'suspended', 'sensitized', 'active'] as const).find(
      (s) => p[s],
    );
    return list(req, reply, {
      origin: p.local ? 'local' : p.remote ? 'remote' : undefined,
      status,
      staff: p.staff,
      username: p.username,
      displayName: p.display_name,
      byDomain: p.by_domain,
      email: p.email,
      ip: p.ip,
    });
  });

  app.get('/api/v2/admin/accounts', read, async (req, reply) => {
    staff(req);
    const p = parseParams(v2Schema, requestParams(req));
    return list(req, reply, {
      origin: p.origin,
      status: p.status,
      staff: p.permissions === 'staff',
      username: p.username,
      displayName: p.display_name,
      byDomain: p.by_domain,
      email: p.email,
      ip: p.ip,
    });
  });

  app.get('/api/v1/admin/accounts/:id', read, async (req) => {
    staff(req);
    return one(pathId(req));
  });

  app.post('/api/v1/admin/accounts/:id/approve', write, async (req) => {
    ctx.moderation.approve(staff(req), pathId(req));
    return one(pathId(req));
  });

  // Answered with the sign-up as it was (its user is deleted with the rejection), as Mastodon does.
  app.post('/api/v1/admin/accounts/:id/reject', write, async (req) => {
    const actor = staff(req);
    const before = one(pathId(req));
    ctx.moderation.reject(actor, pathId(req));
    return before;
  });

  app.post('/api/v1/admin/accounts/:id/action', write, async (req) => {
    const p = parseParams(actionSchema, requestParams(req));
    ctx.moderation.act(staff(req), pathId(req), p.type, p.report_id ?? null);
    return {};
  });

  for (const what of ['enable', 'unsilence', 'unsuspend', 'unsensitive'] as const) {
    app.post(`/api/v1/admin/accounts/:id/${what}`, write, async (req) => {
      ctx.moderation.undo(staff(req), pathId(req), what);
      return one(pathId(req));
    });
  }

  app.delete('/api/v1/admin/accounts/:id', write, async (req) => {
    const actor = currentStaff(req, PERMISSION.deleteUserData).account;
    const before = one(pathId(req));
    ctx.moderation.deleteSuspended(actor, pathId(req));
    return before;
  });
}
