import { LRUCache } from 'lru-cache';
import { accountsWithCounts, countAccounts, pageAuthorsMemo, type AccountRowCache } from './account-counts.ts';
import type { Account, AccountCounts, ProfileField } from './account-row.ts';
import { ACCOUNT_COLUMNS, ACCOUNT_FROM, ACCOUNT_LISTED, ACCOUNT_ROW, toAccount } from './account-columns.ts';
import type { StampMemo } from './stamp-memo.ts';
import { int, jsonIds, sqlBool, sqlBoolOrNull, str, type SqlValue, type StoreCore } from './store.ts';

/** The users columns `toAccount` reads (prefixed u_), beside the account's id. */
const USER_COLUMNS =
  'account_id, id AS u_id, confirmed_at AS u_confirmed_at, approved AS u_approved, disabled AS u_disabled, role AS u_role';

export interface NewLocalAccount {
  username: string;
  displayName?: string;
  publicKey: string;
  privateKey: string;
  discoverable?: boolean | null;
}

/** A remote actor as federation stores it. */
export interface NewRemoteAccount {
  username: string;
  domain: string;
  uri: string;
  url?: string | null;
  actorType?: string;
  displayName?: string;
  /** HTML, sanitized by the caller */
  note?: string;
  locked?: boolean;
  inboxUrl?: string | null;
  sharedInboxUrl?: string | null;
  followersUrl?: string | null;
  publicKey: string;
  avatarRemoteUrl?: string | null;
  headerRemoteUrl?: string | null;
}

/** Profile attributes an owner may change; undefined leaves a value alone. */
export interface ProfileChanges {
  displayName?: string;
  note?: string;
  fields?: ProfileField[];
  avatarFile?: string | null;
  avatarDescription?: string;
  headerFile?: string | null;
  headerDescription?: string;
  locked?: boolean;
  actorType?: string;
  discoverable?: boolean | null;
  indexable?: boolean;
  hideCollections?: boolean | null;
  attributionDomains?: string[];
}

export class AccountRepository {
  private readonly core: StoreCore;
  /** Rows of the accounts recent pages showed, by version (byIdsWithCounts); frozen, shared between requests. */
  private readonly pageRows: AccountRowCache = new LRUCache<string, Account>({ max: 5_000 });
  /** A page's authors with their counters until a write changes them (pageAuthorsMemo). */
  private readonly pageAuthors: StampMemo<{ account: Account; counts: AccountCounts }>;
  constructor(core: StoreCore) {
    this.core = core;
    this.pageAuthors = pageAuthorsMemo(core);
  }

  /** The account's key pair (PEM); the private key only for local accounts. */
  keyPair(id: string): { publicKey: string; privateKey: string | null } | null {
    const r = this.core.sql('SELECT public_key, private_key FROM accounts WHERE id = ?').get(id) as
      | { public_key: string; private_key: string | null }
      | undefined;
    return r ? { publicKey: r.public_key, privateKey: r.private_key } : null;
  }

  /*
   * By-id reads query accounts and users separately: any join in these statements (even one SQLite
   * eliminates) made each read several times slower, and they run for every request and status.
   */
  private withUsers(rows: Record<string, unknown>[]): Account[] {
    const local = rows.filter((r) => r.domain === null).map((r) => str(r.id));
    const users = new Map<string, Record<string, unknown>>();
    if (local.length) {
      // One account (a token's, a notification's recipient) by key: half the time of the json_each form.
      const rows =
        local.length === 1
          ? this.core.sql(`SELECT ${USER_COLUMNS} FROM users WHERE account_id = ?`).all(local[0])
          : this.core
              .sql(`SELECT ${USER_COLUMNS} FROM users WHERE account_id IN (SELECT value FROM json_each(?))`)
              .all(jsonIds(local));
      for (const u of rows as Record<string, unknown>[]) users.set(str(u.account_id), u);
    }
    return rows.map((r) => toAccount({ ...r, ...(users.get(str(r.id)) ?? { u_id: null }) }));
  }

  byId(id: string): Account | null {
    const r = this.core.sql(`SELECT ${ACCOUNT_ROW} FROM accounts a WHERE a.id = ?`).get(id) as
      | Record<string, unknown>
      | undefined;
    return r ? this.withUsers([r])[0] : null;
  }

