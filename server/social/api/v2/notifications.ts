// https://docs.joinmastodon.org/methods/grouped_notifications/
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../context.ts';
import { GROUPABLE_TYPES } from '../../domain/index.ts';
import { isoTime, presentNotifications, serializeReport } from '../../entities/index.ts';
import { notFound } from '../../errors.ts';
import { auth, currentUser, parseParams, requestParams, zBool, zId, zInt, zList, zString } from '../../http/index.ts';
import type { Account, NotificationRow } from '../../store/index.ts';

const listSchema = z.object({
  types: zList(zString, 40).optional(),
  exclude_types: zList(zString, 40).optional(),
  grouped_types: zList(zString, 40).optional(),
  account_id: zId.optional(),
  max_id: zId.optional(),
  since_id: zId.optional(),
  min_id: zId.optional(),
  limit: zInt.optional(),
  expand_accounts: zString.optional(),
  include_filtered: zBool.optional(),
});

/** Notifications read per page to gather `limit` groups (each group may hold many). */
const SCAN_PER_GROUP = 20;

interface Group {
  key: string;
  type: string;
  statusId: string | null;
  rows: NotificationRow[];
}

export function notificationV2Routes(app: FastifyInstance, ctx: SocialContext): void {
  /** A notification's group: its key when its type is grouped in this request, else a group of its own. */
  const keyOf = (n: NotificationRow, grouped: ReadonlySet<string>) =>
    n.groupKey && grouped.has(n.type) ? n.groupKey : `ungrouped-${n.id}`;

  /** The Report of an admin.report group (those are never grouped: one notification, one report). */
  const report = (g: Group) => {
    const row = g.type === 'admin.report' && g.rows[0].reportId ? ctx.store.reports.byId(g.rows[0].reportId) : null;
    const target = row ? ctx.store.accounts.byId(row.targetAccountId) : null;
    return row && target ? serializeReport(row, ctx.presenter.one(target)) : null;
  };

  /** GroupedNotificationsResults for groups read from one page: counts and samples over each whole group. */
  const results = (me: Account, groups: Group[]) => {
    const real = groups.filter((g) => !g.key.startsWith('ungrouped-')).map((g) => g.key);
    const summaries = ctx.store.notifications.groupSummaries(me.id, real);
    const notificationGroups = groups.map((g) => {
      const summary = summaries.get(g.key);
      const ids = g.rows.map((r) => r.id);
      return {
        group_key: g.key,
        notifications_count: summary?.count ?? g.rows.length,
        type: g.type,
        most_recent_notification_id: summary?.mostRecentId ?? ids[0],
        page_min_id: ids[ids.length - 1],
        page_max_id: ids[0],
        latest_page_notification_at: isoTime(g.rows[0].createdAt),
        sample_account_ids: summary?.sampleAccountIds ?? [...new Set(g.rows.map((r) => r.fromAccountId))].slice(0, 8),
        ...(g.statusId ? { status_id: g.statusId } : {}),
        ...(report(g) ? { report: report(g) } : {}),
        ...(g.type === 'moderation_warning'
          ? {
              moderation_warning:
                presentNotifications(ctx.store, ctx.presenter, ctx.statusPresenter, [g.rows[0]], me)[0]
                  ?.moderation_warning ?? null,
            }
          : {}),
      };
    });
    const accountIds = [...new Set(notificationGroups.flatMap((g) => g.sample_account_ids))];
    const statusIds = [...new Set(groups.flatMap((g) => (g.statusId ? [g.statusId] : [])))];
    return {
      accounts: ctx.presenter.present(ctx.store.accounts.byIds(accountIds)),
      statuses: ctx.statusPresenter.present(ctx.store.statuses.byIds(statusIds), me, { context: 'notifications' }),
      notification_groups: notificationGroups,
    };
  };

  const gather = (
    me: Account,
    rows: NotificationRow[],
    grouped: ReadonlySet<string>,
    limit: number,
  ): { groups: Group[]; scanned: NotificationRow[] } => {
    const statuses = new Map(ctx.store.statuses.byIds(rows.flatMap((n) => n.statusId ?? [])).map((s) => [s.id, s]));
    const shown = ctx.filters.visible(
      me,
      rows,
      (n) => (n.statusId ? (statuses.get(n.statusId) ?? null) : null),
      'notifications',
    );
    const groups = new Map<string, Group>();
    const scanned: NotificationRow[] = [];
    for (const n of shown) {
      const key = keyOf(n, grouped);
      const group = groups.get(key);
      // A page ends before the first notification of a group beyond `limit`.
      if (!group && groups.size >= limit) break;
      scanned.push(n);
      if (group) group.rows.push(n);
      else groups.set(key, { key, type: n.type, statusId: n.statusId, rows: [n] });
    }
    return { groups: [...groups.values()], scanned };
  };

  const link = (req: FastifyRequest, reply: FastifyReply, scanned: NotificationRow[]) => {
    if (scanned.length === 0) return;
    const base = ctx.urls.absolute(req.url.split('?')[0]);
    const query = new URLSearchParams(req.url.split('?')[1] ?? '');
    for (const k of ['max_id', 'min_id', 'since_id']) query.delete(k);
    const withCursor = (name: string, id: string) => {
      const q = new URLSearchParams(query);
      q.set(name, id);
      return `${base}?${q.toString()}`;
    };
    reply.header(
      'Link',
      `<${withCursor('max_id', scanned[scanned.length - 1].id)}>; rel="next", <${withCursor('min_id', scanned[0].id)}>; rel="prev"`,
    );
  };

  app.get('/api/v2/notifications', { config: { auth: auth.user('read:notifications') } }, async (req, reply) => {
    const { account } = currentUser(req);
    const p = parseParams(listSchema, requestParams(req));
    const limit = Math.min(Math.max(p.limit ?? 40, 1), 80);
    const grouped = new Set(p.grouped_types ?? [...GROUPABLE_TYPES]);
    const rows = ctx.store.notifications.scan(
      account.id,
      {
        types: p.types,
        excludeTypes: p.exclude_types,
        fromAccountId: p.account_id,
        includeFiltered: p.include_filtered,
      },
      { maxId: p.max_id, sinceId: p.since_id, minId: p.min_id },
      limit * SCAN_PER_GROUP,
    );
    const { groups, scanned } = gather(account, rows, grouped, limit);
    link(req, reply, scanned);
    return results(account, groups);
  });

  app.get('/api/v2/notifications/unread_count', { config: { auth: auth.user('read:notifications') } }, async (req) => {
    const { account } = currentUser(req);
    const p = parseParams(listSchema, requestParams(req));
    const cap = Math.min(Math.max(p.limit ?? 100, 1), 1000);
    const grouped = new Set(p.grouped_types ?? [...GROUPABLE_TYPES]);
    const marker = ctx.store.markers.lastReadId(account.id, 'notifications');
    const rows = ctx.store.notifications.scan(
      account.id,
      { types: p.types, excludeTypes: p.exclude_types, fromAccountId: p.account_id },
      { sinceId: marker ?? undefined },
      cap * SCAN_PER_GROUP,
    );
    return { count: gather(account, rows, grouped, cap).groups.length };
  });

  const ownGroup = (me: Account, key: string): NotificationRow[] => {
    const rows = key.startsWith('ungrouped-')
      ? [ctx.store.notifications.byId(me.id, key.slice('ungrouped-'.length))].filter((n) => n !== null)
      : ctx.store.notifications.ofGroup(me.id, key);
    if (rows.length === 0) throw notFound();
    return rows;
  };

  app.get<{ Params: { group_key: string } }>(
    '/api/v2/notifications/:group_key',
    { config: { auth: auth.user('read:notifications') } },
    async (req) => {
      const { account } = currentUser(req);
      const rows = ownGroup(account, req.params.group_key);
      return results(account, [{ key: req.params.group_key, type: rows[0].type, statusId: rows[0].statusId, rows }]);
    },
  );

  app.get<{ Params: { group_key: string } }>(
    '/api/v2/notifications/:group_key/accounts',
    { config: { auth: auth.user('read:notifications', 'write:notifications') } },
    async (req) => {
      const { account } = currentUser(req);
      const ids = [...new Set(ownGroup(account, req.params.group_key).map((n) => n.fromAccountId))];
      const byId = new Map(ctx.store.accounts.byIds(ids).map((a) => [a.id, a]));
      return ctx.presenter.present(ids.flatMap((id) => byId.get(id) ?? []));
    },
  );

  app.post<{ Params: { group_key: string } }>(
    '/api/v2/notifications/:group_key/dismiss',
    { config: { auth: auth.user('write:notifications') } },
    async (req) => {
      const { account } = currentUser(req);
      const key = req.params.group_key;
      if (key.startsWith('ungrouped-')) ctx.notifications.dismiss(account.id, key.slice('ungrouped-'.length));
      else ctx.notifications.dismissGroup(account.id, key);
      return {};
    },
  );
}
