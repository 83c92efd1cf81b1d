import { reportReferences } from '../domain/index.ts';
import type { Account, AnnualReportRow, SocialStore } from '../store/index.ts';
import type { AccountPresenter } from './account.ts';
import type { StatusPresenter } from './status.ts';

/** WrappedAnnualReports: the reports, with the accounts and statuses their data names by id. */
export function presentAnnualReports(
  store: SocialStore,
  accounts: AccountPresenter,
  statuses: StatusPresenter,
  reports: readonly AnnualReportRow[],
  viewer: Account,
): Record<string, unknown> {
  const refs = reports.map(reportReferences);
  const accountIds = [...new Set(refs.flatMap((r) => r.accountIds))];
  const statusIds = [...new Set(refs.flatMap((r) => r.statusIds))];
  return {
    annual_reports: reports.map((r) => ({
      year: r.year,
      data: r.data,
      schema_version: r.schemaVersion,
      // Mastodon's public report page; Homeport has none to share.
      share_url: null,
      account_id: r.accountId,
    })),
    accounts: accounts.present(store.accounts.byIds(accountIds)),
    statuses: statuses.present(store.statuses.byIds(statusIds), viewer),
  };
}