  byIds(ids: readonly string[]): Account[] {
    if (ids.length === 0) return [];
    const rows = this.core
      .sql(`SELECT ${ACCOUNT_ROW} FROM accounts a WHERE a.id IN (SELECT value FROM json_each(?))`)
      .all(jsonIds(ids)) as Record<string, unknown>[];
    const byId = new Map(this.withUsers(rows).map((a) => [a.id, a]));
    return ids.map((id) => byId.get(id)).filter((a): a is Account => a !== undefined);
  }

  /**
   * Local account by username (case-insensitive), or remote by username and domain. A remote account deleted
   * on its server is not found (Mastodon destroys its record): what comes from it is from an unknown actor.
   */
  byHandle(username: string, domain: string | null): Account | null {
    const r = this.core
      .sql(
        `SELECT ${ACCOUNT_COLUMNS} FROM ${ACCOUNT_FROM} WHERE lower(a.username) = lower(?) AND coalesce(a.domain, '') = coalesce(lower(?), '')
           AND (a.domain IS NULL OR a.deleted_at IS NULL)`,
      )
      .get(username, domain) as Record<string, unknown> | undefined;
    return r ? toAccount(r) : null;
  }

  /** A remote account by actor id; not one deleted on its server (as byHandle). */
  byUri(uri: string): Account | null {
    const r = this.core
      .sql(`SELECT ${ACCOUNT_COLUMNS} FROM ${ACCOUNT_FROM} WHERE a.uri = ? AND a.deleted_at IS NULL`)
      .get(uri) as Record<string, unknown> | undefined;
    return r ? toAccount(r) : null;
  }

  usernameTaken(username: string): boolean {
    return (
      this.core.sql('SELECT 1 FROM accounts WHERE lower(username) = lower(?) AND domain IS NULL').get(username) !==
      undefined
    );
  }

