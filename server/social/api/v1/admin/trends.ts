// Mastodon's admin trends API (Api::V1::Admin::Trends::*): staff who may review list every candidate tag,
// post, link and link publisher and approve or reject each; anyone else with an admin:read token gets the
// public lists. Routed by Mastodon though its documentation leaves approve/reject out.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SocialContext } from '../../../context.ts';
import {
  serializeAdminTrendsLink,
  serializePublisher,
  presentAdminTags,
  presentTags,
  hasPermission,
  PERMISSION,
} from '../../../entities/index.ts';
import { notFound } from '../../../errors.ts';
import { auth, currentStaff, currentUser, pathId, offsetPage } from '../../../http/index.ts';
import type { Account, TagRow } from '../../../store/index.ts';
import { linkTrends } from '../trends.ts';

export function adminTrendRoutes(app: FastifyInstance, ctx: SocialContext): void {
  // Staff who may review get every candidate; anyone else with an admin:read token the public list, as Mastodon.
  app.get('/api/v1/admin/trends/links', { config: { auth: auth.user('admin:read') } }, async (req, reply) => {
    const review = hasPermission(currentUser(req).user.role, PERMISSION.manageTaxonomies);
    return offsetPage(req, reply, ctx.urls, 10, 20, (limit, offset) => linkTrends(ctx, review, limit, offset));
  });

  const review = (req: FastifyRequest, allowed: boolean) => {
    currentStaff(req, PERMISSION.manageTaxonomies);
    const card = ctx.trends.reviewLink(pathId(req), allowed);
    const history = ctx.store.trends.linkHistory([card.id]).get(card.id)!;
    return serializeAdminTrendsLink(ctx.urls, card, history);
  };
  app.post('/api/v1/admin/trends/links/:id/approve', { config: { auth: auth.user('admin:write') } }, async (req) =>
    review(req, true),
  );
  app.post('/api/v1/admin/trends/links/:id/reject', { config: { auth: auth.user('admin:write') } }, async (req) =>
    review(req, false),
  );

  const reviewer = (req: FastifyRequest) => hasPermission(currentUser(req).user.role, PERMISSION.manageTaxonomies);
  const adminTags = (tags: TagRow[]) => presentAdminTags(ctx.store, ctx.urls, tags);
  const adminStatuses = (me: Account, statusIds: string[]) => {
    const reviews = ctx.store.trends.statusReviews(statusIds);
    return ctx.statusPresenter
      .present(ctx.store.statuses.byIds(statusIds), me)
      .map((json) => ({ ...json, requires_review: reviews.get(json.id as string) === null }));
  };

  app.get('/api/v1/admin/trends/tags', { config: { auth: auth.user('admin:read') } }, async (req, reply) => {
    const review = reviewer(req);
    return offsetPage(req, reply, ctx.urls, 10, 20, (limit, offset) => {
      const usage = ctx.store.trends.tags({ allowedOnly: !review, limit, offset });
      const tags = usage.map((u) => u.tag);
      return review ? adminTags(tags) : presentTags(ctx.store, ctx.urls, tags, currentUser(req).account);
    });
  });

  app.get('/api/v1/admin/trends/statuses', { config: { auth: auth.user('admin:read') } }, async (req, reply) => {
    const review = reviewer(req);
    const { account } = currentUser(req);
    return offsetPage(req, reply, ctx.urls, 20, 40, (limit, offset) => {
      const rows = ctx.store.trends.statuses({ allowedOnly: !review, limit, offset });
      return review
        ? adminStatuses(
            account,
            rows.map((s) => s.id),
          )
        : ctx.statusPresenter.present(rows, account, { context: 'public' });
    });
  });

  // Only reviewers see publishers (Mastodon answers the others an empty list).
  app.get(
    '/api/v1/admin/trends/links/publishers',
    { config: { auth: auth.user('admin:read') } },
    async (req, reply) => {
      const review = reviewer(req);
      return offsetPage(req, reply, ctx.urls, 10, 20, (limit, offset) =>
        review ? ctx.trends.publishers(limit, offset).map(serializePublisher) : [],
      );
    },
  );

  for (const [action, allowed] of [
    ['approve', true],
    ['reject', false],
  ] as const) {
    app.post(`/api/v1/admin/trends/tags/:id/${action}`, { config: { auth: auth.user('admin:write') } }, async (req) => {
      currentStaff(req, PERMISSION.manageTaxonomies);
      const tag = ctx.store.tags.byId(pathId(req));
      if (!tag) throw notFound();
      ctx.trends.reviewTag(tag.id, allowed);
      return adminTags([tag])[0];
    });

    app.post(
      `/api/v1/admin/trends/statuses/:id/${action}`,
      { config: { auth: auth.user('admin:write') } },
      async (req) => {
        const { account } = currentStaff(req, PERMISSION.manageTaxonomies);
        const statusId = pathId(req);
        ctx.trends.reviewStatus(statusId, allowed);
        return adminStatuses(account, [statusId])[0];
      },
    );

    app.post(
      `/api/v1/admin/trends/links/publishers/:id/${action}`,
      { config: { auth: auth.user('admin:write') } },
      async (req) => {
        currentStaff(req, PERMISSION.manageTaxonomies);
        return serializePublisher(ctx.trends.reviewPublisher(pathId(req), allowed));
      },
    );
  }
}
