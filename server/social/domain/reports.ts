import { DetailsCollector, notFound, ValidationFailure } from '../errors.ts';
import type { Account, ReportCategory, SocialStore } from '../store/index.ts';

export const REPORT_COMMENT_MAX = 1_000;
const CATEGORIES: readonly ReportCategory[] = ['spam', 'legal', 'violation', 'other'];

export interface ReportInput {
  accountId: string;
  statusIds?: string[];
  comment?: string;
  forward?: boolean;
  category?: string;
  ruleIds?: string[];
}

/**
 * Reports: filed by users (or received from another server), seen by the staff as admin.report notifications,
 * and, when the reporter asks, forwarded to the reported account's server (federation listens to report.created).
 */
export class ReportService {
  private readonly store: SocialStore;
  constructor(store: SocialStore) {
    this.store = store;
  }

  file(reporter: Account, input: ReportInput): string {
    const target = this.store.accounts.byId(input.accountId);
    if (!target || target.deletedAt !== null) throw notFound();
    const details = new DetailsCollector();
    if (target.id === reporter.id) details.add('account_id', 'ERR_INVALID', 'cannot be your own account');
    const comment = input.comment ?? '';
    if ([...comment].length > REPORT_COMMENT_MAX)
      details.add('comment', 'ERR_TOO_LONG', `is too long (maximum is ${REPORT_COMMENT_MAX} characters)`);
    const statusIds = [...new Set(input.statusIds ?? [])];
    // Statuses must be the reported account's own, and ones the reporter may read (as Mastodon's): naming another
    // user's direct message or a followers-only post would carry it to the staff, and an answer different from a
    // missing id's would tell which ids are the target's hidden posts.
    const statuses = statusIds.flatMap((id) => this.store.timelines.readable(reporter.id, id) ?? []);
    if (statuses.length !== statusIds.length || statuses.some((s) => s.accountId !== target.id))
      details.add('status_ids', 'ERR_INVALID', "must be the reported account's statuses");
    const ruleIds = [...new Set(input.ruleIds ?? [])];
    const known = new Set(this.store.rules.list().map((r) => r.id));
    if (ruleIds.some((id) => !known.has(id))) details.add('rule_ids', 'ERR_INVALID', 'must be rules of this server');
    const category = (input.category ?? (ruleIds.length ? 'violation' : 'other')) as ReportCategory;
    if (!CATEGORIES.includes(category)) details.add('category', 'ERR_INCLUSION', 'is not included in the list');
    if (ruleIds.length && category !== 'violation')
      details.add('rule_ids', 'ERR_INVALID', 'are given only with the violation category');
    details.throwIfAny();
    const forward = (input.forward ?? false) && target.domain !== null;
    return this.store.transaction(() => {
      const id = this.store.reports.insert({
        accountId: reporter.id,
        targetAccountId: target.id,
        statusIds,
        ruleIds,
        comment,
        category,
        forwarded: forward,
      });
      this.notifyStaff(id, reporter.id);
      this.store.events.emit('report.created', { reportId: id, forward });
      return id;
    });
  }

  /** A report another server forwarded: about local accounts, filed in the name of that server's actor. */
  receive(from: Account, targetId: string, statusIds: string[], comment: string): string {
    const id = this.store.reports.insert({
      accountId: from.id,
      targetAccountId: targetId,
      statusIds,
      ruleIds: [],
      comment: comment.slice(0, REPORT_COMMENT_MAX),
      category: 'other',
      forwarded: false,
    });
    this.notifyStaff(id, from.id);
    return id;
  }

  private notifyStaff(reportId: string, reporterId: string): void {
    for (const accountId of this.store.users.staffAccountIds()) {
      if (accountId === reporterId) continue;
      const notificationId = this.store.notifications.insert({
        accountId,
        fromAccountId: reporterId,
        type: 'admin.report',
        reportId,
      });
      this.store.events.emit('notification.created', {
        notificationId,
        accountId,
        fromAccountId: reporterId,
        notificationType: 'admin.report',
        statusId: null,
      });
    }
  }

  // ---- staff's handling

  /** Recategorizes a report; rules belong to violation reports only (Mastodon drops them for other categories). */
  recategorize(id: string, changes: { category?: ReportCategory; ruleIds?: string[] }): void {
    const row = this.store.reports.byId(id);
    if (!row) throw notFound();
    const known = new Set(this.store.rules.list().map((r) => r.id));
    if (changes.ruleIds?.some((ruleId) => !known.has(ruleId)))
      throw ValidationFailure.single('rule_ids', 'ERR_INVALID', 'refer to rules that do not exist');
    const category = changes.category ?? row.category;
    this.store.reports.update(row.id, {
      category,
      ruleIds: category === 'violation' ? (changes.ruleIds ?? row.ruleIds) : [],
    });
  }

  /** Assigns the report to a staff member, or to nobody (null). */
  assign(id: string, staffId: string | null): void {
    this.store.reports.assign(id, staffId);
  }

  /** Marks the report resolved by a staff member, or open again (null). */
  resolve(id: string, staffId: string | null): void {
    this.store.reports.resolve(id, staffId);
  }
}