  insertLocal(input: NewLocalAccount): string {
    const id = this.core.ids.next();
    const now = this.core.now();
    this.core
      .sql(
        `INSERT INTO accounts (id, username, domain, display_name, public_key, private_key, discoverable, created_at, updated_at)
         VALUES (?, ?, NULL, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        input.username,
        input.displayName ?? '',
        input.publicKey,
        input.privateKey,
        sqlBoolOrNull(input.discoverable),
        now,
        now,
      );
    return id;
  }

  insertRemote(input: NewRemoteAccount): string {
    const id = this.core.ids.next();
    const now = this.core.now();
    this.core
      .sql(
        `INSERT INTO accounts (id, username, domain, uri, url, actor_type, display_name, note, locked, inbox_url, shared_inbox_url, followers_url,
           public_key, avatar_remote_url, header_remote_url, fetched_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        input.username,
        input.domain.toLowerCase(),
        input.uri,
        input.url ?? null,
        input.actorType ?? 'Person',
        input.displayName ?? '',
        input.note ?? '',
        sqlBool(input.locked ?? false),
        input.inboxUrl ?? null,
        input.sharedInboxUrl ?? null,
        input.followersUrl ?? null,
        input.publicKey,
        input.avatarRemoteUrl ?? null,
        input.headerRemoteUrl ?? null,
        now,
        now,
        now,
      );
    return id;
  }

  updateProfile(id: string, changes: ProfileChanges): void {
    const sets: string[] = [];
    const params: Record<string, SqlValue> = { id, updated_at: this.core.now() };
    const put = (column: string, value: SqlValue) => {
      sets.push(`${column} = @${column}`);
      params[column] = value;
    };
    if (changes.displayName !== undefined) put('display_name', changes.displayName);
    if (changes.note !== undefined) put('note', changes.note);
    if (changes.fields !== undefined) put('fields', JSON.stringify(changes.fields));
    if (changes.avatarFile !== undefined) put('avatar_file', changes.avatarFile);
    if (changes.avatarDescription !== undefined) put('avatar_description', changes.avatarDescription);
    if (changes.headerFile !== undefined) put('header_file', changes.headerFile);
    if (changes.headerDescription !== undefined) put('header_description', changes.headerDescription);
    if (changes.locked !== undefined) put('locked', sqlBool(changes.locked));
    if (changes.actorType !== undefined) put('actor_type', changes.actorType);
    if (changes.discoverable !== undefined) put('discoverable', sqlBoolOrNull(changes.discoverable));
    if (changes.indexable !== undefined) put('indexable', sqlBool(changes.indexable));
    if (changes.hideCollections !== undefined) put('hide_collections', sqlBoolOrNull(changes.hideCollections));
    if (changes.attributionDomains !== undefined)
      put('attribution_domains', JSON.stringify(changes.attributionDomains));
    if (sets.length === 0) return;
    this.core
      .prepareOnce(`UPDATE accounts SET ${sets.join(', ')}, updated_at = @updated_at WHERE id = @id`)
      .run(params);
  }

  /** The actor URIs this account also goes by (a local account: accounts it may move from). */
  setAliases(id: string, uris: readonly string[]): void {
    this.core
      .sql('UPDATE accounts SET also_known_as = ?, updated_at = ? WHERE id = ?')
      .run(JSON.stringify(uris), this.core.now(), id);
  }

  /** The account this one moved to (null: not moved, or the move was undone). */
  setMovedTo(id: string, targetId: string | null): void {
    this.core
      .sql('UPDATE accounts SET moved_to_account_id = ?, updated_at = ? WHERE id = ?')
      .run(targetId, this.core.now(), id);
  }

  setSuspended(id: string, suspended: boolean): void {
    this.core
      .sql('UPDATE accounts SET suspended_at = ?, updated_at = ? WHERE id = ?')
      .run(suspended ? this.core.now() : null, this.core.now(), id);
  }

  setSilenced(id: string, silenced: boolean): void {
    this.core
      .sql('UPDATE accounts SET silenced_at = ?, updated_at = ? WHERE id = ?')
      .run(silenced ? this.core.now() : null, this.core.now(), id);
  }

  setSensitized(id: string, sensitized: boolean): void {
    this.core
      .sql('UPDATE accounts SET sensitized_at = ?, updated_at = ? WHERE id = ?')
      .run(sensitized ? this.core.now() : null, this.core.now(), id);
  }

  /**
   * Deleting keeps the row (the name stays taken, remote servers may still refer to it) but wipes the profile.
   * A local account keeps its private key until federation has signed and queued its Delete (see
   * `wipePrivateKey`): other servers accept a deletion only when it is signed.
   */
  markDeleted(id: string, options: { keepPrivateKey?: boolean } = {}): void {
    const now = this.core.now();
    this.core
      .sql(
        `UPDATE accounts SET deleted_at = ?, suspended_at = coalesce(suspended_at, ?), display_name = '', note = '', fields = '[]',
           avatar_file = NULL, header_file = NULL, avatar_description = '', header_description = '',
           private_key = CASE WHEN ? THEN private_key ELSE NULL END, updated_at = ?
         WHERE id = ?`,
      )
      .run(now, now, options.keepPrivateKey ? 1 : 0, now, id);
  }

  wipePrivateKey(id: string): void {
    this.core.sql('UPDATE accounts SET private_key = NULL WHERE id = ?').run(id);
  }

  /** Deleted local accounts whose Delete has not been sent yet (they still hold their private key). */
  deletedAwaitingAnnouncement(): string[] {
    return (
      this.core
        .sql('SELECT id FROM accounts WHERE domain IS NULL AND deleted_at IS NOT NULL AND private_key IS NOT NULL')
        .pluck()
        .all() as unknown[]
    ).map(str);
  }

  /** Statuses, followers and following of many accounts at once (local ones counted, remote ones as reported). */
  counts(accounts: readonly Account[]): Map<string, AccountCounts> {
    return countAccounts(this.core, accounts);
  }

  /** `byIds` and `counts` in one statement (a page's authors). */
  byIdsWithCounts(ids: readonly string[]): { accounts: Account[]; counts: Map<string, AccountCounts> } {
    const found = this.pageAuthors.getEach(ids, (missing) => {
      const read = accountsWithCounts(this.core, missing, this.pageRows, (rows) => this.byIds(rows));
      // Frozen: shared by every request until the next write.
      return new Map(
        read.accounts.map((account) => [account.id, { account, counts: Object.freeze(read.counts.get(account.id)!) }]),
      );
    });
    const accounts: Account[] = [];
    const counts = new Map<string, AccountCounts>();
    ids.forEach((id, i) => {
      const hit = found[i];
      if (!hit) return;
      accounts.push(hit.account);
      counts.set(id, hit.counts);
    });
    return { accounts, counts };
  }

  /** Case-insensitive search over username and display name of listed, unsuspended accounts. */
  search(q: string, options: { limit: number; offset: number; followingOf?: string; localOnly?: boolean }): Account[] {
    const like = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const prefix = `${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const rows = this.core
      .sql(
        `SELECT ${ACCOUNT_COLUMNS} FROM ${ACCOUNT_FROM}
         WHERE ${ACCOUNT_LISTED} AND a.suspended_at IS NULL
           AND (a.username LIKE @like ESCAPE '\\' OR a.display_name LIKE @like ESCAPE '\\' OR (a.username || '@' || coalesce(a.domain, '')) LIKE @like ESCAPE '\\')
           AND (@following IS NULL OR EXISTS (SELECT 1 FROM follows f WHERE f.account_id = @following AND f.target_account_id = a.id))
           AND (@local_only = 0 OR a.domain IS NULL)
         ORDER BY (lower(a.username) = lower(@q)) DESC, (a.username LIKE @prefix ESCAPE '\\') DESC, (a.domain IS NULL) DESC, a.id
         LIMIT @limit OFFSET @offset`,
      )
      .all({
        like,
        prefix,
        q,
        following: options.followingOf ?? null,
        local_only: options.localOnly ? 1 : 0,
        limit: options.limit,
        offset: options.offset,
      }) as Record<string, unknown>[];
    return rows.map(toAccount);
  }

  /**
   * The profile directory: accounts that chose to be discoverable, listed, not suspended, moved or memorial;
   * `active` orders by latest post, `new` by creation.
   */
  directory(options: { order: 'active' | 'new'; localOnly: boolean; limit: number; offset: number }): Account[] {
    const order =
      options.order === 'new' ? 'a.created_at DESC, a.id DESC' : 's.last_status_at DESC NULLS LAST, a.id DESC';
    const rows = this.core
      .sql(
        `SELECT ${ACCOUNT_COLUMNS} FROM ${ACCOUNT_FROM} LEFT JOIN account_stats s ON s.account_id = a.id
         WHERE ${ACCOUNT_LISTED} AND a.suspended_at IS NULL AND a.discoverable = 1 AND a.memorial = 0 AND a.moved_to_account_id IS NULL
           AND (@local = 0 OR a.domain IS NULL)
         ORDER BY ${order} LIMIT @limit OFFSET @offset`,
      )
      .all({ local: options.localOnly ? 1 : 0, limit: options.limit, offset: options.offset }) as Record<
      string,
      unknown
    >[];
    return rows.map(toAccount);
  }

  /** Number of local users that are confirmed, approved and not suspended. */
  localUserCount(): number {
    const r = this.core
      .sql(
        `SELECT COUNT(*) AS n FROM ${ACCOUNT_FROM} WHERE a.domain IS NULL AND ${ACCOUNT_LISTED} AND a.suspended_at IS NULL`,
      )
      .get() as { n: bigint };
    return int(r.n);
  }

  localStatusCount(): number {
    const r = this.core
      .sql(`SELECT COUNT(*) AS n FROM statuses WHERE local = 1 AND deleted_at IS NULL AND reblog_of_id IS NULL`)
      .get() as { n: bigint };
    return int(r.n);
  }

  /** Known servers whose name starts with `prefix` (lower case), alphabetically, at most `limit`. */
  domainsStartingWith(prefix: string, limit: number): string[] {
    const escaped = prefix.replace(/[\\%_]/g, (c) => `\\${c}`);
    return (
      this.core
        .sql(
          "SELECT DISTINCT domain FROM accounts WHERE domain IS NOT NULL AND domain LIKE ? ESCAPE '\\' ORDER BY domain LIMIT ?",
        )
        .all(`${escaped}%`, limit) as { domain: string }[]
    ).map((r) => r.domain);
  }

  knownDomains(): string[] {
    return (
      this.core.sql('SELECT DISTINCT domain FROM accounts WHERE domain IS NOT NULL ORDER BY domain').all() as {
        domain: string;
      }[]
    ).map((r) => r.domain);
  }
}
