/** Paginated account listings (followers, blocks, mutes, endorsements, list members…) and what hides one from a viewer. */
import type { Account } from './account-row.ts';
import { toAccount } from './account-columns.ts';
import { cursorWhere, finishPage, intOrNull, str, type PageQuery, type StoreCore } from './store.ts';

/** One row of a paginated account listing: the cursor is the id of the join row (follow, block, mute…). */
export interface ListedAccount {
  cursor: string;
  account: Account;
  muteExpiresAt?: number | null;
}

/**
 * Conditions that hide account `a` from `@viewer` in lists: blocks either way, the viewer's mutes (unless
 * @own_list) and the viewer's domain blocks. Without a viewer (@viewer NULL) nothing is hidden.
 */
export const HIDDEN_FROM_VIEWER = `
  (@viewer IS NULL OR (
    NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.account_id = @viewer AND b.target_account_id = a.id) OR (b.account_id = a.id AND b.target_account_id = @viewer))
    AND (@own_list = 1 OR NOT EXISTS (SELECT 1 FROM mutes m WHERE m.account_id = @viewer AND m.target_account_id = a.id AND (m.expires_at IS NULL OR m.expires_at > @now)))
    AND (a.domain IS NULL OR NOT EXISTS (SELECT 1 FROM account_domain_blocks d WHERE d.account_id = @viewer AND d.domain = a.domain))
  ))`;

/** Runs a listing query `sql` (selecting `cursor` and the account columns) one page at a time, by `cursorColumn`. */
export function listAccounts(
  core: StoreCore,
  sql: string,
  params: Record<string, unknown>,
  page: PageQuery,
  cursorColumn: string,
): ListedAccount[] {
  const c = cursorWhere(cursorColumn, page);
  const rows = core
    .sql(`${sql} AND ${c.where} ORDER BY ${cursorColumn} ${c.order} LIMIT @cursor_limit`)
    .all({ now: core.now(), ...params, ...c.params }) as Record<string, unknown>[];
  return finishPage(
    rows.map((r) => ({
      cursor: str(r.cursor),
      account: toAccount(r),
      muteExpiresAt: r.mute_expires_at === undefined ? undefined : intOrNull(r.mute_expires_at),
    })),
    page,
  );
}
