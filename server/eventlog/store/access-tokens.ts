/**
 * Event-log access tokens: bearer credentials Homeport issues for its own event-log users, for clients that send
 * `authorization: Bearer …` (the KurrentDB clients' `{ bearerToken }`). KurrentDB checks bearer tokens with an
 * outside OAuth issuer; Homeport has none, so it is the issuer. A token is 256 random bits shown once; the table
 * keeps its SHA-256 only (a 256-bit random secret needs no slow hash: nothing to guess from the digest).
 *
 * A token acts as its user, read at every use: the user's current groups apply, a disabled or removed user's tokens
 * stop at once, and a user removed and created again under the same name does not inherit the old tokens (rows
 * carry the user's creation time). A password change leaves tokens alone, as revoking them is its own act (GitHub,
 * GitLab and KurrentDB's OAuth tokens all work the same way).
 */
import crypto from 'node:crypto';
import { preparingUnseen } from '../../db/index.ts';
import type { SqliteEventStore } from './sqlite-store.ts';
import type { Principal } from './types.ts';
import { EventLogUserError } from './users.ts';

/** Open tokens per user: more are refused until one is revoked. */
export const MAX_TOKENS_PER_USER = 100;
/** The longest label of a token, in characters. */
const MAX_TOKEN_NAME = 200;
/** Every token starts with this, so it is recognisable in a config file or a leak scanner. */
const TOKEN_PREFIX = 'hpel_';

export interface AccessTokenInfo {
  id: string;
  user: string;
  /** A label the owner chose (what the token is for). */
  name: string;
  createdAt: number;
  /** Unix ms after which the token no longer works; null: until revoked. */
  expiresAt: number | null;
}

export interface EventLogTokens {
  /** Issues a token for `user`; the secret is returned here only. */
  create(
    user: string,
    options?: { name?: string; expiresInMs?: number },
  ): Promise<{ token: string; info: AccessTokenInfo }>;
  /** Tokens of one user, or every user's; secrets are never listed. */
  list(user?: string): AccessTokenInfo[];
  get(id: string): AccessTokenInfo | undefined;
  revoke(id: string): Promise<void>;
  /** The principal of a usable token (known, not expired, its user present and enabled), else null. */
  authenticate(token: string): Principal | null;
}

interface TokenRow {
  id: string;
  user_name: string;
  name: string;
  created_at: number;
  expires_at: number | null;
}

function toInfo(row: TokenRow): AccessTokenInfo {
  return { id: row.id, user: row.user_name, name: row.name, createdAt: row.created_at, expiresAt: row.expires_at };
}

function digest(token: string): Buffer {
  return crypto.createHash('sha256').update(token).digest();
}

export class SqliteEventLogTokens implements EventLogTokens {
  private readonly store: SqliteEventStore;
  private readonly clock: () => number;
  private readonly sql;

  constructor(options: { store: SqliteEventStore; clock?: () => number }) {
    this.store = options.store;
    this.clock = options.clock ?? Date.now;
    const prepare = preparingUnseen(this.store.db);
    const columns = 'id, user_name, name, created_at, expires_at';
    this.sql = {
      insert: prepare(
        'INSERT INTO access_tokens (id, token_hash, user_name, user_created_at, name, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      countOf: prepare('SELECT COUNT(*) FROM access_tokens WHERE user_name = ?').pluck(),
      user: prepare('SELECT created_at, disabled FROM users WHERE name = ?'),
      get: prepare(`SELECT ${columns} FROM access_tokens WHERE id = ?`),
      listAll: prepare(
        `SELECT t.id, t.user_name, t.name, t.created_at, t.expires_at FROM access_tokens t JOIN users u ON u.name = t.user_name AND u.created_at = t.user_created_at ORDER BY t.user_name, t.created_at`,
      ),
      listOf: prepare(
        `SELECT t.id, t.user_name, t.name, t.created_at, t.expires_at FROM access_tokens t JOIN users u ON u.name = t.user_name AND u.created_at = t.user_created_at WHERE t.user_name = ? ORDER BY t.created_at`,
      ),
      // Only tokens whose user still exists as the account they were issued to.
      byHash: prepare(
        `SELECT u.name, u.groups, u.disabled, t.expires_at FROM access_tokens t JOIN users u ON u.name = t.user_name AND u.created_at = t.user_created_at WHERE t.token_hash = ?`,
      ),
      remove: prepare('DELETE FROM access_tokens WHERE id = ?'),
      // Tokens of accounts that are gone (removed, or removed and created again): they can never work.
      removeOrphans: prepare(
        'DELETE FROM access_tokens WHERE user_name = ? AND user_created_at IS NOT (SELECT created_at FROM users WHERE name = ?)',
      ),
    };
  }

  async create(
    user: string,
    options: { name?: string; expiresInMs?: number } = {},
  ): Promise<{ token: string; info: AccessTokenInfo }> {
    const name = options.name ?? '';
    if (typeof name !== 'string' || name.length > MAX_TOKEN_NAME || /\p{Cc}/u.test(name))
      throw new EventLogUserError(
        'INVALID',
        `token name must be at most ${MAX_TOKEN_NAME} characters, no control characters`,
      );
    const expiresIn = options.expiresInMs;
    if (expiresIn !== undefined && !(Number.isSafeInteger(expiresIn) && expiresIn > 0))
      throw new EventLogUserError('INVALID', 'expiry must be a positive whole number of milliseconds');
    const token = TOKEN_PREFIX + crypto.randomBytes(32).toString('base64url');
    const id = crypto.randomBytes(8).toString('hex');
    const info = await this.store.runSystemWrite(() => {
      const account = this.sql.user.get(user) as { created_at: number } | undefined;
      if (!account) throw new EventLogUserError('NOT_FOUND', `user "${user}" not found`);
      this.sql.removeOrphans.run(user, user);
      if ((this.sql.countOf.get(user) as number) >= MAX_TOKENS_PER_USER)
        throw new EventLogUserError('INVALID', `user "${user}" has ${MAX_TOKENS_PER_USER} tokens: revoke one first`);
      const now = this.clock();
      const row: TokenRow = {
        id,
        user_name: user,
        name,
        created_at: now,
        expires_at: expiresIn === undefined ? null : now + expiresIn,
      };
      this.sql.insert.run(id, digest(token), user, account.created_at, name, now, row.expires_at);
      return toInfo(row);
    });
    return { token, info };
  }

  list(user?: string): AccessTokenInfo[] {
    const rows = (user === undefined ? this.sql.listAll.all() : this.sql.listOf.all(user)) as TokenRow[];
    return rows.map(toInfo);
  }

  get(id: string): AccessTokenInfo | undefined {
    const row = this.sql.get.get(id) as TokenRow | undefined;
    return row ? toInfo(row) : undefined;
  }

  async revoke(id: string): Promise<void> {
    await this.store.runSystemWrite(() => {
      if (this.sql.remove.run(id).changes === 0) throw new EventLogUserError('NOT_FOUND', `token "${id}" not found`);
    });
  }

  authenticate(token: string): Principal | null {
    if (typeof token !== 'string' || !token.startsWith(TOKEN_PREFIX) || token.length > 100) return null;
    const row = this.sql.byHash.get(digest(token)) as
      | { name: string; groups: string; disabled: number; expires_at: number | null }
      | undefined;
    if (!row || row.disabled === 1) return null;
    if (row.expires_at !== null && row.expires_at <= this.clock()) return null;
    return Object.freeze({ name: row.name, groups: Object.freeze(JSON.parse(row.groups) as string[]) });
  }
}
