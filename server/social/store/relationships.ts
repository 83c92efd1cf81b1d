import type { Account } from './account-row.ts';
import { ACCOUNT_COLUMNS, ACCOUNT_LISTED, toAccount } from './accounts.ts';
import {
  bool,
  cursorWhere,
  finishPage,
  int,
  intOrNull,
  jsonIds,
  jsonOr,
  placeholders,
  sqlBool,
  str,
  type PageQuery,
  type StoreCore,
} from './store.ts';

export interface FollowOptions {
  showReblogs: boolean;
  notify: boolean;
  languages: string[] | null;
}

export interface FollowRow extends FollowOptions {
  id: string;
  accountId: string;
  targetAccountId: string;
  uri: string | null;
  createdAt: number;
}

export interface MuteRow {
  id: string;
  hideNotifications: boolean;
  expiresAt: number | null;
}

/** One row of a paginated account listing: the cursor is the id of the join row (follow, block, mute…). */
export interface ListedAccount {
  cursor: string;
  account: Account;
  muteExpiresAt?: number | null;
}

/** Everything the Relationship entity needs about (viewer, target), read in a few batched queries. */
export interface RelationshipFacts {
  id: string;
  follow: FollowOptions | null;
  followRequest: FollowOptions | null;
  followedBy: boolean;
  requestedBy: boolean;
  blocking: boolean;
  blockedBy: boolean;
  mute: MuteRow | null;
  domainBlocking: boolean;
  endorsed: boolean;
  note: string;
}

function toFollow(r: Record<string, unknown>): FollowRow {
  return {
    id: str(r.id),
    accountId: str(r.account_id),
    targetAccountId: str(r.target_account_id),
    showReblogs: bool(r.show_reblogs),
    notify: bool(r.notify),
    languages: jsonOr<string[] | null>(r.languages, null),
    uri: (r.uri as string | null) ?? null,
    createdAt: int(r.created_at),
  };
}

/**
 * Conditions that hide account `a` from `@viewer` in lists: blocks either way, the viewer's mutes (unless
 * @own_list) and the viewer's domain blocks. Without a viewer (@viewer NULL) nothing is hidden.
 */
