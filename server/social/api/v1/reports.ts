// https://docs.joinmastodon.org/methods/reports/
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../context.ts';
import { serializeReport } from '../../entities/index.ts';
import { auth, currentUser, parseParams, requestParams, zBool, zId, zList, zString } from '../../http/index.ts';

const schema = z.object({
  account_id: zId,
  status_ids: zList(zId, 100).optional(),
  comment: zString.optional(),
  forward: zBool.optional(),
  category: zString.optional(),
  rule_ids: zList(zString, 50).optional(),
});

export function reportRoutes(app: FastifyInstance, ctx: SocialContext): void {
  app.post('/api/v1/reports', { config: { auth: auth.user('write:reports'), actionLimit: 'reports' } }, async (req) => {
    const { account } = currentUser(req);
    const p = parseParams(schema, requestParams(req));
    const id = ctx.reports.file(account, {
      accountId: p.account_id,
      statusIds: p.status_ids,
      comment: p.comment,
      forward: p.forward,
      category: p.category,
      ruleIds: p.rule_ids,
    });
    const report = ctx.store.reports.byId(id)!;
    return serializeReport(report, ctx.presenter.one(ctx.store.accounts.byId(report.targetAccountId)!));
  });
}
