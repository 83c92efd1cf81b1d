import { cursorWhere, finishPage, idOrNull, int, jsonIds, str, type PageQuery, type StoreCore } from './store.ts';

export type QuoteState = 'pending' | 'accepted' | 'rejected' | 'revoked';

export interface QuoteRow {
  id: string;
  statusId: string;
  quotedStatusId: string | null;
  quotedAccountId: string | null;
  state: QuoteState;
}

function toQuote(r: Record<string, unknown>): QuoteRow {
  return { id: str(r.id), statusId: str(r.status_id), quotedStatusId: idOrNull(r.quoted_status_id), quotedAccountId: idOrNull(r.quoted_account_id), state: r.state as QuoteState };
}

/** Quote posts (Mastodon 4.5): which status quotes which, and whether the quoted author allowed it. */
export class QuoteRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  insert(statusId: string, quotedStatusId: string, quotedAccountId: string, state: QuoteState): string {
    const id = this.core.ids.next();
    const now = this.core.now();
    this.core.sql('INSERT INTO quotes (id, status_id, quoted_status_id, quoted_account_id, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(id, statusId, quotedStatusId, quotedAccountId, state, now, now);
    return id;
  }

  /** The quotes the given statuses make, by quoting status id. */
  ofStatuses(statusIds: readonly string[]): Map<string, QuoteRow> {
    if (statusIds.length === 0) return new Map();
    const rows = this.core.sql('SELECT * FROM quotes WHERE status_id IN (SELECT value FROM json_each(?))').all(jsonIds(statusIds)) as Record<string, unknown>[];
    return new Map(rows.map((r) => [str(r.status_id), toQuote(r)]));
  }

  /** Accepted quotes of each status that are not deleted (quotes_count). */
  counts(quotedStatusIds: readonly string[]): Map<string, number> {
    if (quotedStatusIds.length === 0) return new Map();
    const rows = this.core
      .sql(
        `SELECT q.quoted_status_id AS id, COUNT(*) AS n FROM quotes q JOIN statuses s ON s.id = q.status_id
         WHERE q.quoted_status_id IN (SELECT value FROM json_each(?)) AND q.state = 'accepted' AND s.deleted_at IS NULL GROUP BY q.quoted_status_id`,
      )
      .all(jsonIds(quotedStatusIds)) as { id: bigint; n: bigint }[];
    return new Map(rows.map((r) => [str(r.id), int(r.n)]));
  }

  /** Statuses quoting a status, accepted ones, newest quote first (cursor: the quote's id). */
  quoting(quotedStatusId: string, page: PageQuery): { cursor: string; statusId: string }[] {
    const c = cursorWhere('q.id', page);
    const rows = this.core
      .sql(
        `SELECT q.id AS cursor, q.status_id AS status FROM quotes q JOIN statuses s ON s.id = q.status_id
         WHERE q.quoted_status_id = @quoted AND q.state = 'accepted' AND s.deleted_at IS NULL AND ${c.where} ORDER BY q.id ${c.order} LIMIT @cursor_limit`,
      )
      .all({ quoted: quotedStatusId, ...c.params }) as { cursor: bigint; status: bigint }[];
    return finishPage(rows.map((r) => ({ cursor: str(r.cursor), statusId: str(r.status) })), page);
  }

  byQuotingStatus(quotedStatusId: string, quotingStatusId: string): QuoteRow | null {
    const r = this.core.sql('SELECT * FROM quotes WHERE quoted_status_id = ? AND status_id = ?').get(quotedStatusId, quotingStatusId) as Record<string, unknown> | undefined;
    return r ? toQuote(r) : null;
  }

  /** Changes a quote's state; the quoting status gets a new version (what presenters cache by). */
  setState(quote: QuoteRow, state: QuoteState): void {
    const now = this.core.now();
    this.core.sql('UPDATE quotes SET state = ?, updated_at = ? WHERE id = ?').run(state, now, quote.id);
    this.core.sql('UPDATE statuses SET updated_at = max(updated_at + 1, ?) WHERE id = ?').run(now, quote.statusId);
  }
}
