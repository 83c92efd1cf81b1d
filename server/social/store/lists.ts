import type { ListedAccount } from './listed-accounts.ts';
import { ACCOUNT_COLUMNS, ACCOUNT_LISTED, toAccount } from './account-columns.ts';
import { bool, cursorWhere, finishPage, int, jsonIds, sqlBool, str, type PageQuery, type StoreCore } from './store.ts';

export type RepliesPolicy = 'followed' | 'list' | 'none';

export interface ListRow {
  id: string;
  accountId: string;
  title: string;
  repliesPolicy: RepliesPolicy;
  exclusive: boolean;
  createdAt: number;
}

function toList(r: Record<string, unknown>): ListRow {
  return {
    id: str(r.id),
    accountId: str(r.account_id),
    title: String(r.title),
    repliesPolicy: r.replies_policy as RepliesPolicy,
    exclusive: bool(r.exclusive),
    createdAt: int(r.created_at),
  };
}

/** Lists of accounts a user reads apart from home; their timelines are read from the members' statuses. */
export class ListRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  create(accountId: string, input: { title: string; repliesPolicy: RepliesPolicy; exclusive: boolean }): ListRow {
    const id = this.core.ids.next();
    const now = this.core.now();
    this.core
      .sql(
        'INSERT INTO lists (id, account_id, title, replies_policy, exclusive, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(id, accountId, input.title, input.repliesPolicy, sqlBool(input.exclusive), now, now);
    return this.byId(id)!;
  }

  update(id: string, changes: { title: string; repliesPolicy: RepliesPolicy; exclusive: boolean }): void {
    this.core
      .sql('UPDATE lists SET title = ?, replies_policy = ?, exclusive = ?, updated_at = ? WHERE id = ?')
      .run(changes.title, changes.repliesPolicy, sqlBool(changes.exclusive), this.core.now(), id);
  }

  delete(id: string): void {
    this.core.sql('DELETE FROM lists WHERE id = ?').run(id);
  }

  byId(id: string): ListRow | null {
    const r = this.core.sql('SELECT * FROM lists WHERE id = ?').get(id) as Record<string, unknown> | undefined;
    return r ? toList(r) : null;
  }

  ofOwner(accountId: string): ListRow[] {
    return (
      this.core.sql('SELECT * FROM lists WHERE account_id = ? ORDER BY lower(title), id').all(accountId) as Record<
        string,
        unknown
      >[]
    ).map(toList);
  }

  /** The owner's lists that hold `memberId`. */
  holding(ownerId: string, memberId: string): ListRow[] {
    return (
      this.core
        .sql(
          'SELECT l.* FROM lists l JOIN list_accounts la ON la.list_id = l.id WHERE l.account_id = ? AND la.account_id = ? ORDER BY lower(l.title), l.id',
        )
        .all(ownerId, memberId) as Record<string, unknown>[]
    ).map(toList);
  }

  /** Every list, of any owner, that holds `memberId` (where a new status of theirs may appear). */
  withMember(memberId: string): ListRow[] {
    return (
      this.core
        .sql('SELECT l.* FROM lists l JOIN list_accounts la ON la.list_id = l.id WHERE la.account_id = ?')
        .all(memberId) as Record<string, unknown>[]
    ).map(toList);
  }

  isMember(listId: string, accountId: string): boolean {
    return (
      this.core.sql('SELECT 1 FROM list_accounts WHERE list_id = ? AND account_id = ?').get(listId, accountId) !==
      undefined
    );
  }

  members(listId: string, page: PageQuery): ListedAccount[] {
    const c = cursorWhere('la.id', page);
    const rows = this.core
      .sql(
        `SELECT la.id AS cursor, ${ACCOUNT_COLUMNS} FROM list_accounts la JOIN accounts a ON a.id = la.account_id LEFT JOIN users u ON u.account_id = a.id
         WHERE la.list_id = @list AND ${ACCOUNT_LISTED} AND ${c.where} ORDER BY la.id ${c.order} LIMIT @cursor_limit`,
      )
      .all({ list: listId, ...c.params }) as Record<string, unknown>[];
    return finishPage(
      rows.map((r) => ({ cursor: str(r.cursor), account: toAccount(r) })),
      page,
    );
  }

  addMembers(listId: string, accountIds: readonly string[]): void {
    const insert = this.core.sql('INSERT OR IGNORE INTO list_accounts (id, list_id, account_id) VALUES (?, ?, ?)');
    for (const id of accountIds) insert.run(this.core.ids.next(), listId, id);
  }

  removeMembers(listId: string, accountIds: readonly string[]): void {
    this.core
      .sql('DELETE FROM list_accounts WHERE list_id = ? AND account_id IN (SELECT value FROM json_each(?))')
      .run(listId, jsonIds(accountIds));
  }

  /** Removes `memberId` from every list of `ownerId` (after an unfollow or a block, as Mastodon). */
  removeFromOwnerLists(ownerId: string, memberId: string): void {
    this.core
      .sql('DELETE FROM list_accounts WHERE account_id = ? AND list_id IN (SELECT id FROM lists WHERE account_id = ?)')
      .run(memberId, ownerId);
  }
}
