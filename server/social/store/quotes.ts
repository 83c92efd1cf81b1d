import {
  bool,
  cursorWhere,
  finishPage,
  idOrNull,
  jsonIds,
  sqlBool,
  str,
  type PageQuery,
  type StoreCore,
} from './store.ts';

export type QuoteState = 'pending' | 'accepted' | 'rejected' | 'revoked';

export interface QuoteRow {
  id: string;
  statusId: string;
  quotedStatusId: string | null;
  quotedAccountId: string | null;
  state: QuoteState;
  /** The QuoteRequest this quote was asked with (ours to a remote author, or a remote server's to us). */
  activityUri: string | null;
  /** The remote QuoteAuthorization stamp that approved it (our own stamps derive from the quote's id). */
  approvalUri: string | null;
  /** Quoted without the FEP-044f `quote` property (Misskey's `_misskey_quote`, `quoteUrl`): never approved. */
  legacy: boolean;
}

function toQuote(r: Record<string, unknown>): QuoteRow {
  return {
    id: str(r.id),
    statusId: str(r.status_id),
    quotedStatusId: idOrNull(r.quoted_status_id),
    quotedAccountId: idOrNull(r.quoted_account_id),
    state: r.state as QuoteState,
    activityUri: (r.activity_uri as string | null) ?? null,
    approvalUri: (r.approval_uri as string | null) ?? null,
    legacy: bool(r.legacy),
  };
}

export interface NewQuoteDetails {
  activityUri?: string | null;
  approvalUri?: string | null;
  legacy?: boolean;
}

/** Quote posts (Mastodon 4.5): which status quotes which, and whether the quoted author allowed it. */
export class QuoteRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  insert(
    statusId: string,
    quotedStatusId: string | null,
    quotedAccountId: string | null,
    state: QuoteState,
    details: NewQuoteDetails = {},
  ): string {
    const id = this.core.ids.next();
    const now = this.core.now();
    this.core
      .sql(
        'INSERT INTO quotes (id, status_id, quoted_status_id, quoted_account_id, state, activity_uri, approval_uri, legacy, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        id,
        statusId,
        quotedStatusId,
        quotedAccountId,
        state,
        details.activityUri ?? null,
        details.approvalUri ?? null,
        sqlBool(details.legacy ?? false),
        now,
        now,
      );
    return id;
  }

  byId(id: string): QuoteRow | null {
    const r = this.core.sql('SELECT * FROM quotes WHERE id = ?').get(id) as Record<string, unknown> | undefined;
    return r ? toQuote(r) : null;
  }

  /** The quote a status makes, if any. */
  ofStatus(statusId: string): QuoteRow | null {
    return this.ofStatuses([statusId]).get(statusId) ?? null;
  }

  /** The quote a QuoteRequest (by its id) asked for. */
  byActivityUri(uri: string): QuoteRow | null {
    const r = this.core.sql('SELECT * FROM quotes WHERE activity_uri = ?').get(uri) as
      | Record<string, unknown>
      | undefined;
    return r ? toQuote(r) : null;
  }

  /** The quote a remote QuoteAuthorization stamp approved, given by the account that granted it. */
  byApprovalUri(uri: string, quotedAccountId: string): QuoteRow | null {
    const r = this.core
      .sql('SELECT * FROM quotes WHERE approval_uri = ? AND quoted_account_id = ?')
      .get(uri, quotedAccountId) as Record<string, unknown> | undefined;
    return r ? toQuote(r) : null;
  }

  /** Records the QuoteRequest a quote was asked with. */
  setActivityUri(quote: QuoteRow, uri: string): void {
    this.core
      .sql('UPDATE quotes SET activity_uri = ?, updated_at = ? WHERE id = ?')
      .run(uri, this.core.now(), quote.id);
  }

  /** A remote status's quote read again (an Update): what it quotes, how it was approved, its state. */
  replace(
    quote: QuoteRow,
    next: {
      quotedStatusId: string | null;
      quotedAccountId: string | null;
      state: QuoteState;
      approvalUri: string | null;
      legacy: boolean;
    },
  ): void {
    this.core
      .sql(
        'UPDATE quotes SET quoted_status_id = ?, quoted_account_id = ?, state = ?, approval_uri = ?, legacy = ?, updated_at = ? WHERE id = ?',
      )
      .run(
        next.quotedStatusId,
        next.quotedAccountId,
        next.state,
        next.approvalUri,
        sqlBool(next.legacy),
        this.core.now(),
        quote.id,
      );
    this.touchStatus(quote.statusId);
  }

  /** A status no longer quotes anything (its author's server sent it without the quote). */
  remove(quote: QuoteRow): void {
    this.core.sql('DELETE FROM quotes WHERE id = ?').run(quote.id);
    this.touchStatus(quote.statusId);
  }

  private touchStatus(statusId: string): void {
    this.core
      .sql('UPDATE statuses SET updated_at = max(updated_at + 1, ?) WHERE id = ?')
      .run(this.core.now(), statusId);
  }

  /** The quotes the given statuses make, by quoting status id. */
  ofStatuses(statusIds: readonly string[]): Map<string, QuoteRow> {
    if (statusIds.length === 0) return new Map();
    const rows = this.core
      .sql('SELECT * FROM quotes WHERE status_id IN (SELECT value FROM json_each(?))')
      .all(jsonIds(statusIds)) as Record<string, unknown>[];
    return new Map(rows.map((r) => [str(r.status_id), toQuote(r)]));
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
    return finishPage(
      rows.map((r) => ({ cursor: str(r.cursor), statusId: str(r.status) })),
      page,
    );
  }

  /** Local accounts with an accepted quote of this status (told when it is edited). */
  localQuoters(quotedStatusId: string): string[] {
    const rows = this.core
      .sql(
        `SELECT DISTINCT s.account_id FROM quotes q JOIN statuses s ON s.id = q.status_id JOIN accounts a ON a.id = s.account_id
         WHERE q.quoted_status_id = ? AND q.state = 'accepted' AND s.deleted_at IS NULL AND a.domain IS NULL`,
      )
      .all(quotedStatusId) as { account_id: bigint }[];
    return rows.map((r) => str(r.account_id));
  }

  byQuotingStatus(quotedStatusId: string, quotingStatusId: string): QuoteRow | null {
    const r = this.core
      .sql('SELECT * FROM quotes WHERE quoted_status_id = ? AND status_id = ?')
      .get(quotedStatusId, quotingStatusId) as Record<string, unknown> | undefined;
    return r ? toQuote(r) : null;
  }

  /**
   * Changes a quote's state (with the remote stamp that approved it, when one did); the quoting status gets a
   * new version (what presenters cache by).
   */
  setState(quote: QuoteRow, state: QuoteState, approvalUri: string | null = quote.approvalUri): void {
    this.core
      .sql('UPDATE quotes SET state = ?, approval_uri = ?, updated_at = ? WHERE id = ?')
      .run(state, approvalUri, this.core.now(), quote.id);
    this.touchStatus(quote.statusId);
  }
}
