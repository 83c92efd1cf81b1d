import { notFound } from '../errors.ts';
import type { Account, AnnualReportRow, SocialStore, YearActivity } from '../store/index.ts';

/** The report format Mastodon 4.3–4.5 generate (4.6's version 2 keeps only some of it). */
export const ANNUAL_REPORT_SCHEMA = 1;

export type AnnualReportState = 'available' | 'generating' | 'eligible' | 'ineligible';

/** Fewer posts than this in the year and one is a lurker, whatever the mix. */
const LURKER_BELOW = 10;

/** The first day of December a year's reports are offered on (Mastodon's campaign runs to the year's end). */
const CAMPAIGN_FROM_DAY = 10;

/** The year whose reports are on offer at `now`, as Mastodon's `AnnualReport.current_campaign`: 10–31 December (UTC). */
function campaignYear(now: number): number | null {
  const date = new Date(now);
  return date.getUTCMonth() === 11 && date.getUTCDate() >= CAMPAIGN_FROM_DAY ? date.getUTCFullYear() : null;
}

/**
 * Annual reports ("Wrapstodon"): what an account posted, boosted, replied to and gained in a calendar year
 * (UTC), from its own stored rows. As Mastodon, a year's report is offered (eligible) and may be generated only
 * during that year's campaign (from 10 December to the year's end) and with at least one post of the account
 * in the year; it is generated once (synchronously, so it is never "generating") and then kept as it was.
 */
export class AnnualReports {
  private readonly store: SocialStore;
  constructor(store: SocialStore) {
    this.store = store;
  }

  list(account: Account): AnnualReportRow[] {
    return this.store.annualReports.list(account.id);
  }

  /** The generated report of a year; 404 when there is none. */
  get(account: Account, year: number): AnnualReportRow {
    const report = this.store.annualReports.get(account.id, year);
    if (!report) throw notFound();
    return report;
  }

  state(account: Account, year: number): AnnualReportState {
    if (this.store.annualReports.get(account.id, year)) return 'available';
    return this.eligible(account, year) ? 'eligible' : 'ineligible';
  }

  /** Generates the year's report when it may be; whether one exists afterwards. */
  generate(account: Account, year: number): boolean {
    if (this.state(account, year) === 'eligible') {
      const [from, to] = yearSpan(year);
      this.store.annualReports.save(
        account.id,
        year,
        ANNUAL_REPORT_SCHEMA,
        reportData(this.store.annualReports.activity(account.id, from, to)),
      );
    }
    return this.store.annualReports.get(account.id, year) !== null;
  }

  markRead(account: Account, year: number): void {
    this.get(account, year);
    this.store.annualReports.markViewed(account.id, year);
  }

  private eligible(account: Account, year: number): boolean {
    if (campaignYear(this.store.core.now()) !== year) return false;
    const [from, to] = yearSpan(year);
    return this.store.annualReports.statusCount(account.id, from, to) > 0;
  }
}

function yearSpan(year: number): [number, number] {
  return [Date.UTC(year, 0, 1), Date.UTC(year + 1, 0, 1)];
}

/**
 * The coarse picture of the year: few posts make a lurker; otherwise whatever dominates (boosts, replies,
 * or polls in one own post of ten); an oracle mostly writes posts of their own.
 */
function archetype(a: YearActivity): string {
  const total = a.standalone + a.replies + a.reblogs;
  if (total < LURKER_BELOW) return 'lurker';
  if (a.reblogs * 2 >= total) return 'booster';
  if (a.replies * 2 >= total) return 'replier';
  if (a.polls * 10 >= a.standalone + a.replies) return 'pollster';
  return 'oracle';
}

/** Schema version 1, as Mastodon 4.3–4.5 generate it. */
function reportData(a: YearActivity): Record<string, unknown> {
  return {
    archetype: archetype(a),
    time_series: a.months,
    top_hashtags: a.topTags,
    top_statuses: {
      by_reblogs: a.topStatuses.byReblogs,
      by_favourites: a.topStatuses.byFavourites,
      by_replies: a.topStatuses.byReplies,
    },
    type_distribution: {
      total: a.standalone + a.replies + a.reblogs,
      reblogs: a.reblogs,
      replies: a.replies,
      standalone: a.standalone,
    },
    most_used_apps: a.apps,
    commonly_interacted_with_accounts: a.repliedTo.map((r) => ({ account_id: r.accountId, count: r.count })),
    most_reblogged_accounts: a.reblogged.map((r) => ({ account_id: r.accountId, count: r.count })),
    percentiles: { statuses: a.statusesPercentile, followers: a.followersPercentile },
  };
}

/** The accounts and statuses a report names (the wrapper carries their entities). */
export function reportReferences(report: AnnualReportRow): { accountIds: string[]; statusIds: string[] } {
  const data = report.data as {
    top_statuses?: Record<string, string | null>;
    commonly_interacted_with_accounts?: { account_id: string }[];
    most_reblogged_accounts?: { account_id: string }[];
  };
  return {
    accountIds: [
      ...(data.commonly_interacted_with_accounts ?? []).map((r) => r.account_id),
      ...(data.most_reblogged_accounts ?? []).map((r) => r.account_id),
    ],
    statusIds: Object.values(data.top_statuses ?? {}).filter((id): id is string => typeof id === 'string'),
  };
}
