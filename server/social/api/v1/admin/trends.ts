// Mastodon's admin trends API for links (Api::V1::Admin::Trends::LinksController): staff list every candidate
// and approve or reject each; routed by Mastodon though its documentation leaves approve/reject out.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SocialContext } from '../../../context.ts';
import { serializeAdminTrendsLink } from '../../../entities/preview-card.ts';
import { hasPermission, PERMISSION } from '../../../entities/role.ts';
import { notFound } from '../../../errors.ts';
import { auth, currentStaff, currentUser } from '../../../http/auth.ts';
import { pathId } from '../../../http/params.ts';
import { offsetPage } from '../../../http/pagination.ts';
import { linkTrends } from '../trends.ts';

export function adminTrendRoutes(app: FastifyInstance, ctx: SocialContext): void {
  // Staff who may review get every candidate; anyone else with an admin:read token the public list, as Mastodon.
  app.get('/api/v1/admin/trends/links', { config: { auth: auth.user('admin:read') } }, async (req, reply) => {
    const review = hasPermission(currentUser(req).user.role, PERMISSION.manageTaxonomies);
    return offsetPage(req, reply, ctx.urls, 10, 20, (limit, offset) => linkTrends(ctx, review, limit, offset));
  });

  const review = (req: FastifyRequest, allowed: boolean) => {
    currentStaff(req, PERMISSION.manageTaxonomies);
    const card = ctx.store.previewCards.byId(pathId(req));
    if (!card) throw notFound();
    ctx.store.trends.setLinkTrendable(card.id, allowed);
    const history = ctx.store.trends.linkHistory([card.id]).get(card.id)!;
    return serializeAdminTrendsLink(ctx.urls, { ...card, trendable: allowed }, history);
  };
  app.post('/api/v1/admin/trends/links/:id/approve', { config: { auth: auth.user('admin:write') } }, async (req) =>
    review(req, true),
  );
  app.post('/api/v1/admin/trends/links/:id/reject', { config: { auth: auth.user('admin:write') } }, async (req) =>
    review(req, false),
  );
}
