import { ACCOUNT_LISTED } from './account-columns.ts';
import type { NotificationType } from '../notification-types.ts';
import { cursorWhere, finishPage, idOrNull, int, jsonIds, str, type PageQuery, type StoreCore } from './store.ts';

export interface NotificationRow {
  id: string;
  accountId: string;
  fromAccountId: string;
  type: NotificationType;
  statusId: string | null;
  groupKey: string | null;
  /** The report an admin.report notification is about. */
  reportId: string | null;
  /** The moderation warning of a moderation_warning notification. */
  accountWarningId: string | null;
  createdAt: number;
}

function toNotification(r: Record<string, unknown>): NotificationRow {
  return {
    id: str(r.id),
    accountId: str(r.account_id),
    fromAccountId: str(r.from_account_id),
    type: r.type as NotificationType,
    statusId: idOrNull(r.status_id),
    groupKey: (r.group_key as string | null) ?? null,
    reportId: idOrNull(r.report_id),
    accountWarningId: idOrNull(r.account_warning_id),
    createdAt: int(r.created_at),
  };
}

export interface NotificationFilter {
  types?: string[];
  excludeTypes?: string[];
  fromAccountId?: string;
  /** Also those the user's notification policy filtered (pending in a notification request). */
  includeFiltered?: boolean;
}

/**
 * Notifications a user may list: from accounts that are listed (staff also see sign-ups of pending ones)
 * and not suspended, about statuses that still exist.
 */
const LISTABLE = `EXISTS (SELECT 1 FROM accounts a LEFT JOIN users u ON u.account_id = a.id
    WHERE a.id = n.from_account_id AND a.suspended_at IS NULL AND a.deleted_at IS NULL AND (n.type LIKE 'admin.%' OR ${ACCOUNT_LISTED}))
  AND (n.status_id IS NULL OR EXISTS (SELECT 1 FROM statuses s WHERE s.id = n.status_id AND s.deleted_at IS NULL))`;

