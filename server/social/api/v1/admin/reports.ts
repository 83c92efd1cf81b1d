// https://docs.joinmastodon.org/methods/admin/reports/
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../../context.ts';
import { presentAdminReports, PERMISSION } from '../../../entities/index.ts';
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
  zList,
} from '../../../http/index.ts';
import { UPDATE_METHODS } from '../../update-methods.ts';

const listSchema = z.object({
  resolved: zBool.optional(),
  account_id: zId.optional(),
  target_account_id: zId.optional(),
});
const updateSchema = z.object({
  category: z.enum(['spam', 'legal', 'violation', 'other']).optional(),
  rule_ids: zList(zId, 50).optional(),
});

export function adminReportRoutes(app: FastifyInstance, ctx: SocialContext): void {
  const staff = (req: FastifyRequest) => currentStaff(req, PERMISSION.manageReports).account;
  const present = (ids: string[]) =>
    presentAdminReports(ctx.store, ctx.presenter, ctx.statusPresenter, ctx.store.reports.byIds(ids));
  const report = (req: FastifyRequest) => {
    const row = ctx.store.reports.byId(pathId(req));
    if (!row) throw notFound();
    return row;
  };

  app.get('/api/v1/admin/reports', { config: { auth: auth.user('admin:read:reports') } }, async (req, reply) => {
    staff(req);
    const params = requestParams(req);
    const p = parseParams(listSchema, params);
    const page = pageQuery(params, 100, 200);
    const rows = ctx.store.reports.list(
      { resolved: p.resolved ?? false, accountId: p.account_id, targetAccountId: p.target_account_id },
      page,
    );
    setLinkHeader(
      req,
      reply,
      ctx.urls,
      rows.map((r) => r.id),
      page,
    );
    return presentAdminReports(ctx.store, ctx.presenter, ctx.statusPresenter, rows);
  });

  app.get('/api/v1/admin/reports/:id', { config: { auth: auth.user('admin:read:reports') } }, async (req) => {
    staff(req);
    return present([report(req).id])[0];
  });

  app.route({
    method: UPDATE_METHODS,
    url: '/api/v1/admin/reports/:id',
    config: { auth: auth.user('admin:write:reports') },
    handler: async (req) => {
      staff(req);
      const row = report(req);
      const p = parseParams(updateSchema, requestParams(req));
      ctx.reports.recategorize(row.id, { category: p.category, ruleIds: p.rule_ids });
      return present([row.id])[0];
    },
  });

  const actions: Record<string, (staffId: string, id: string) => void> = {
    assign_to_self: (staffId, id) => ctx.reports.assign(id, staffId),
    unassign: (_staffId, id) => ctx.reports.assign(id, null),
    resolve: (staffId, id) => ctx.reports.resolve(id, staffId),
    reopen: (_staffId, id) => ctx.reports.resolve(id, null),
  };
  for (const [name, apply] of Object.entries(actions)) {
    app.post(
      `/api/v1/admin/reports/:id/${name}`,
      { config: { auth: auth.user('admin:write:reports') } },
      async (req) => {
        const me = staff(req);
        const row = report(req);
        apply(me.id, row.id);
        return present([row.id])[0];
      },
    );
  }
}
