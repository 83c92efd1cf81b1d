// https://docs.joinmastodon.org/methods/notifications/#get-requests and #v2-get-policy
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../context.ts';
import { isoTime } from '../../entities/index.ts';
import { notFound } from '../../errors.ts';
import {
  auth,
  currentUser,
  pageQuery,
  setLinkHeader,
  parseParams,
  pathId,
  requestParams,
  zBool,
  zId,
  zList,
} from '../../http/index.ts';
import {
  POLICY_KEYS,
  POLICY_VERDICTS,
  type Account,
  type NotificationPolicy,
  type NotificationRequestRow,
} from '../../store/index.ts';
import { UPDATE_METHODS } from '../update-methods.ts';

const policySchema = z.object(
  Object.fromEntries(POLICY_KEYS.map((k) => [k, z.enum(POLICY_VERDICTS).optional()])) as Record<
    (typeof POLICY_KEYS)[number],
    z.ZodOptional<z.ZodEnum<{ accept: 'accept'; filter: 'filter'; drop: 'drop' }>>
  >,
);
/** Without ids nothing is accepted or dismissed (Mastodon answers {} all the same). */
const idsSchema = z.object({ id: zList(zId, 100).optional() });

export function notificationRequestRoutes(app: FastifyInstance, ctx: SocialContext): void {
  const policyJson = (me: Account, policy: NotificationPolicy) => {
    const summary = ctx.store.notificationRequests.summary(me.id);
    return {
      ...policy,
      summary: { pending_requests_count: summary.requests, pending_notifications_count: summary.notifications },
    };
  };

  /** NotificationRequest entities (notifications_count is a string in Mastodon's). */
  const present = (me: Account, rows: NotificationRequestRow[]) => {
    const accounts = new Map(
      ctx.presenter
        .present(ctx.store.accounts.byIds([...new Set(rows.map((r) => r.fromAccountId))]))
        .map((json) => [json.id, json]),
    );
    const statusRows = ctx.store.statuses.byIds(rows.flatMap((r) => r.lastStatusId ?? []));
    const statuses = new Map(
      ctx.statusPresenter.present(statusRows, me, { context: 'notifications' }).map((json) => [json.id, json]),
    );
    return rows.flatMap((r) => {
      const account = accounts.get(r.fromAccountId);
      if (!account) return [];
      const json: Record<string, unknown> = {
        id: r.id,
        created_at: isoTime(r.createdAt),
        updated_at: isoTime(r.updatedAt),
        account,
        notifications_count: String(r.notificationsCount),
      };
      const status = r.lastStatusId ? statuses.get(r.lastStatusId) : undefined;
      if (status) json.last_status = status;
      return [json];
    });
  };

  const one = (me: Account, id: string) => {
    const [row] = ctx.store.notificationRequests.byIds(me.id, [id]);
    if (!row) throw notFound();
    return row;
  };

  app.get('/api/v2/notifications/policy', { config: { auth: auth.user('read:notifications') } }, async (req) => {
    const { account } = currentUser(req);
    return policyJson(account, ctx.store.notificationRequests.policy(account.id));
  });

  app.route({
    method: UPDATE_METHODS,
    url: '/api/v2/notifications/policy',
    config: { auth: auth.user('write:notifications') },
    handler: async (req) => {
      const { account } = currentUser(req);
      const changes = parseParams(policySchema, requestParams(req));
      return policyJson(account, ctx.notifications.updatePolicy(account.id, changes));
    },
  });

  // The v1 policy of Mastodon 4.3 (deprecated by v2): a boolean per condition, true meaning "filter".
  const V1_KEYS = {
    filter_not_following: 'for_not_following',
    filter_not_followers: 'for_not_followers',
    filter_new_accounts: 'for_new_accounts',
    filter_private_mentions: 'for_private_mentions',
  } as const;
  const v1Json = (me: Account, policy: NotificationPolicy) => {
    const summary = ctx.store.notificationRequests.summary(me.id);
    const flags = Object.fromEntries(Object.entries(V1_KEYS).map(([v1, v2]) => [v1, policy[v2] !== 'accept']));
    return {
      ...flags,
      summary: { pending_requests_count: summary.requests, pending_notifications_count: summary.notifications },
    };
  };
  const v1Schema = z.object(
    Object.fromEntries(Object.keys(V1_KEYS).map((k) => [k, zBool.optional()])) as Record<
      keyof typeof V1_KEYS,
      z.ZodOptional<typeof zBool>
    >,
  );

  app.get(
    '/api/v1/notifications/policy',
    { config: { auth: auth.user('read:notifications'), deprecated: '2024-10-08' } },
    async (req) => {
      const { account } = currentUser(req);
      return v1Json(account, ctx.store.notificationRequests.policy(account.id));
    },
  );

  app.route({
    method: UPDATE_METHODS,
    url: '/api/v1/notifications/policy',
    config: { auth: auth.user('write:notifications'), deprecated: '2024-10-08' },
    handler: async (req) => {
      const { account } = currentUser(req);
      const changes = parseParams(v1Schema, requestParams(req));
      const policy = { ...ctx.store.notificationRequests.policy(account.id) };
      for (const [v1, v2] of Object.entries(V1_KEYS) as [
        keyof typeof V1_KEYS,
        (typeof V1_KEYS)[keyof typeof V1_KEYS],
      ][]) {
        const filter = changes[v1];
        // "Filter" keeps a stricter drop chosen through v2; "do not filter" accepts.
        if (filter !== undefined) policy[v2] = filter ? (policy[v2] === 'accept' ? 'filter' : policy[v2]) : 'accept';
      }
      return v1Json(account, ctx.notifications.updatePolicy(account.id, policy));
    },
  });

  app.get(
    '/api/v1/notifications/requests',
    { config: { auth: auth.user('read:notifications') } },
    async (req, reply) => {
      const { account } = currentUser(req);
      const page = pageQuery(requestParams(req), 40, 80);
      const rows = ctx.store.notificationRequests.list(account.id, page);
      setLinkHeader(
        req,
        reply,
        ctx.urls,
        rows.map((r) => r.id),
        page,
      );
      return present(account, rows);
    },
  );

  // Accepting and dismissing happen at once here, so a merge is never pending.
  app.get('/api/v1/notifications/requests/merged', { config: { auth: auth.user('read:notifications') } }, async () => ({
    merged: true,
  }));

  app.get('/api/v1/notifications/requests/:id', { config: { auth: auth.user('read:notifications') } }, async (req) => {
    const { account } = currentUser(req);
    return present(account, [one(account, pathId(req))])[0];
  });

  for (const action of ['accept', 'dismiss'] as const) {
    app.post(
      `/api/v1/notifications/requests/:id/${action}`,
      { config: { auth: auth.user('write:notifications') } },
      async (req) => {
        const { account } = currentUser(req);
        ctx.notifications.settleRequests(account.id, [one(account, pathId(req)).id], action);
        return {};
      },
    );
    app.post(
      `/api/v1/notifications/requests/${action}`,
      { config: { auth: auth.user('write:notifications') } },
      async (req) => {
        const { account } = currentUser(req);
        const { id } = parseParams(idsSchema, requestParams(req));
        ctx.notifications.settleRequests(account.id, id ?? [], action);
        return {};
      },
    );
  }
}
