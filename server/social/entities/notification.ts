import type { Account, NotificationRow, SocialStore } from '../store/index.ts';
import type { AccountPresenter } from './account.ts';
import { isoTime } from './dates.ts';
import { serializeReport } from './report.ts';
import type { StatusPresenter } from './status.ts';

/** The Notification entity, for many notifications at once (accounts and statuses serialized in batches). */
export function presentNotifications(
  store: SocialStore,
  accounts: AccountPresenter,
  statuses: StatusPresenter,
  rows: readonly NotificationRow[],
  viewer: Account,
): Record<string, unknown>[] {
  const fromRows = store.accounts.byIds([...new Set(rows.map((n) => n.fromAccountId))]);
  const fromJson = new Map(accounts.present(fromRows).map((json) => [json.id, json]));
  const statusRows = store.statuses.byIds([
    ...new Set(rows.map((n) => n.statusId).filter((id): id is string => id !== null)),
  ]);
  const statusJson = new Map(
    statuses.present(statusRows, viewer, { context: 'notifications' }).map((json) => [json.id, json]),
  );
  const reports = new Map(
    store.reports.byIds([...new Set(rows.flatMap((n) => n.reportId ?? []))]).map((r) => [r.id, r]),
  );
  const warnings = new Map(
    store.warnings.byIds([...new Set(rows.flatMap((n) => n.accountWarningId ?? []))]).map((w) => [w.id, w]),
  );
  const reportTargets = new Map(
    accounts
      .present(store.accounts.byIds([...new Set([...reports.values()].map((r) => r.targetAccountId))]))
      .map((json) => [json.id, json]),
  );
  return rows.flatMap((n) => {
    const account = fromJson.get(n.fromAccountId);
    if (!account) return [];
    const json: Record<string, unknown> = {
      id: n.id,
      type: n.type,
      created_at: isoTime(n.createdAt),
      group_key: n.groupKey ?? `ungrouped-${n.id}`,
      account,
    };
    if (n.reportId !== null) {
      const report = reports.get(n.reportId);
      const target = report ? reportTargets.get(report.targetAccountId) : undefined;
      if (!report || !target) return [];
      json.report = serializeReport(report, target);
    }
    if (n.accountWarningId !== null) {
      const warning = warnings.get(n.accountWarningId);
      if (!warning) return [];
      // The warning's target is always the reader (the notification is theirs).
      json.moderation_warning = {
        id: warning.id,
        action: warning.action,
        text: warning.text,
        status_ids: warning.statusIds,
        target_account: accounts.one(viewer),
        appeal: null,
        created_at: isoTime(warning.createdAt),
      };
    }
    if (n.statusId !== null) {
      const status = statusJson.get(n.statusId);
      if (!status) return [];
      json.status = status;
    }
    return [json];
  });
}
