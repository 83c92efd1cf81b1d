import {
  bool,
  cursorWhere,
  finishPage,
  idOrNull,
  int,
  intOrNull,
  jsonOr,
  sqlBool,
  str,
  type PageQuery,
  type StoreCore,
} from './store.ts';

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
  actionTakenByAccountId: string | null;
  assignedAccountId: string | null;
  createdAt: number;
  updatedAt: number;
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
    actionTakenByAccountId: idOrNull(r.action_taken_by_account_id),
    assignedAccountId: idOrNull(r.assigned_account_id),
    createdAt: int(r.created_at),
    updatedAt: int(r.updated_at),
  };
}

/** Reports users file about accounts and their statuses, for the staff. */
export class ReportRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  insert(
    input: Omit<
      ReportRow,
      'id' | 'actionTakenAt' | 'actionTakenByAccountId' | 'assignedAccountId' | 'createdAt' | 'updatedAt'
    >,
  ): string {
    const id = this.core.ids.next();
    const now = this.core.now();
    this.core
      .sql(
        'INSERT INTO reports (id, account_id, target_account_id, status_ids, rule_ids, comment, category, forwarded, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        id,
        input.accountId,
        input.targetAccountId,
        JSON.stringify(input.statusIds),
        JSON.stringify(input.ruleIds),
        input.comment,
        input.category,
        sqlBool(input.forwarded),
        now,
        now,
      );
    return id;
  }

  byId(id: string): ReportRow | null {
    const r = this.core.sql('SELECT * FROM reports WHERE id = ?').get(id) as Record<string, unknown> | undefined;
    return r ? toReport(r) : null;
  }

  byIds(ids: readonly string[]): ReportRow[] {
    if (ids.length === 0) return [];
    return (
      this.core
        .sql('SELECT * FROM reports WHERE id IN (SELECT value FROM json_each(?))')
        .all(`[${ids.join(',')}]`) as Record<string, unknown>[]
    ).map(toReport);
  }

  /** Reports for the staff, newest first: open ones unless `resolved`, optionally by reporter or target. */
  list(filter: { resolved: boolean; accountId?: string; targetAccountId?: string }, page: PageQuery): ReportRow[] {
    const c = cursorWhere('id', page);
    const rows = this.core
      .sql(
        `SELECT * FROM reports WHERE (action_taken_at IS NOT NULL) = @resolved AND (@account IS NULL OR account_id = @account) AND (@target IS NULL OR target_account_id = @target)
           AND ${c.where} ORDER BY id ${c.order} LIMIT @cursor_limit`,
      )
      .all({
        resolved: filter.resolved ? 1 : 0,
        account: filter.accountId ?? null,
        target: filter.targetAccountId ?? null,
        ...c.params,
      }) as Record<string, unknown>[];
    return finishPage(rows.map(toReport), page);
  }

  update(id: string, changes: { category?: ReportCategory; ruleIds?: string[] }): void {
    const r = this.byId(id)!;
    this.core
      .sql('UPDATE reports SET category = ?, rule_ids = ?, updated_at = ? WHERE id = ?')
      .run(changes.category ?? r.category, JSON.stringify(changes.ruleIds ?? r.ruleIds), this.core.now(), id);
  }

  assign(id: string, accountId: string | null): void {
    this.core
      .sql('UPDATE reports SET assigned_account_id = ?, updated_at = ? WHERE id = ?')
      .run(accountId, this.core.now(), id);
  }

  /** Marks the report handled (by whom), or open again. */
  resolve(id: string, byAccountId: string | null): void {
    const now = this.core.now();
    this.core
      .sql('UPDATE reports SET action_taken_at = ?, action_taken_by_account_id = ?, updated_at = ? WHERE id = ?')
      .run(byAccountId === null ? null : now, byAccountId, now, id);
  }
}
