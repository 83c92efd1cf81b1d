import { bool, jsonOr, str, type StoreCore } from './store.ts';
import type { StatusRow } from '../status-row.ts';
import { toStatus } from './statuses.ts';

/** An account as an export names it: username and domain (null: this server). */
export interface ExportedAccount {
  username: string;
  domain: string | null;
}

/** Everything of one account that Mastodon's CSV exports hold, read in full (exports are not paginated). */
export class ExportQueries {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  following(
    accountId: string,
  ): (ExportedAccount & { showReblogs: boolean; notify: boolean; languages: string[] | null })[] {
    return (
      this.core
        .sql(
          'SELECT a.username, a.domain, f.show_reblogs, f.notify, f.languages FROM follows f JOIN accounts a ON a.id = f.target_account_id WHERE f.account_id = ? AND a.deleted_at IS NULL ORDER BY f.id',
        )
        .all(accountId) as Record<string, unknown>[]
    ).map((r) => ({
      ...account(r),
      showReblogs: bool(r.show_reblogs),
      notify: bool(r.notify),
      languages: jsonOr<string[] | null>(r.languages, null),
    }));
  }

  blocked(accountId: string): ExportedAccount[] {
    return (
      this.core
        .sql(
          'SELECT a.username, a.domain FROM blocks b JOIN accounts a ON a.id = b.target_account_id WHERE b.account_id = ? ORDER BY b.id',
        )
        .all(accountId) as Record<string, unknown>[]
    ).map(account);
  }

  muted(accountId: string): (ExportedAccount & { hideNotifications: boolean })[] {
    return (
      this.core
        .sql(
          'SELECT a.username, a.domain, m.hide_notifications FROM mutes m JOIN accounts a ON a.id = m.target_account_id WHERE m.account_id = ? ORDER BY m.id',
        )
        .all(accountId) as Record<string, unknown>[]
    ).map((r) => ({ ...account(r), hideNotifications: bool(r.hide_notifications) }));
  }

  blockedDomains(accountId: string): string[] {
    return this.core
      .sql('SELECT domain FROM account_domain_blocks WHERE account_id = ? ORDER BY domain')
      .pluck()
      .all(accountId) as string[];
  }

  /** Bookmarked statuses: their ActivityPub id (null uri: a local status, named by its author and id). */
  bookmarks(accountId: string): { statusId: string; uri: string | null; username: string }[] {
    return (
      this.core
        .sql(
          'SELECT s.id, s.uri, a.username FROM bookmarks b JOIN statuses s ON s.id = b.status_id JOIN accounts a ON a.id = s.account_id WHERE b.account_id = ? AND s.deleted_at IS NULL ORDER BY b.id',
        )
        .all(accountId) as Record<string, unknown>[]
    ).map((r) => ({ statusId: str(r.id), uri: (r.uri as string | null) ?? null, username: String(r.username) }));
  }

  /**
   * One page of what the account archive holds, in id order after `afterId` ('0' for the first page), so the
   * archive streams in bounded pages however much there is: the account's statuses (reblogs too) and the
   * statuses it liked or bookmarked (as Mastodon's archive lists them, deleted ones left out).
   */
  archivePage(
    what: 'statuses' | 'likes' | 'bookmarks',
    accountId: string,
    afterId: string,
    limit: number,
  ): { cursor: string; status: StatusRow }[] {
    const sql = {
      statuses:
        'SELECT s.id AS cursor, s.* FROM statuses s WHERE s.account_id = ? AND s.deleted_at IS NULL AND s.id > ? ORDER BY s.id LIMIT ?',
      likes:
        'SELECT f.id AS cursor, s.* FROM favourites f JOIN statuses s ON s.id = f.status_id WHERE f.account_id = ? AND s.deleted_at IS NULL AND f.id > ? ORDER BY f.id LIMIT ?',
      bookmarks:
        'SELECT b.id AS cursor, s.* FROM bookmarks b JOIN statuses s ON s.id = b.status_id WHERE b.account_id = ? AND s.deleted_at IS NULL AND b.id > ? ORDER BY b.id LIMIT ?',
    }[what];
    return (this.core.sql(sql).all(accountId, afterId, limit) as Record<string, unknown>[]).map((r) => ({
      cursor: str(r.cursor),
      status: toStatus(r),
    }));
  }

  /** Every (list title, member) pair of the account's lists. */
  listMembers(accountId: string): (ExportedAccount & { title: string })[] {
    return (
      this.core
        .sql(
          'SELECT l.title, a.username, a.domain FROM lists l JOIN list_accounts la ON la.list_id = l.id JOIN accounts a ON a.id = la.account_id WHERE l.account_id = ? ORDER BY l.id, la.id',
        )
        .all(accountId) as Record<string, unknown>[]
    ).map((r) => ({ ...account(r), title: String(r.title) }));
  }
}

function account(r: Record<string, unknown>): ExportedAccount {
  return { username: String(r.username), domain: (r.domain as string | null) ?? null };
}
