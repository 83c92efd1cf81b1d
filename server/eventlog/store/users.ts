/**
 * Event-log accounts. The `users` table is what authentication reads; every change is also written,
 * in the same SQLite transaction, as EventStoreDB records it: `$UserCreated` / `$UserUpdated` in
 * `$user-<name>` (ACL: admins write, delete and change metadata), `$User` in `$users`, and
 * `$PasswordChanged` in `$users-password-notifications`; removing a user soft-deletes `$user-<name>`.
 * Password hashes stay in the table only, never in events.
 */
import crypto from 'node:crypto';
import { jsonEvent, metastreamOf, SystemEventTypes, SystemRoles, SystemStreams } from './metadata.ts';
import { preparingUnseen } from '../../db/index.ts';
import { CredentialThrottle } from '../../security/index.ts';
import type { Logger } from '../../logger.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import type { SqliteEventStore } from './sqlite-store.ts';
import type { SystemWriter } from './system-writer.ts';
import { ExpectedVersion, type Principal } from './types.ts';
import { type EventLogUser, type EventLogUsers } from './store-contract.ts';

export type EventLogUserErrorCode = 'NOT_FOUND' | 'EXISTS' | 'INVALID';

/** A user-management request that cannot be done as asked; the message is fit to show. */
export class EventLogUserError extends Error {
  readonly code: EventLogUserErrorCode;
  constructor(code: EventLogUserErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

export const DEFAULT_USERS = [
  { name: 'admin', fullName: 'Event Store Administrator', groups: [SystemRoles.Admins] },
  { name: 'ops', fullName: 'Event Store Operations', groups: [SystemRoles.Ops] },
] as const;
/** The password of the default accounts of a new log (EventStoreDB's); the UI makes the owner change it. */
export const DEFAULT_PASSWORD = 'changeit';
const DEFAULT_USERS_FLAG = 'default_users_created';
let defaultPasswordHash: Promise<string> | undefined;
/** TCP packages carry credentials with a one-byte length. */
const MAX_CREDENTIAL_BYTES = 255;
const MAX_GROUPS = 64;

interface UserRow {
  name: string;
  full_name: string;
  groups: string;
  password_hash: string;
  disabled: number;
  created_at: number;
  updated_at: number;
}

function toUser(row: UserRow): EventLogUser {
  return {
    name: row.name,
    fullName: row.full_name,
    groups: JSON.parse(row.groups) as string[],
    disabled: row.disabled === 1,
    createdAt: row.created_at,
  };
}

function validateName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || name === '') throw new EventLogUserError('INVALID', 'user name must not be empty');
  if (Buffer.byteLength(name) > MAX_CREDENTIAL_BYTES)
    throw new EventLogUserError('INVALID', `user name must be at most ${MAX_CREDENTIAL_BYTES} bytes`);
  if (/[\s\p{Cc}:]/u.test(name))
    throw new EventLogUserError('INVALID', 'user name must not contain spaces, control characters or ":"');
  if (name.startsWith('$'))
    throw new EventLogUserError('INVALID', 'user name must not start with "$" (reserved for groups)');
}

function validatePassword(password: unknown): asserts password is string {
  if (typeof password !== 'string' || password === '')
    throw new EventLogUserError('INVALID', 'password must not be empty');
  if (Buffer.byteLength(password) > MAX_CREDENTIAL_BYTES) {
    throw new EventLogUserError(
      'INVALID',
      `password must be at most ${MAX_CREDENTIAL_BYTES} bytes (the TCP protocol's limit)`,
    );
  }
}

function validateGroups(groups: unknown): string[] {
  if (groups === undefined) return [];
  if (!Array.isArray(groups) || groups.length > MAX_GROUPS)
    throw new EventLogUserError('INVALID', `groups must be a list of at most ${MAX_GROUPS} names`);
  for (const g of groups) {
    if (typeof g !== 'string' || g === '' || /[\s\p{Cc}]/u.test(g) || Buffer.byteLength(g) > MAX_CREDENTIAL_BYTES) {
      throw new EventLogUserError(
        'INVALID',
        `group name "${String(g)}" is invalid: it must be non-empty, without spaces`,
      );
    }
  }
  return [...new Set(groups as string[])];
}

