import { bool, int, intOrNull, jsonOr, sqlBool, str, type StoreCore } from './store.ts';

export const FILTER_CONTEXTS = ['home', 'notifications', 'public', 'thread', 'account'] as const;
export type FilterContext = (typeof FILTER_CONTEXTS)[number];
export type FilterAction = 'warn' | 'hide' | 'blur';

export interface FilterKeywordRow {
  id: string;
  filterId: string;
  keyword: string;
  wholeWord: boolean;
}

export interface FilterStatusRow {
  id: string;
  filterId: string;
  statusId: string;
}

export interface FilterRow {
  id: string;
  accountId: string;
  title: string;
  context: FilterContext[];
  action: FilterAction;
  expiresAt: number | null;
  keywords: FilterKeywordRow[];
  statuses: FilterStatusRow[];
}

/** A user's content filters (Mastodon's v2 model: a filter holds keywords and statuses; v1 sees each keyword). */
export class FilterRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  /** Every filter of an account with its keywords and statuses, oldest first. */
  ofAccount(accountId: string): FilterRow[] {
    const filters = this.core.sql('SELECT * FROM filters WHERE account_id = ? ORDER BY id').all(accountId) as Record<
      string,
      unknown
    >[];
    if (filters.length === 0) return [];
    const keywords = this.core
      .sql(
        'SELECT k.* FROM filter_keywords k JOIN filters f ON f.id = k.filter_id WHERE f.account_id = ? ORDER BY k.id',
      )
      .all(accountId) as Record<string, unknown>[];
    const statuses = this.core
      .sql(
        'SELECT s.* FROM filter_statuses s JOIN filters f ON f.id = s.filter_id WHERE f.account_id = ? ORDER BY s.id',
      )
      .all(accountId) as Record<string, unknown>[];
    return filters.map((f) => ({
      id: str(f.id),
      accountId: str(f.account_id),
      title: String(f.title),
      context: jsonOr<FilterContext[]>(f.context, []),
      action: f.action as FilterAction,
      expiresAt: intOrNull(f.expires_at),
      keywords: keywords
        .filter((k) => str(k.filter_id) === str(f.id))
        .map((k) => ({
          id: str(k.id),
          filterId: str(k.filter_id),
          keyword: String(k.keyword),
          wholeWord: bool(k.whole_word),
        })),
      statuses: statuses
        .filter((s) => str(s.filter_id) === str(f.id))
        .map((s) => ({ id: str(s.id), filterId: str(s.filter_id), statusId: str(s.status_id) })),
    }));
  }

  byId(accountId: string, id: string): FilterRow | null {
    return this.ofAccount(accountId).find((f) => f.id === id) ?? null;
  }

  create(
    accountId: string,
    input: { title: string; context: FilterContext[]; action: FilterAction; expiresAt: number | null },
  ): string {
    const id = this.core.ids.next();
    const now = this.core.now();
    this.core
      .sql(
        'INSERT INTO filters (id, account_id, title, context, action, expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(id, accountId, input.title, JSON.stringify(input.context), input.action, input.expiresAt, now, now);
    return id;
  }

  update(
    id: string,
    input: { title: string; context: FilterContext[]; action: FilterAction; expiresAt: number | null },
  ): void {
    this.core
      .sql('UPDATE filters SET title = ?, context = ?, action = ?, expires_at = ?, updated_at = ? WHERE id = ?')
      .run(input.title, JSON.stringify(input.context), input.action, input.expiresAt, this.core.now(), id);
  }

  delete(id: string): void {
    this.core.sql('DELETE FROM filters WHERE id = ?').run(id);
  }

  addKeyword(filterId: string, keyword: string, wholeWord: boolean): string {
    const id = this.core.ids.next();
    const now = this.core.now();
    this.core
      .sql(
        'INSERT INTO filter_keywords (id, filter_id, keyword, whole_word, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(id, filterId, keyword, sqlBool(wholeWord), now, now);
    return id;
  }

  updateKeyword(id: string, keyword: string, wholeWord: boolean): void {
    this.core
      .sql('UPDATE filter_keywords SET keyword = ?, whole_word = ?, updated_at = ? WHERE id = ?')
      .run(keyword, sqlBool(wholeWord), this.core.now(), id);
  }

  deleteKeyword(id: string): void {
    this.core.sql('DELETE FROM filter_keywords WHERE id = ?').run(id);
  }

  /** A keyword with the account owning its filter. */
  keyword(id: string): (FilterKeywordRow & { accountId: string }) | null {
    const r = this.core
      .sql('SELECT k.*, f.account_id FROM filter_keywords k JOIN filters f ON f.id = k.filter_id WHERE k.id = ?')
      .get(id) as Record<string, unknown> | undefined;
    return r
      ? {
          id: str(r.id),
          filterId: str(r.filter_id),
          keyword: String(r.keyword),
          wholeWord: bool(r.whole_word),
          accountId: str(r.account_id),
        }
      : null;
  }

  addStatus(filterId: string, statusId: string): string {
    const existing = this.core
      .sql('SELECT id FROM filter_statuses WHERE filter_id = ? AND status_id = ?')
      .get(filterId, statusId) as { id: bigint } | undefined;
    if (existing) return str(existing.id);
    const id = this.core.ids.next();
    this.core
      .sql('INSERT INTO filter_statuses (id, filter_id, status_id, created_at) VALUES (?, ?, ?, ?)')
      .run(id, filterId, statusId, this.core.now());
    return id;
  }

  /** A filtered status entry with the account owning its filter. */
  statusEntry(id: string): (FilterStatusRow & { accountId: string }) | null {
    const r = this.core
      .sql('SELECT s.*, f.account_id FROM filter_statuses s JOIN filters f ON f.id = s.filter_id WHERE s.id = ?')
      .get(id) as Record<string, unknown> | undefined;
    return r
      ? { id: str(r.id), filterId: str(r.filter_id), statusId: str(r.status_id), accountId: str(r.account_id) }
      : null;
  }

  deleteStatusEntry(id: string): void {
    this.core.sql('DELETE FROM filter_statuses WHERE id = ?').run(id);
  }

  /** Accounts that have filters at all (so rendering for everyone else skips the work). */
  hasFilters(accountId: string): boolean {
    return this.core.sql('SELECT 1 FROM filters WHERE account_id = ? LIMIT 1').get(accountId) !== undefined;
  }

  count(accountId: string): number {
    return int(
      (this.core.sql('SELECT COUNT(*) AS n FROM filters WHERE account_id = ?').get(accountId) as { n: bigint }).n,
    );
  }
}
