import { bool, int, intOrNull, jsonOr, sqlBool, str, type StoreCore } from './store.ts';

export type ReportCategory = 'spam' | 'legal' | 'violation' | 'other';

export interface ReportRow {
  id: string;
  accountId: string;
  targetAccountId: string;
  statusIds: string[];
  ruleIds: string[];
  comment: string;
  category: ReportCategory;
  forwarded: boolean;
  actionTakenAt: number | null;
  createdAt: number;
}

function toReport(r: Record<string, unknown>): ReportRow {
  return {
    id: str(r.id),
    accountId: str(r.account_id),
    targetAccountId: str(r.target_account_id),
    statusIds: jsonOr<string[]>(r.status_ids, []),
    ruleIds: jsonOr<string[]>(r.rule_ids, []),
    comment: String(r.comment),
    category: r.category as ReportCategory,
    forwarded: bool(r.forwarded),
    actionTakenAt: intOrNull(r.action_taken_at),
    createdAt: int(r.created_at),
  };
}

/** Reports users file about accounts and their statuses, for the staff. */
export class ReportRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  insert(input: Omit<ReportRow, 'id' | 'actionTakenAt' | 'createdAt'>): string {
    const id = this.core.ids.next();
    const now = this.core.now();
    this.core
      .sql('INSERT INTO reports (id, account_id, target_account_id, status_ids, rule_ids, comment, category, forwarded, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(id, input.accountId, input.targetAccountId, JSON.stringify(input.statusIds), JSON.stringify(input.ruleIds), input.comment, input.category, sqlBool(input.forwarded), now, now);
    return id;
  }

  byId(id: string): ReportRow | null {
    const r = this.core.sql('SELECT * FROM reports WHERE id = ?').get(id) as Record<string, unknown> | undefined;
    return r ? toReport(r) : null;
  }

  byIds(ids: readonly string[]): ReportRow[] {
    if (ids.length === 0) return [];
    return (this.core.sql('SELECT * FROM reports WHERE id IN (SELECT value FROM json_each(?))').all(`[${ids.join(',')}]`) as Record<string, unknown>[]).map(toReport);
  }
}
