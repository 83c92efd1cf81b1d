import {
  cursorWhere,
  finishPage,
  idOrNull,
  int,
  intOrNull,
  jsonOr,
  str,
  type PageQuery,
  type StoreCore,
} from './store.ts';

/** The POST /api/v1/statuses parameters a scheduled status keeps until it is published. */
export interface ScheduledParams {
  text: string;
  spoilerText: string | null;
  sensitive: boolean | null;
  visibility: 'public' | 'unlisted' | 'private' | 'direct';
  language: string | null;
  inReplyToId: string | null;
  mediaIds: string[] | null;
  poll: { options: string[]; expiresIn: number; multiple: boolean; hideTotals: boolean } | null;
  quoteApprovalPolicy: 'public' | 'followers' | 'nobody' | null;
  /** The status to quote (optional: older scheduled posts have none). */
  quotedStatusId?: string | null;
  idempotency: string | null;
  allowedMentions: string[] | null;
}

export interface ScheduledStatusRow {
  id: string;
  accountId: string;
  applicationId: string | null;
  scheduledAt: number;
  params: ScheduledParams;
  createdAt: number;
}

function toScheduled(r: Record<string, unknown>): ScheduledStatusRow {
  return {
    id: str(r.id),
    accountId: str(r.account_id),
    applicationId: idOrNull(r.application_id),
    scheduledAt: int(r.scheduled_at),
    params: jsonOr<ScheduledParams>(r.params, {} as ScheduledParams),
    createdAt: int(r.created_at),
  };
}

export class ScheduledStatusRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  insert(input: {
    accountId: string;
    applicationId: string | null;
    scheduledAt: number;
    params: ScheduledParams;
  }): string {
    const id = this.core.ids.next();
    this.core
      .sql(
        'INSERT INTO scheduled_statuses (id, account_id, application_id, scheduled_at, params, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(id, input.accountId, input.applicationId, input.scheduledAt, JSON.stringify(input.params), this.core.now());
    return id;
  }

  byId(id: string): ScheduledStatusRow | null {
    const r = this.core.sql('SELECT * FROM scheduled_statuses WHERE id = ?').get(id) as
      | Record<string, unknown>
      | undefined;
    return r ? toScheduled(r) : null;
  }

  list(accountId: string, page: PageQuery): ScheduledStatusRow[] {
    const c = cursorWhere('id', page);
    const rows = this.core
      .sql(
        `SELECT * FROM scheduled_statuses WHERE account_id = @account AND ${c.where} ORDER BY id ${c.order} LIMIT @cursor_limit`,
      )
      .all({ account: accountId, ...c.params }) as Record<string, unknown>[];
    return finishPage(rows.map(toScheduled), page);
  }

  /** How many an account has pending, in all and within a day of `at`. */
  counts(accountId: string, at: number): { total: number; sameDay: number } {
    const day = 24 * 3600 * 1000;
    const start = Math.floor(at / day) * day;
    const r = this.core
      .sql(
        'SELECT COUNT(*) AS total, SUM(CASE WHEN scheduled_at >= ? AND scheduled_at < ? THEN 1 ELSE 0 END) AS same_day FROM scheduled_statuses WHERE account_id = ?',
      )
      .get(start, start + day, accountId) as { total: bigint; same_day: bigint | null };
    return { total: int(r.total), sameDay: int(r.same_day ?? 0n) };
  }

  reschedule(id: string, scheduledAt: number): void {
    this.core.sql('UPDATE scheduled_statuses SET scheduled_at = ? WHERE id = ?').run(scheduledAt, id);
  }

  delete(id: string): boolean {
    return this.core.sql('DELETE FROM scheduled_statuses WHERE id = ?').run(id).changes > 0;
  }

  due(now: number, limit: number): ScheduledStatusRow[] {
    return (
      this.core
        .sql('SELECT * FROM scheduled_statuses WHERE scheduled_at <= ? ORDER BY scheduled_at, id LIMIT ?')
        .all(now, limit) as Record<string, unknown>[]
    ).map(toScheduled);
  }

  nextDue(): number | null {
    const r = this.core.sql('SELECT MIN(scheduled_at) AS t FROM scheduled_statuses').get() as { t: bigint | null };
    return intOrNull(r.t);
  }
}
