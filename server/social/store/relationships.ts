import type { Account } from './account-row.ts';
import { ACCOUNT_COLUMNS, ACCOUNT_LISTED, toAccount } from './account-columns.ts';
import { HIDDEN_FROM_VIEWER, listAccounts, type ListedAccount } from './listed-accounts.ts';
import { readRelationshipFacts } from './relationship-facts.ts';
import {
  toFollow,
  type FollowOptions,
  type FollowRow,
  type MuteRow,
  type RelationshipFacts,
} from './relationship-rows.ts';
import { bool, int, intOrNull, jsonIds, sqlBool, str, type PageQuery, type StoreCore } from './store.ts';

/** Follows, blocks, mutes, notes and endorsements: one account's ties to other accounts. */
export class RelationshipRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  // ---- follows and follow requests

  follow(accountId: string, targetId: string): FollowRow | null {
    const r = this.core
      .sql('SELECT * FROM follows WHERE account_id = ? AND target_account_id = ?')
      .get(accountId, targetId) as Record<string, unknown> | undefined;
    return r ? toFollow(r) : null;
  }

  followRequest(accountId: string, targetId: string): FollowRow | null {
    const r = this.core
      .sql('SELECT * FROM follow_requests WHERE account_id = ? AND target_account_id = ?')
      .get(accountId, targetId) as Record<string, unknown> | undefined;
    return r ? toFollow(r) : null;
  }

  /** Creates the follow or updates its options; returns true when it is new. */
  upsertFollow(accountId: string, targetId: string, options: FollowOptions, uri: string | null = null): boolean {
    return this.upsertFollowIn('follows', this.follow(accountId, targetId), accountId, targetId, options, uri);
  }

  upsertFollowRequest(accountId: string, targetId: string, options: FollowOptions, uri: string | null = null): boolean {
    return this.upsertFollowIn(
      'follow_requests',
      this.followRequest(accountId, targetId),
      accountId,
      targetId,
      options,
      uri,
    );
  }

  /** Follows and follow requests share their columns: updates `existing` or inserts a new row into `table`. */
  private upsertFollowIn(
    table: 'follows' | 'follow_requests',
    existing: FollowRow | null,
    accountId: string,
    targetId: string,
    options: FollowOptions,
    uri: string | null,
  ): boolean {
    const languages = options.languages ? JSON.stringify(options.languages) : null;
    if (existing) {
      this.core
        .sql(`UPDATE ${table} SET show_reblogs = ?, notify = ?, languages = ? WHERE id = ?`)
        .run(sqlBool(options.showReblogs), sqlBool(options.notify), languages, existing.id);
      return false;
    }
    this.core
      .sql(
        `INSERT INTO ${table} (id, account_id, target_account_id, show_reblogs, notify, languages, uri, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        this.core.ids.next(),
        accountId,
        targetId,
        sqlBool(options.showReblogs),
        sqlBool(options.notify),
        languages,
        uri,
        this.core.now(),
      );
    return true;
  }

  /** Which of `targetIds` `accountId` follows. */
  followedAmong(accountId: string, targetIds: readonly string[]): string[] {
    if (targetIds.length === 0) return [];
    return (
      this.core
        .sql(
          'SELECT target_account_id FROM follows WHERE account_id = ? AND target_account_id IN (SELECT value FROM json_each(?))',
        )
        .all(accountId, jsonIds(targetIds)) as { target_account_id: bigint }[]
    ).map((r) => str(r.target_account_id));
  }

  /** Which of `accountIds` follow which of `targetIds`, as `follower>target` pairs. */
  followPairs(accountIds: readonly string[], targetIds: readonly string[]): Set<string> {
    if (accountIds.length === 0 || targetIds.length === 0) return new Set();
    const rows = this.core
      .sql(
        'SELECT account_id, target_account_id FROM follows WHERE target_account_id IN (SELECT value FROM json_each(?)) AND account_id IN (SELECT value FROM json_each(?))',
      )
      .all(jsonIds(targetIds), jsonIds(accountIds)) as { account_id: bigint; target_account_id: bigint }[];
    return new Set(rows.map((r) => `${str(r.account_id)}>${str(r.target_account_id)}`));
  }

  deleteFollow(accountId: string, targetId: string): boolean {
    return (
      this.core.sql('DELETE FROM follows WHERE account_id = ? AND target_account_id = ?').run(accountId, targetId)
        .changes > 0
    );
  }

  deleteFollowRequest(accountId: string, targetId: string): boolean {
    return (
      this.core
        .sql('DELETE FROM follow_requests WHERE account_id = ? AND target_account_id = ?')
        .run(accountId, targetId).changes > 0
    );
  }

  /** Removes follows from accounts of `domain` to `accountId` (after a user domain block). */
  deleteFollowersFromDomain(accountId: string, domain: string): void {
    this.core
      .sql(
        'DELETE FROM follows WHERE target_account_id = ? AND account_id IN (SELECT id FROM accounts WHERE domain = ?)',
      )
      .run(accountId, domain);
    this.core
      .sql(
        'DELETE FROM follows WHERE account_id = ? AND target_account_id IN (SELECT id FROM accounts WHERE domain = ?)',
      )
      .run(accountId, domain);
    this.core
      .sql(
        'DELETE FROM follow_requests WHERE target_account_id = ? AND account_id IN (SELECT id FROM accounts WHERE domain = ?)',
      )
      .run(accountId, domain);
  }

  /** Drops every follow and follow request between two accounts, both ways (a block severs them). */
  severBetween(a: string, b: string): void {
    this.core
      .sql(
        'DELETE FROM follows WHERE (account_id = ? AND target_account_id = ?) OR (account_id = ? AND target_account_id = ?)',
      )
      .run(a, b, b, a);
    this.core
      .sql(
        'DELETE FROM follow_requests WHERE (account_id = ? AND target_account_id = ?) OR (account_id = ? AND target_account_id = ?)',
      )
      .run(a, b, b, a);
  }

  /** Followers of `accountId` as `viewerId` may see them (blocked, blocking and muted accounts left out). */
  followers(accountId: string, viewerId: string | null, page: PageQuery): ListedAccount[] {
    return listAccounts(
      this.core,
      `SELECT f.id AS cursor, ${ACCOUNT_COLUMNS} FROM follows f JOIN accounts a ON a.id = f.account_id LEFT JOIN users u ON u.account_id = a.id
       WHERE f.target_account_id = @account AND ${ACCOUNT_LISTED} AND a.suspended_at IS NULL AND ${HIDDEN_FROM_VIEWER}`,
      { account: accountId, viewer: viewerId, own_list: viewerId === accountId ? 1 : 0 },
      page,
      'f.id',
    );
  }

  following(accountId: string, viewerId: string | null, page: PageQuery): ListedAccount[] {
    return listAccounts(
      this.core,
      `SELECT f.id AS cursor, ${ACCOUNT_COLUMNS} FROM follows f JOIN accounts a ON a.id = f.target_account_id LEFT JOIN users u ON u.account_id = a.id
       WHERE f.account_id = @account AND ${ACCOUNT_LISTED} AND a.suspended_at IS NULL AND ${HIDDEN_FROM_VIEWER}`,
      { account: accountId, viewer: viewerId, own_list: viewerId === accountId ? 1 : 0 },
      page,
      'f.id',
    );
  }

  /** Pending requests to follow `accountId`. */
  incomingFollowRequests(accountId: string, page: PageQuery): ListedAccount[] {
    return listAccounts(
      this.core,
      `SELECT r.id AS cursor, ${ACCOUNT_COLUMNS} FROM follow_requests r JOIN accounts a ON a.id = r.account_id LEFT JOIN users u ON u.account_id = a.id
       WHERE r.target_account_id = @account AND ${ACCOUNT_LISTED} AND a.suspended_at IS NULL`,
      { account: accountId },
      page,
      'r.id',
    );
  }

  incomingFollowRequestCount(accountId: string): number {
    const r = this.core
      .sql(
        `SELECT COUNT(*) AS n FROM follow_requests r JOIN accounts a ON a.id = r.account_id LEFT JOIN users u ON u.account_id = a.id WHERE r.target_account_id = ? AND ${ACCOUNT_LISTED} AND a.suspended_at IS NULL`,
      )
      .get(accountId) as { n: bigint };
    return int(r.n);
  }

  /** Accounts `viewerId` follows that also follow `targetId`. */
  familiarFollowers(viewerId: string, targetId: string, limit: number): Account[] {
    const rows = this.core
      .sql(
        `SELECT ${ACCOUNT_COLUMNS} FROM follows mine JOIN follows theirs ON theirs.account_id = mine.target_account_id
         JOIN accounts a ON a.id = mine.target_account_id LEFT JOIN users u ON u.account_id = a.id
         WHERE mine.account_id = @viewer AND theirs.target_account_id = @target AND a.id != @viewer
           AND ${ACCOUNT_LISTED} AND a.suspended_at IS NULL AND ${HIDDEN_FROM_VIEWER}
         ORDER BY mine.id DESC LIMIT @limit`,
      )
      .all({ viewer: viewerId, target: targetId, own_list: 0, now: this.core.now(), limit }) as Record<
      string,
      unknown
    >[];
    return rows.map(toAccount);
  }

  // ---- blocks

  blocking(accountId: string, targetId: string): boolean {
    return (
      this.core.sql('SELECT 1 FROM blocks WHERE account_id = ? AND target_account_id = ?').get(accountId, targetId) !==
      undefined
    );
  }

  insertBlock(accountId: string, targetId: string): boolean {
    return (
      this.core
        .sql(
          'INSERT INTO blocks (id, account_id, target_account_id, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
        )
        .run(this.core.ids.next(), accountId, targetId, this.core.now()).changes > 0
    );
  }

  deleteBlock(accountId: string, targetId: string): boolean {
    return (
      this.core.sql('DELETE FROM blocks WHERE account_id = ? AND target_account_id = ?').run(accountId, targetId)
        .changes > 0
    );
  }

  blocks(accountId: string, page: PageQuery): ListedAccount[] {
    return listAccounts(
      this.core,
      `SELECT b.id AS cursor, ${ACCOUNT_COLUMNS} FROM blocks b JOIN accounts a ON a.id = b.target_account_id LEFT JOIN users u ON u.account_id = a.id WHERE b.account_id = @account AND a.deleted_at IS NULL`,
      { account: accountId },
      page,
      'b.id',
    );
  }

  // ---- mutes

  /** The active mute, if any (an expired one no longer counts even before the sweeper removes it). */
  mute(accountId: string, targetId: string): MuteRow | null {
    const r = this.core
      .sql(
        'SELECT id, hide_notifications, expires_at FROM mutes WHERE account_id = ? AND target_account_id = ? AND (expires_at IS NULL OR expires_at > ?)',
      )
      .get(accountId, targetId, this.core.now()) as Record<string, unknown> | undefined;
    return r
      ? { id: str(r.id), hideNotifications: bool(r.hide_notifications), expiresAt: intOrNull(r.expires_at) }
      : null;
  }

  upsertMute(accountId: string, targetId: string, hideNotifications: boolean, expiresAt: number | null): void {
    this.core
      .sql(
        `INSERT INTO mutes (id, account_id, target_account_id, hide_notifications, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (account_id, target_account_id) DO UPDATE SET hide_notifications = excluded.hide_notifications, expires_at = excluded.expires_at`,
      )
      .run(this.core.ids.next(), accountId, targetId, sqlBool(hideNotifications), expiresAt, this.core.now());
  }

  deleteMute(accountId: string, targetId: string): boolean {
    return (
      this.core.sql('DELETE FROM mutes WHERE account_id = ? AND target_account_id = ?').run(accountId, targetId)
        .changes > 0
    );
  }

  mutes(accountId: string, page: PageQuery): ListedAccount[] {
    return listAccounts(
      this.core,
      `SELECT m.id AS cursor, m.expires_at AS mute_expires_at, ${ACCOUNT_COLUMNS} FROM mutes m JOIN accounts a ON a.id = m.target_account_id LEFT JOIN users u ON u.account_id = a.id
       WHERE m.account_id = @account AND (m.expires_at IS NULL OR m.expires_at > @now) AND a.deleted_at IS NULL`,
      { account: accountId },
      page,
      'm.id',
    );
  }

  /** Deletes mutes whose duration has run out; returns how many. */
  purgeExpiredMutes(): number {
    return this.core.sql('DELETE FROM mutes WHERE expires_at IS NOT NULL AND expires_at <= ?').run(this.core.now())
      .changes;
  }

  nextMuteExpiry(): number | null {
    const r = this.core.sql('SELECT MIN(expires_at) AS t FROM mutes WHERE expires_at IS NOT NULL').get() as {
      t: bigint | null;
    };
    return intOrNull(r.t);
  }

  // ---- notes and endorsements

  note(accountId: string, targetId: string): string {
    const r = this.core
      .sql('SELECT comment FROM account_notes WHERE account_id = ? AND target_account_id = ?')
      .get(accountId, targetId) as { comment: string } | undefined;
    return r?.comment ?? '';
  }

  setNote(accountId: string, targetId: string, comment: string): void {
    if (comment === '') {
      this.core
        .sql('DELETE FROM account_notes WHERE account_id = ? AND target_account_id = ?')
        .run(accountId, targetId);
      return;
    }
    const now = this.core.now();
    this.core
      .sql(
        `INSERT INTO account_notes (id, account_id, target_account_id, comment, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (account_id, target_account_id) DO UPDATE SET comment = excluded.comment, updated_at = excluded.updated_at`,
      )
      .run(this.core.ids.next(), accountId, targetId, comment, now, now);
  }

  insertEndorsement(accountId: string, targetId: string): void {
    this.core
      .sql(
        'INSERT INTO account_pins (id, account_id, target_account_id, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
      )
      .run(this.core.ids.next(), accountId, targetId, this.core.now());
  }

  deleteEndorsement(accountId: string, targetId: string): void {
    this.core.sql('DELETE FROM account_pins WHERE account_id = ? AND target_account_id = ?').run(accountId, targetId);
  }

  endorsements(accountId: string, viewerId: string | null, page: PageQuery): ListedAccount[] {
    return listAccounts(
      this.core,
      `SELECT p.id AS cursor, ${ACCOUNT_COLUMNS} FROM account_pins p JOIN accounts a ON a.id = p.target_account_id LEFT JOIN users u ON u.account_id = a.id
       WHERE p.account_id = @account AND ${ACCOUNT_LISTED} AND a.suspended_at IS NULL AND ${HIDDEN_FROM_VIEWER}`,
      { account: accountId, viewer: viewerId, own_list: viewerId === accountId ? 1 : 0 },
      page,
      'p.id',
    );
  }

  // ---- relationship facts for many targets at once

  facts(viewerId: string, targetIds: readonly string[]): RelationshipFacts[] {
    return readRelationshipFacts(this.core, viewerId, targetIds);
  }
}