export class NotificationRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  insert(input: {
    accountId: string;
    fromAccountId: string;
    type: NotificationType;
    statusId?: string | null;
    groupKey?: string | null;
    reportId?: string | null;
    accountWarningId?: string | null;
    filtered?: boolean;
  }): string {
    const id = this.core.ids.next();
    this.core
      .sql(
        'INSERT INTO notifications (id, account_id, from_account_id, type, status_id, group_key, report_id, account_warning_id, filtered, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        id,
        input.accountId,
        input.fromAccountId,
        input.type,
        input.statusId ?? null,
        input.groupKey ?? null,
        input.reportId ?? null,
        input.accountWarningId ?? null,
        input.filtered ? 1 : 0,
        this.core.now(),
      );
    return id;
  }

  /** The group key of the account's latest notification whose key starts with `prefix-` (its newest group of that kind). */
  latestGroupKey(accountId: string, prefix: string): string | null {
    // A range over the (account, group key) index: keys from "prefix-" up to the next character after "-".
    const r = this.core
      .sql(
        'SELECT group_key FROM notifications WHERE account_id = ? AND group_key >= ? AND group_key < ? ORDER BY id DESC LIMIT 1',
      )
      .get(accountId, `${prefix}-`, `${prefix}.`) as { group_key: string } | undefined;
    return r?.group_key ?? null;
  }

  /** A page of notifications as rows to group (see the grouped API): newest first from the cursor, at most `scan`. */
  scan(
    accountId: string,
    filter: NotificationFilter,
    cursor: { maxId?: string; sinceId?: string; minId?: string },
    scan: number,
  ): NotificationRow[] {
    const ascending = cursor.minId !== undefined;
    const rows = this.core
      .sql(
        `SELECT n.* FROM notifications n WHERE n.account_id = @account
           AND (@types IS NULL OR n.type IN (SELECT value FROM json_each(@types)))
           AND (@exclude IS NULL OR n.type NOT IN (SELECT value FROM json_each(@exclude)))
           AND (@from IS NULL OR n.from_account_id = @from)
           AND (@filtered = 1 OR n.filtered = 0)
           AND (@max IS NULL OR n.id < @max) AND (@since IS NULL OR n.id > @since) AND (@min IS NULL OR n.id > @min)
           AND ${LISTABLE}
         ORDER BY n.id ${ascending ? 'ASC' : 'DESC'} LIMIT @scan`,
      )
      .all({
        account: accountId,
        types: filter.types?.length ? JSON.stringify(filter.types) : null,
        exclude: filter.excludeTypes?.length ? JSON.stringify(filter.excludeTypes) : null,
        from: filter.fromAccountId ?? null,
        filtered: filter.includeFiltered ? 1 : 0,
        max: cursor.maxId ?? null,
        since: cursor.sinceId ?? null,
        min: cursor.minId ?? null,
        scan,
      }) as Record<string, unknown>[];
    const list = rows.map(toNotification);
    return ascending ? list.reverse() : list;
  }

  /** Every listable notification of one group, newest first (bounded). */
  ofGroup(accountId: string, groupKey: string, limit = 1000): NotificationRow[] {
    const rows = this.core
      .sql(
        `SELECT n.* FROM notifications n WHERE n.account_id = ? AND n.group_key = ? AND n.filtered = 0 AND ${LISTABLE} ORDER BY n.id DESC LIMIT ?`,
      )
      .all(accountId, groupKey, limit) as Record<string, unknown>[];
    return rows.map(toNotification);
  }

  /** Size and newest accounts of groups (over all their notifications, not one page). */
  groupSummaries(
    accountId: string,
    groupKeys: readonly string[],
  ): Map<string, { count: number; mostRecentId: string; sampleAccountIds: string[] }> {
    const result = new Map<string, { count: number; mostRecentId: string; sampleAccountIds: string[] }>();
    for (const key of groupKeys) {
      const r = this.core
        .sql(
          `SELECT COUNT(*) AS n, MAX(n.id) AS latest FROM notifications n WHERE n.account_id = ? AND n.group_key = ? AND n.filtered = 0 AND ${LISTABLE}`,
        )
        .get(accountId, key) as { n: bigint; latest: bigint | null };
      const samples = this.core
        .sql(
          `SELECT n.from_account_id AS a, MAX(n.id) AS latest FROM notifications n WHERE n.account_id = ? AND n.group_key = ? AND n.filtered = 0 AND ${LISTABLE} GROUP BY n.from_account_id ORDER BY latest DESC LIMIT 8`,
        )
        .all(accountId, key) as { a: bigint }[];
      if (r.latest !== null)
        result.set(key, {
          count: int(r.n),
          mostRecentId: str(r.latest),
          sampleAccountIds: samples.map((s) => str(s.a)),
        });
    }
    return result;
  }

  deleteGroup(accountId: string, groupKey: string): void {
    this.core.sql('DELETE FROM notifications WHERE account_id = ? AND group_key = ?').run(accountId, groupKey);
  }

  /** Whether a notification of this kind exists already (polls notify once per voter). */
  exists(accountId: string, fromAccountId: string, type: NotificationType, statusId: string | null): boolean {
    return (
      this.core
        .sql('SELECT 1 FROM notifications WHERE account_id = ? AND from_account_id = ? AND type = ? AND status_id IS ?')
        .get(accountId, fromAccountId, type, statusId) !== undefined
    );
  }

  /** Removes notifications of one kind between two accounts (e.g. a follow request that was withdrawn). */
  deleteBetween(accountId: string, fromAccountId: string, type: NotificationType): void {
    this.core
      .sql('DELETE FROM notifications WHERE account_id = ? AND from_account_id = ? AND type = ?')
      .run(accountId, fromAccountId, type);
  }

  /** Removes what an undone action caused (an unfavourite, an unreblog). */
  deleteFor(fromAccountId: string, type: NotificationType, statusId: string): void {
    this.core
      .sql('DELETE FROM notifications WHERE from_account_id = ? AND type = ? AND status_id = ?')
      .run(fromAccountId, type, statusId);
  }

  /** Removes every notification about the given statuses (they were deleted). */
  deleteForStatuses(statusIds: readonly string[]): void {
    if (statusIds.length === 0) return;
    this.core
      .sql('DELETE FROM notifications WHERE status_id IN (SELECT value FROM json_each(?))')
      .run(jsonIds(statusIds));
  }

  /** Removes what one account caused in another's notifications (after a block). */
  deleteAllFrom(accountId: string, fromAccountId: string): void {
    this.core
      .sql('DELETE FROM notifications WHERE account_id = ? AND from_account_id = ?')
      .run(accountId, fromAccountId);
  }

  byId(accountId: string, id: string): NotificationRow | null {
    const r = this.core
      .sql(`SELECT n.* FROM notifications n WHERE n.id = ? AND n.account_id = ? AND ${LISTABLE}`)
      .get(id, accountId) as Record<string, unknown> | undefined;
    return r ? toNotification(r) : null;
  }

  list(accountId: string, filter: NotificationFilter, page: PageQuery): NotificationRow[] {
    const c = cursorWhere('n.id', page);
    const where = [
      filter.types?.length ? 'n.type IN (SELECT value FROM json_each(@types))' : '',
      filter.excludeTypes?.length ? 'n.type NOT IN (SELECT value FROM json_each(@exclude))' : '',
      filter.fromAccountId ? 'n.from_account_id = @from' : '',
      filter.includeFiltered ? '' : 'n.filtered = 0',
    ]
      .filter(Boolean)
      .map((w) => `AND ${w}`)
      .join(' ');
    const rows = this.core
      .sql(
        `SELECT n.* FROM notifications n WHERE n.account_id = @account ${where} AND ${c.where} AND ${LISTABLE} ORDER BY n.id ${c.order} LIMIT @cursor_limit`,
      )
      .all({
        account: accountId,
        types: JSON.stringify(filter.types ?? []),
        exclude: JSON.stringify(filter.excludeTypes ?? []),
        from: filter.fromAccountId ?? null,
        ...c.params,
      }) as Record<string, unknown>[];
    return finishPage(rows.map(toNotification), page);
  }

  /** Unread notifications after a marker (capped). */
  countAfter(accountId: string, afterId: string | null, limit: number): number {
    const r = this.core
      .sql(
        `SELECT COUNT(*) AS n FROM (SELECT 1 FROM notifications n WHERE n.account_id = ? AND n.id > ? AND n.filtered = 0 AND ${LISTABLE} LIMIT ?)`,
      )
      .get(accountId, afterId ?? '0', limit) as { n: bigint };
    return int(r.n);
  }

  dismiss(accountId: string, id: string): boolean {
    return this.core.sql('DELETE FROM notifications WHERE id = ? AND account_id = ?').run(id, accountId).changes > 0;
  }

  /** Removes some of an account's notifications (others' ids are ignored); how many went. */
  dismissMany(accountId: string, ids: readonly string[]): number {
    if (ids.length === 0) return 0;
    return this.core
      .sql('DELETE FROM notifications WHERE account_id = ? AND id IN (SELECT value FROM json_each(?))')
      .run(accountId, jsonIds(ids)).changes;
  }

  clear(accountId: string): void {
    this.core.sql('DELETE FROM notifications WHERE account_id = ?').run(accountId);
  }

  forAccount(accountId: string, limit = 40): NotificationRow[] {
    const rows = this.core
      .sql('SELECT * FROM notifications WHERE account_id = ? ORDER BY id DESC LIMIT ?')
      .all(accountId, limit) as Record<string, unknown>[];
    return rows.map(toNotification);
  }
}
