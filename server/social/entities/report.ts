import type { ReportRow } from '../store/index.ts';
import type { AccountJson } from './account.ts';
import { isoTime, isoTimeOrNull } from './dates.ts';

/** The Report entity, as its reporter and the staff see it. */
export function serializeReport(report: ReportRow, target: AccountJson): Record<string, unknown> {
  return {
    id: report.id,
    action_taken: report.actionTakenAt !== null,
    action_taken_at: isoTimeOrNull(report.actionTakenAt),
    category: report.category,
    comment: report.comment,
    forwarded: report.forwarded,
    created_at: isoTime(report.createdAt),
    status_ids: report.statusIds.length ? report.statusIds : null,
    rule_ids: report.ruleIds.length ? report.ruleIds : null,
    target_account: target,
  };
}