export interface SqliteEventLogUsersOptions {
  store: SqliteEventStore;
  /** How long a successful password check is remembered (scrypt is deliberately slow). */
  authCacheMs?: number;
  /** Failed checks are logged here (user and address, never the password). */
  logger?: Logger;
  /** Repeated failures per address and per user are refused without a password check (tests inject a clock). */
  throttle?: CredentialThrottle;
  /** The password check (tests count calls to prove unknown users take the same path). */
  verifyPassword?: (password: string, stored: string) => Promise<boolean>;
}

type CheckOutcome =
  | { ok: true; principal: Principal }
  | { ok: false; reason: 'unknown user' | 'disabled' | 'wrong password' };

/** Checked for unknown or disabled users, so they cost as much as a wrong password (no timing oracle). */
let dummyHash: Promise<string> | null = null;

export class SqliteEventLogUsers implements EventLogUsers {
  private readonly store: SqliteEventStore;
  private readonly authCacheMs: number;
  private readonly authCache = new Map<string, { digest: Buffer; principal: Principal; expires: number }>();
  /** Keys the cached password digests, so the cache never holds anything reusable outside this process. */
  private readonly cacheKey = crypto.randomBytes(32);
  /** Password checks running now, by credential digest (see sharedCheck); emptied by every user change. */
  private readonly checksInFlight = new Map<string, Promise<CheckOutcome>>();
  /** Bumped on every change; a check that started before a change is not cached. */
  private generation = 0;
  private readonly sql;
  private readonly logger: Logger | undefined;
  readonly throttle: CredentialThrottle;
  private readonly verifyPassword: (password: string, stored: string) => Promise<boolean>;

