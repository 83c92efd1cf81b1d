import type { LRUCache } from 'lru-cache';
import { int, intOrNull, jsonIds, str, type StoreCore } from './store.ts';
import type { Account, AccountCounts } from './account-row.ts';
import { rowMemo } from './row-memo.ts';
import type { StampMemo } from './stamp-memo.ts';

/*
 * Followers and following come from the trigger-kept follow_counts, less follows with accounts the API does
 * not list (suspended, deleted, unconfirmed, unapproved): rarely more than a handful, found through partial
 * indexes. When there are none (the usual case, asked first in one cheap statement) the counters are read as
 * kept, without the subtraction's CTE and subqueries (a page's authors right after a write: 50-60 -> 44-53 µs); whether there is one is kept until a write changes it.
 */
const UNLISTED_ACCOUNTS =
  'SELECT id FROM accounts INDEXED BY accounts_unavailable WHERE suspended_at IS NOT NULL OR deleted_at IS NOT NULL';
const UNLISTED_USERS =
  'SELECT account_id FROM users INDEXED BY users_pending WHERE confirmed_at IS NULL OR approved = 0';
const UNLISTED = `unlisted(id) AS MATERIALIZED (${UNLISTED_ACCOUNTS} UNION ${UNLISTED_USERS})`;
const FOLLOWERS = `coalesce(c.followers, 0) - (SELECT COUNT(*) FROM unlisted x CROSS JOIN follows f WHERE f.account_id = x.id AND f.target_account_id = a.id)`;
const FOLLOWING = `coalesce(c.following, 0) - (SELECT COUNT(*) FROM unlisted x CROSS JOIN follows f WHERE f.account_id = a.id AND f.target_account_id = x.id)`;
const STATS_COLUMNS = 's.statuses_count AS s_statuses, s.last_status_at AS s_last';
/** The counter columns of a statement over `accounts a` (FROM … a) joined with COUNTS_JOIN, and its WITH clause. */
const SUBTRACTED = {
  with: `WITH ${UNLISTED} `,
  columns: `${FOLLOWERS} AS c_followers, ${FOLLOWING} AS c_following, ${STATS_COLUMNS}`,
};
const AS_KEPT = { with: '', columns: `c.followers AS c_followers, c.following AS c_following, ${STATS_COLUMNS}` };
const COUNTS_JOIN = 'LEFT JOIN follow_counts c ON c.account_id = a.id LEFT JOIN account_stats s ON s.account_id = a.id';
const ANY_UNLISTED = `SELECT EXISTS (${UNLISTED_ACCOUNTS}) OR EXISTS (${UNLISTED_USERS})`;

/**
 * The accounts and users rows that make who is unlisted, for a rowMemo: inserting or deleting either, or an update
 * of what unlists, changes every value; `keys` name the values another write of such a row changes.
 */
function unlistedSources(accountKeys: readonly string[], userKeys: readonly string[]) {
  return {
    accounts: {
      keys: accountKeys,
      rowsFeedAll: true as const,
      updateFeedsAll: 'OLD.suspended_at IS NOT NEW.suspended_at OR OLD.deleted_at IS NOT NEW.deleted_at',
    },
    users: {
      keys: userKeys,
      rowsFeedAll: true as const,
      updateFeedsAll:
        'OLD.confirmed_at IS NOT NEW.confirmed_at OR OLD.approved IS NOT NEW.approved OR OLD.account_id IS NOT NEW.account_id',
    },
  };
}

/** Whether any account is unlisted, per store, kept until a write changes who is. */
const anyUnlistedMemos = new WeakMap<StoreCore, StampMemo<boolean>>();

/** The counter columns to read: subtracting follows with unlisted accounts only when there is one. */
function countColumns(core: StoreCore): typeof AS_KEPT {
  let memo = anyUnlistedMemos.get(core);
  if (!memo) anyUnlistedMemos.set(core, (memo = rowMemo(core, 'any_unlisted', 1, unlistedSources([], []))));
  const [any] = memo.getEach(['any'], () => new Map([['any', Boolean(core.sql(ANY_UNLISTED).pluck().get())]]));
  return any ? SUBTRACTED : AS_KEPT;
}

interface CountColumns {
  c_followers: bigint | null;
  c_following: bigint | null;
  s_statuses: bigint | null;
  s_last: bigint | null;
}

function fromColumns(r: CountColumns): AccountCounts {
  return {
    followers: Math.max(0, int(r.c_followers ?? 0n)),
    following: Math.max(0, int(r.c_following ?? 0n)),
    statuses: int(r.s_statuses ?? 0n),
    lastStatusAt: intOrNull(r.s_last),
  };
}

/**
 * Statuses, followers and following of accounts from kept counters (statuses: a remote account's is what its
 * server reported plus what arrived since); a remote account's followers and following are the larger of what
 * we hold and what its server reports.
 */
