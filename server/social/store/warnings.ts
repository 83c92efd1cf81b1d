import { int, jsonIds, jsonOr, str, type StoreCore } from './store.ts';

export type WarningAction =
  | 'none'
  | 'disable'
  | 'mark_statuses_as_sensitive'
  | 'delete_statuses'
  | 'sensitive'
  | 'silence'
  | 'suspend';

export interface AccountWarningRow {
  id: string;
  /** The moderator who acted. */
  accountId: string;
  targetAccountId: string;
  action: WarningAction;
  text: string;
  statusIds: string[];
  createdAt: number;
}

function toWarning(r: Record<string, unknown>): AccountWarningRow {
  return {
    id: str(r.id),
    accountId: str(r.account_id),
    targetAccountId: str(r.target_account_id),
    action: r.action as WarningAction,
    text: String(r.text),
    statusIds: jsonOr<string[]>(r.status_ids, []),
    createdAt: int(r.created_at),
  };
}

/** Moderation decisions told to the account they concern (Mastodon's AccountWarning). */
export class AccountWarningRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  insert(input: Omit<AccountWarningRow, 'id' | 'createdAt'>): string {
    const id = this.core.ids.next();
    this.core
      .sql(
        'INSERT INTO account_warnings (id, account_id, target_account_id, action, text, status_ids, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        id,
        input.accountId,
        input.targetAccountId,
        input.action,
        input.text,
        JSON.stringify(input.statusIds),
        this.core.now(),
      );
    return id;
  }

  byIds(ids: readonly string[]): AccountWarningRow[] {
    if (ids.length === 0) return [];
    return (
      this.core
        .sql('SELECT * FROM account_warnings WHERE id IN (SELECT value FROM json_each(?))')
        .all(jsonIds(ids)) as Record<string, unknown>[]
    ).map(toWarning);
  }
}