  constructor(options: SqliteEventLogUsersOptions) {
    this.store = options.store;
    this.authCacheMs = options.authCacheMs ?? 60_000;
    this.logger = options.logger;
    this.throttle = options.throttle ?? new CredentialThrottle();
    this.verifyPassword = options.verifyPassword ?? verifyPassword;
    dummyHash ??= hashPassword(crypto.randomBytes(16).toString('hex'));
    const prepare = preparingUnseen(this.store.db);
    this.sql = {
      get: prepare(
        'SELECT name, full_name, groups, password_hash, disabled, created_at, updated_at FROM users WHERE name = ?',
      ),
      list: prepare(
        'SELECT name, full_name, groups, password_hash, disabled, created_at, updated_at FROM users ORDER BY name',
      ),
      insert: prepare(
        'INSERT INTO users (name, full_name, groups, password_hash, disabled, created_at, updated_at) VALUES (?, ?, ?, ?, 0, ?, ?)',
      ),
      setPassword: prepare('UPDATE users SET password_hash = ?, updated_at = ? WHERE name = ?'),
      setDetails: prepare('UPDATE users SET full_name = ?, groups = ?, updated_at = ? WHERE name = ?'),
      setDisabled: prepare('UPDATE users SET disabled = ?, updated_at = ? WHERE name = ?'),
      remove: prepare('DELETE FROM users WHERE name = ?'),
      getFlag: prepare('SELECT value FROM log_settings WHERE key = ?').pluck(),
      setFlag: prepare(
        'INSERT INTO log_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      ),
    };
    this.store.onExternalChange(() => this.invalidate());
  }

  /** Creates admin/changeit ($admins) and ops/changeit ($ops) the first time a log is opened. */
  async ensureDefaultUsers(): Promise<void> {
    if (this.sql.getFlag.get(DEFAULT_USERS_FLAG)) return;
    // The default password is public, so one hash per process serves every new log (tests open many).
    defaultPasswordHash ??= hashPassword(DEFAULT_PASSWORD);
    const hash = await defaultPasswordHash;
    await this.store.runSystemWrite(
      (w) => {
        // Another process (the CLI) may have done it while we were hashing.
        if (this.sql.getFlag.get(DEFAULT_USERS_FLAG)) return;
        DEFAULT_USERS.forEach((u) => {
          if (!this.sql.get.get(u.name)) this.createInBatch(w, u.name, u.fullName, [...u.groups], hash);
        });
        this.sql.setFlag.run(DEFAULT_USERS_FLAG, String(w.now));
      },
      { internal: true },
    );
    this.invalidate();
  }

  async authenticate(name: string, password: string, from = 'local'): Promise<Principal | null> {
    if (typeof name !== 'string' || typeof password !== 'string' || name === '') return null;
    this.store.checkForOutsideChanges();
    const digest = crypto.createHmac('sha256', this.cacheKey).update(name).update('\0').update(password).digest();
    const cached = this.authCache.get(name);
    // Credentials proven moments ago pass even while the name is throttled: an attacker's guesses must not lock out a working client.
    if (cached && cached.expires > Date.now() && crypto.timingSafeEqual(cached.digest, digest)) return cached.principal;
    const wait = this.throttle.retryAfter(from, name);
    if (wait > 0) {
      this.logger?.warn(
        { user: name, from, retryAfterSeconds: wait },
        'event-log sign-in refused: too many failed attempts',
      );
      return null;
    }
    const outcome = await this.sharedCheck(name, password, digest);
    // Each caller is its own attempt, as each is its own sign-in to EventStoreDB: identical guesses sent together
    // count (and are logged) once per caller and address, exactly as when each ran its own check.
    this.throttle.record(from, name, outcome.ok);
    if (!outcome.ok) {
      this.logger?.warn({ user: name, from, reason: outcome.reason }, 'event-log sign-in failed');
      return null;
    }
    return outcome.principal;
  }

  /**
   * One password check for every caller presenting the same name and password while it runs (keyed by their
   * HMAC digest, never the password): a client opening a hundred subscriptions at once costs one scrypt run, not a
   * hundred. Unknown names share the same way, so sharing tells nothing about which names exist. A user change
   * empties the map: a call arriving after it runs its own check against the new row.
   */
  private sharedCheck(name: string, password: string, digest: Buffer): Promise<CheckOutcome> {
    const key = digest.toString('base64');
    const running = this.checksInFlight.get(key);
    if (running) return running;
    const check = this.check(name, password, digest).finally(() => {
      if (this.checksInFlight.get(key) === check) this.checksInFlight.delete(key);
    });
    this.checksInFlight.set(key, check);
    return check;
  }

  private async check(name: string, password: string, digest: Buffer): Promise<CheckOutcome> {
    const generation = this.generation;
    const row = this.sql.get.get(name) as UserRow | undefined;
    const usable = row !== undefined && row.disabled !== 1;
    // Unknown and disabled users cost one scrypt check too, so timing does not tell which names exist.
    const ok = (await this.verifyPassword(password, usable ? row.password_hash : await dummyHash!)) && usable;
    if (!ok)
      return { ok, reason: row === undefined ? 'unknown user' : row.disabled === 1 ? 'disabled' : 'wrong password' };
    const principal: Principal = Object.freeze({
      name: row.name,
      groups: Object.freeze(JSON.parse(row.groups) as string[]),
    });
    if (generation === this.generation) {
      if (this.authCache.size >= 10_000) this.authCache.clear();
      this.authCache.set(name, { digest, principal, expires: Date.now() + this.authCacheMs });
    }
    return { ok, principal };
  }

  async hasPassword(name: string, password: string): Promise<boolean> {
    this.store.checkForOutsideChanges();
    const row = this.sql.get.get(name) as UserRow | undefined;
    return row !== undefined && (await this.verifyPassword(password, row.password_hash));
  }

  list(): EventLogUser[] {
    return (this.sql.list.all() as UserRow[]).map(toUser);
  }

  credentialStamp(name: string): string | null {
    this.store.checkForOutsideChanges();
    const row = this.sql.get.get(name) as UserRow | undefined;
    if (!row) return null;
    return crypto
      .createHash('sha256')
      .update(`${row.password_hash}\0${row.groups}\0${row.disabled}`)
      .digest('base64url');
  }

  get(name: string): EventLogUser | undefined {
    const row = this.sql.get.get(name) as UserRow | undefined;
    return row ? toUser(row) : undefined;
  }

  async add(user: { name: string; password: string; fullName?: string; groups?: string[] }): Promise<EventLogUser> {
    validateName(user?.name);
    validatePassword(user.password);
    const groups = validateGroups(user.groups);
    const fullName = user.fullName === undefined || user.fullName === '' ? user.name : user.fullName;
    if (typeof fullName !== 'string' || fullName.length > 1024)
      throw new EventLogUserError('INVALID', 'full name must be a string of at most 1024 characters');
    const hash = await hashPassword(user.password);
    const created = await this.store.runSystemWrite((w) => {
      if (this.sql.get.get(user.name)) throw new EventLogUserError('EXISTS', `user "${user.name}" already exists`);
      this.createInBatch(w, user.name, fullName, groups, hash);
      return toUser(this.sql.get.get(user.name) as UserRow);
    });
    this.invalidate();
    return created;
  }

  async changePassword(name: string, newPassword: string): Promise<void> {
    validateName(name);
    validatePassword(newPassword);
    const hash = await hashPassword(newPassword);
    await this.store.runSystemWrite((w) => {
      const row = this.sql.get.get(name) as UserRow | undefined;
      if (!row) throw new EventLogUserError('NOT_FOUND', `user "${name}" not found`);
      this.sql.setPassword.run(hash, w.now, name);
      w.append(`$user-${name}`, ExpectedVersion.Any, [jsonEvent('$UserUpdated', this.userData(toUser(row)))]);
      this.notifyPasswordChanged(w, name);
    });
    this.invalidate();
  }

  /** Replaces the full name and groups (EventStoreDB's UpdateUser; the password has its own calls). */
  async update(name: string, changes: { fullName?: string; groups?: string[] }): Promise<EventLogUser> {
    validateName(name);
    const groups = validateGroups(changes.groups);
    const fullName = changes.fullName === undefined || changes.fullName === '' ? name : changes.fullName;
    if (typeof fullName !== 'string' || fullName.length > 1024)
      throw new EventLogUserError('INVALID', 'full name must be a string of at most 1024 characters');
    return this.changeRow(name, (now) => this.sql.setDetails.run(fullName, JSON.stringify(groups), now, name));
  }

  /** Disables (no sign-in, sessions end) or enables an account; the password stays. */
  async setDisabled(name: string, disabled: boolean): Promise<EventLogUser> {
    validateName(name);
    return this.changeRow(name, (now) => this.sql.setDisabled.run(disabled ? 1 : 0, now, name));
  }

  /** Changes a user's row and records `$UserUpdated` with what it now holds, in one write. */
  private async changeRow(name: string, change: (now: number) => void): Promise<EventLogUser> {
    const updated = await this.store.runSystemWrite((w) => {
      if (!this.sql.get.get(name)) throw new EventLogUserError('NOT_FOUND', `user "${name}" not found`);
      change(w.now);
      const user = toUser(this.sql.get.get(name) as UserRow);
      w.append(`$user-${name}`, ExpectedVersion.Any, [jsonEvent('$UserUpdated', this.userData(user))]);
      return user;
    });
    this.invalidate();
    return updated;
  }

  async remove(name: string): Promise<void> {
    validateName(name);
    await this.store.runSystemWrite((w) => {
      if (!this.sql.get.get(name)) throw new EventLogUserError('NOT_FOUND', `user "${name}" not found`);
      this.sql.remove.run(name);
      w.deleteStream(`$user-${name}`, ExpectedVersion.Any, false);
      this.notifyPasswordChanged(w, name);
    });
    this.invalidate();
  }

  private createInBatch(w: SystemWriter, name: string, fullName: string, groups: string[], hash: string): void {
    this.sql.insert.run(name, fullName, JSON.stringify(groups), hash, w.now, w.now);
    const userStream = `$user-${name}`;
    w.append(metastreamOf(userStream), ExpectedVersion.Any, [
      jsonEvent(SystemEventTypes.Metadata, {
        $acl: { $w: SystemRoles.Admins, $d: SystemRoles.Admins, $mw: SystemRoles.Admins },
      }),
    ]);
    w.append(userStream, ExpectedVersion.Any, [
      jsonEvent('$UserCreated', { loginName: name, fullName, groups, disabled: false }),
    ]);
    w.append(SystemStreams.Users, ExpectedVersion.Any, [
      {
        eventId: crypto.randomUUID(),
        eventType: '$User',
        isJson: false,
        data: Buffer.from(name),
        metadata: new Uint8Array(0),
      },
    ]);
  }

  private userData(user: EventLogUser): Record<string, unknown> {
    return { loginName: user.name, fullName: user.fullName, groups: user.groups, disabled: user.disabled };
  }

  private notifyPasswordChanged(w: SystemWriter, name: string): void {
    const stream = SystemStreams.PasswordNotifications;
    if (w.streamInfo(metastreamOf(stream)).lastEventNumber < 0) {
      w.append(metastreamOf(stream), ExpectedVersion.Any, [jsonEvent(SystemEventTypes.Metadata, { $maxAge: 3600 })]);
    }
    w.append(stream, ExpectedVersion.Any, [jsonEvent('$PasswordChanged', { loginName: name })]);
  }

  private invalidate(): void {
    this.generation++;
    this.authCache.clear();
    this.checksInFlight.clear();
  }
}