export function countAccounts(core: StoreCore, accounts: readonly Account[]): Map<string, AccountCounts> {
  const result = new Map<string, AccountCounts>();
  if (accounts.length === 0) return result;
  // One statement text whatever the number of accounts (json_each), so it is prepared once.
  const counted = countColumns(core);
  const rows = core
    .sql(
      `${counted.with}SELECT a.id AS id, ${counted.columns} FROM json_each(?) j CROSS JOIN accounts a ON a.id = j.value ${COUNTS_JOIN}`,
    )
    .all(jsonIds(accounts.map((a) => a.id))) as (CountColumns & { id: bigint })[];
  const byId = new Map(rows.map((r) => [str(r.id), r]));
  for (const a of accounts) {
    const r = byId.get(a.id);
    result.set(a.id, r ? fromColumns(r) : { statuses: 0, followers: 0, following: 0, lastStatusAt: null });
  }
  addRemoteCounts(core, result, accounts);
  return result;
}

/** Account rows of recent pages by id and version (see accountsWithCounts). */
export type AccountRowCache = LRUCache<string, Account>;

/**
 * Accounts by id (in the order asked, missing ones left out) with their counters: a timeline page's authors.
 * One statement reads each account's version (updated_at, which every change of the row moves: migration 22,
 * plus its user's state) and counters; whole rows are read (`byIds`) only for accounts not cached at that version.
 */
export function accountsWithCounts(
  core: StoreCore,
  ids: readonly string[],
  cache: AccountRowCache,
  byIds: (ids: readonly string[]) => Account[],
): { accounts: Account[]; counts: Map<string, AccountCounts> } {
  const counts = new Map<string, AccountCounts>();
  if (ids.length === 0) return { accounts: [], counts };
  const counted = countColumns(core);
  const rows = core
    .sql(
      `${counted.with}SELECT a.id AS id, a.domain AS domain, a.updated_at || '|' || coalesce(u.role, '') || '|' || coalesce(u.confirmed_at, '') || '|' || coalesce(u.approved, '') || '|' || coalesce(u.disabled, '') AS version,
         ${counted.columns} FROM json_each(?) j CROSS JOIN accounts a ON a.id = j.value LEFT JOIN users u ON u.account_id = a.id ${COUNTS_JOIN}`,
    )
    .all(jsonIds(ids)) as (CountColumns & { id: bigint; domain: string | null; version: string })[];
  const byId = new Map<string, Account>();
  const missing: { id: string; key: string }[] = [];
  for (const r of rows) {
    const id = str(r.id);
    const key = `${id}|${r.version}`;
    const cached = cache.get(key);
    if (cached) byId.set(id, cached);
    else missing.push({ id, key });
    counts.set(id, fromColumns(r));
  }
  if (missing.length) {
    const read = new Map(byIds(missing.map((m) => m.id)).map((a) => [a.id, a]));
    for (const { id, key } of missing) {
      const account = read.get(id);
      if (!account) continue;
      // Frozen: one object now serves many requests.
      Object.freeze(account.user);
      cache.set(key, Object.freeze(account));
      byId.set(id, account);
    }
  }
  const accounts = ids.map((id) => byId.get(id)).filter((a): a is Account => a !== undefined);
  addRemoteCounts(core, counts, accounts);
  return { accounts, counts };
}

/**
 * A page's authors with their counters (byIdsWithCounts), kept through writes that leave them alone: a write to
 * an author's accounts, users, follow_counts or account_stats row, or to a follow from or to it, forgets that
 * author; a write that changes which accounts are unlisted (a suspension, a deletion, a confirmation, an approval,
 * an account or user added or removed) forgets every author, since counters subtract follows with those.
 */
export function pageAuthorsMemo(core: StoreCore): StampMemo<{ account: Account; counts: AccountCounts }> {
  return rowMemo(core, 'page_authors', 5_000, {
    ...unlistedSources(['ROW.id'], ['ROW.account_id']),
    follow_counts: { keys: ['ROW.account_id'] },
    account_stats: { keys: ['ROW.account_id'] },
    follows: { keys: ['ROW.account_id', 'ROW.target_account_id'] },
  });
}

/** Remote accounts: we hold only part of their graph, so prefer what their server reports when it is larger. */
function addRemoteCounts(core: StoreCore, result: Map<string, AccountCounts>, accounts: readonly Account[]): void {
  const remote = accounts.filter((a) => a.domain !== null).map((a) => a.id);
  if (remote.length === 0) return;
  for (const r of core
    .sql('SELECT * FROM account_stats WHERE account_id IN (SELECT value FROM json_each(?))')
    .all(jsonIds(remote)) as Record<string, unknown>[]) {
    const c = result.get(str(r.account_id))!;
    c.followers = Math.max(c.followers, int(r.followers_count));
    c.following = Math.max(c.following, int(r.following_count));
  }
}