const HIDDEN_FROM_VIEWER = `
  (@viewer IS NULL OR (
    NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.account_id = @viewer AND b.target_account_id = a.id) OR (b.account_id = a.id AND b.target_account_id = @viewer))
    AND (@own_list = 1 OR NOT EXISTS (SELECT 1 FROM mutes m WHERE m.account_id = @viewer AND m.target_account_id = a.id AND (m.expires_at IS NULL OR m.expires_at > @now)))
    AND (a.domain IS NULL OR NOT EXISTS (SELECT 1 FROM account_domain_blocks d WHERE d.account_id = @viewer AND d.domain = a.domain))
  ))`;

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
    const existing = this.follow(accountId, targetId);
    if (existing) {
      this.core
        .sql('UPDATE follows SET show_reblogs = ?, notify = ?, languages = ? WHERE id = ?')
        .run(
          sqlBool(options.showReblogs),
          sqlBool(options.notify),
          options.languages ? JSON.stringify(options.languages) : null,
          existing.id,
        );
      return false;
    }
    this.core
      .sql(
        'INSERT INTO follows (id, account_id, target_account_id, show_reblogs, notify, languages, uri, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        this.core.ids.next(),
        accountId,
        targetId,
        sqlBool(options.showReblogs),
        sqlBool(options.notify),
        options.languages ? JSON.stringify(options.languages) : null,
        uri,
        this.core.now(),
      );
    return true;
  }

  upsertFollowRequest(accountId: string, targetId: string, options: FollowOptions, uri: string | null = null): boolean {
    const existing = this.followRequest(accountId, targetId);
    if (existing) {
      this.core
        .sql('UPDATE follow_requests SET show_reblogs = ?, notify = ?, languages = ? WHERE id = ?')
        .run(
          sqlBool(options.showReblogs),
          sqlBool(options.notify),
          options.languages ? JSON.stringify(options.languages) : null,
          existing.id,
        );
      return false;
    }
    this.core
      .sql(
        'INSERT INTO follow_requests (id, account_id, target_account_id, show_reblogs, notify, languages, uri, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        this.core.ids.next(),
        accountId,
        targetId,
        sqlBool(options.showReblogs),
        sqlBool(options.notify),
        options.languages ? JSON.stringify(options.languages) : null,
        uri,
        this.core.now(),
      );
    return true;
  }

  /** Which of `targetIds` `accountId` follows. */
  /** Who on this server follows `targetId`, with their follow options (an account move carries them over). */
  localFollowsOf(targetId: string): FollowRow[] {
    return (
      this.core
        .sql(
          'SELECT f.* FROM follows f JOIN accounts a ON a.id = f.account_id WHERE f.target_account_id = ? AND a.domain IS NULL',
        )
        .all(targetId) as Record<string, unknown>[]
    ).map(toFollow);
  }

  /** Local accounts blocking or muting `targetId` (an account move carries blocks and mutes over). */
  localBlockersAndMuters(targetId: string): { blockers: string[]; muters: { accountId: string; mute: MuteRow }[] } {
    const blockers = (
      this.core
        .sql(
          'SELECT b.account_id FROM blocks b JOIN accounts a ON a.id = b.account_id WHERE b.target_account_id = ? AND a.domain IS NULL',
        )
        .pluck()
        .all(targetId) as unknown[]
    ).map(str);
    const muters = (
      this.core
        .sql(
          'SELECT m.account_id FROM mutes m JOIN accounts a ON a.id = m.account_id WHERE m.target_account_id = ? AND a.domain IS NULL',
        )
        .pluck()
        .all(targetId) as unknown[]
    ).flatMap((id) => {
      const mute = this.mute(str(id), targetId);
      return mute ? [{ accountId: str(id), mute }] : [];
    });
    return { blockers, muters };
  }

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

  private listAccounts(
    sql: string,
    params: Record<string, unknown>,
    page: PageQuery,
    cursorColumn: string,
  ): ListedAccount[] {
    const c = cursorWhere(cursorColumn, page);
    const rows = this.core.db
      .prepare(`${sql} AND ${c.where} ORDER BY ${cursorColumn} ${c.order} LIMIT @cursor_limit`)
      .all({ now: this.core.now(), ...params, ...c.params }) as Record<string, unknown>[];
    return finishPage(
      rows.map((r) => ({
        cursor: str(r.cursor),
        account: toAccount(r),
        muteExpiresAt: r.mute_expires_at === undefined ? undefined : intOrNull(r.mute_expires_at),
      })),
      page,
    );
  }

  /** Followers of `accountId` as `viewerId` may see them (blocked, blocking and muted accounts left out). */
  followers(accountId: string, viewerId: string | null, page: PageQuery): ListedAccount[] {
    return this.listAccounts(
      `SELECT f.id AS cursor, ${ACCOUNT_COLUMNS} FROM follows f JOIN accounts a ON a.id = f.account_id LEFT JOIN users u ON u.account_id = a.id
       WHERE f.target_account_id = @account AND ${ACCOUNT_LISTED} AND a.suspended_at IS NULL AND ${HIDDEN_FROM_VIEWER}`,
      { account: accountId, viewer: viewerId, own_list: viewerId === accountId ? 1 : 0 },
      page,
      'f.id',
    );
  }

  following(accountId: string, viewerId: string | null, page: PageQuery): ListedAccount[] {
    return this.listAccounts(
      `SELECT f.id AS cursor, ${ACCOUNT_COLUMNS} FROM follows f JOIN accounts a ON a.id = f.target_account_id LEFT JOIN users u ON u.account_id = a.id
       WHERE f.account_id = @account AND ${ACCOUNT_LISTED} AND a.suspended_at IS NULL AND ${HIDDEN_FROM_VIEWER}`,
      { account: accountId, viewer: viewerId, own_list: viewerId === accountId ? 1 : 0 },
      page,
      'f.id',
    );
  }

  /** Pending requests to follow `accountId`. */
  incomingFollowRequests(accountId: string, page: PageQuery): ListedAccount[] {
    return this.listAccounts(
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
    const rows = this.core.db
      .prepare(
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
    return this.listAccounts(
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
    return this.listAccounts(
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

  /** Every private note about `targetId` (an account move copies them to the new account). */
  notesAbout(targetId: string): { accountId: string; comment: string }[] {
    return (
      this.core.sql('SELECT account_id, comment FROM account_notes WHERE target_account_id = ?').all(targetId) as {
        account_id: unknown;
        comment: string;
      }[]
    ).map((r) => ({
      accountId: str(r.account_id),
      comment: r.comment,
    }));
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
    return this.listAccounts(
      `SELECT p.id AS cursor, ${ACCOUNT_COLUMNS} FROM account_pins p JOIN accounts a ON a.id = p.target_account_id LEFT JOIN users u ON u.account_id = a.id
       WHERE p.account_id = @account AND ${ACCOUNT_LISTED} AND a.suspended_at IS NULL AND ${HIDDEN_FROM_VIEWER}`,
      { account: accountId, viewer: viewerId, own_list: viewerId === accountId ? 1 : 0 },
      page,
      'p.id',
    );
  }

  // ---- the user's own domain blocks

  domainBlocked(accountId: string, domain: string): boolean {
    return (
      this.core
        .sql('SELECT 1 FROM account_domain_blocks WHERE account_id = ? AND domain = ?')
        .get(accountId, domain) !== undefined
    );
  }

  insertDomainBlock(accountId: string, domain: string): void {
    this.core
      .sql(
        'INSERT INTO account_domain_blocks (id, account_id, domain, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
      )
      .run(this.core.ids.next(), accountId, domain, this.core.now());
  }

  deleteDomainBlock(accountId: string, domain: string): void {
    this.core.sql('DELETE FROM account_domain_blocks WHERE account_id = ? AND domain = ?').run(accountId, domain);
  }

  domainBlocks(accountId: string, page: PageQuery): { cursor: string; domain: string }[] {
    const c = cursorWhere('id', page);
    const rows = this.core.db
      .prepare(
        `SELECT id, domain FROM account_domain_blocks WHERE account_id = @account AND ${c.where} ORDER BY id ${c.order} LIMIT @cursor_limit`,
      )
      .all({ account: accountId, ...c.params }) as { id: bigint; domain: string }[];
    return finishPage(
      rows.map((r) => ({ cursor: str(r.id), domain: r.domain })),
      page,
    );
  }

  // ---- relationship facts for many targets at once

  facts(viewerId: string, targetIds: readonly string[]): RelationshipFacts[] {
    if (targetIds.length === 0) return [];
    const list = placeholders(targetIds.length);
    const db = this.core.db;
    const now = this.core.now();
    const opts = (r: Record<string, unknown>): FollowOptions => ({
      showReblogs: bool(r.show_reblogs),
      notify: bool(r.notify),
      languages: jsonOr<string[] | null>(r.languages, null),
    });
    const byTarget = <T>(rows: Record<string, unknown>[], key: string, value: (r: Record<string, unknown>) => T) =>
      new Map(rows.map((r) => [str(r[key]), value(r)]));
    const follows = byTarget(
      db
        .prepare(`SELECT * FROM follows WHERE account_id = ? AND target_account_id IN (${list})`)
        .all(viewerId, ...targetIds) as Record<string, unknown>[],
      'target_account_id',
      opts,
    );
    const requests = byTarget(
      db
        .prepare(`SELECT * FROM follow_requests WHERE account_id = ? AND target_account_id IN (${list})`)
        .all(viewerId, ...targetIds) as Record<string, unknown>[],
      'target_account_id',
      opts,
    );
    const followedBy = new Set(
      (
        db
          .prepare(`SELECT account_id FROM follows WHERE target_account_id = ? AND account_id IN (${list})`)
          .all(viewerId, ...targetIds) as { account_id: bigint }[]
      ).map((r) => str(r.account_id)),
    );
    const requestedBy = new Set(
      (
        db
          .prepare(`SELECT account_id FROM follow_requests WHERE target_account_id = ? AND account_id IN (${list})`)
          .all(viewerId, ...targetIds) as { account_id: bigint }[]
      ).map((r) => str(r.account_id)),
    );
    const blocking = new Set(
      (
        db
          .prepare(`SELECT target_account_id FROM blocks WHERE account_id = ? AND target_account_id IN (${list})`)
          .all(viewerId, ...targetIds) as { target_account_id: bigint }[]
      ).map((r) => str(r.target_account_id)),
    );
    const blockedBy = new Set(
      (
        db
          .prepare(`SELECT account_id FROM blocks WHERE target_account_id = ? AND account_id IN (${list})`)
          .all(viewerId, ...targetIds) as { account_id: bigint }[]
      ).map((r) => str(r.account_id)),
    );
    const mutes = byTarget(
      db
        .prepare(
          `SELECT * FROM mutes WHERE account_id = ? AND target_account_id IN (${list}) AND (expires_at IS NULL OR expires_at > ?)`,
        )
        .all(viewerId, ...targetIds, now) as Record<string, unknown>[],
      'target_account_id',
      (r): MuteRow => ({
        id: str(r.id),
        hideNotifications: bool(r.hide_notifications),
        expiresAt: intOrNull(r.expires_at),
      }),
    );
    const domainBlocked = new Set(
      (
        db
          .prepare(
            `SELECT a.id FROM accounts a JOIN account_domain_blocks d ON d.domain = a.domain AND d.account_id = ? WHERE a.id IN (${list})`,
          )
          .all(viewerId, ...targetIds) as { id: bigint }[]
      ).map((r) => str(r.id)),
    );
    const endorsed = new Set(
      (
        db
          .prepare(`SELECT target_account_id FROM account_pins WHERE account_id = ? AND target_account_id IN (${list})`)
          .all(viewerId, ...targetIds) as { target_account_id: bigint }[]
      ).map((r) => str(r.target_account_id)),
    );
    const notes = byTarget(
      db
        .prepare(
          `SELECT target_account_id, comment FROM account_notes WHERE account_id = ? AND target_account_id IN (${list})`,
        )
        .all(viewerId, ...targetIds) as Record<string, unknown>[],
      'target_account_id',
      (r) => r.comment as string,
    );
    return targetIds.map((id) => ({
      id,
      follow: follows.get(id) ?? null,
      followRequest: requests.get(id) ?? null,
      followedBy: followedBy.has(id),
      requestedBy: requestedBy.has(id),
      blocking: blocking.has(id),
      blockedBy: blockedBy.has(id),
      mute: mutes.get(id) ?? null,
      domainBlocking: domainBlocked.has(id),
      endorsed: endorsed.has(id),
      note: notes.get(id) ?? '',
    }));
  }
}
