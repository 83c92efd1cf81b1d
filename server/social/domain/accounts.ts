import crypto from 'node:crypto';
import { promisify } from 'node:util';
import type { Logger } from '../../logger.ts';
import { DetailsCollector, DomainError, forbidden } from '../errors.ts';
import { type Mailer, confirmationEmail } from '../mail/index.ts';
import {
  randomSecret,
  sha256,
  type Account,
  type ProfileChanges,
  type SocialStore,
  type User,
  type UserRole,
  type UserSettings,
} from '../store/index.ts';
import type { SocialUrls } from '../urls.ts';
import { generatePassword, hashPassword, verifyPassword } from './password.ts';
import { deleteReblogsOfAccount } from './reblogs-of-deleted.ts';

const generateKeyPair = promisify(crypto.generateKeyPair);

export const USERNAME_MAX = 30;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 72;
export const EMAIL_MAX = 320;
export const REASON_MAX = 500;
/** Names Mastodon reserves by default, so nobody can pose as staff. */
const RESERVED_USERNAMES = new Set([
  'admin',
  'administrator',
  'support',
  'help',
  'root',
  'webmaster',
  'mod',
  'moderator',
  'postmaster',
  'abuse',
  'security',
  'system',
  'homeport',
]);
const USERNAME_PATTERN = /^[a-z0-9_]+$/i;
// Deliberately loose (as Devise's): something@something.tld-ish without spaces.
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+$/;
const LOCALE_PATTERN = /^[a-z]{2,3}([-_][a-z0-9]{2,8})*$/i;
const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

export interface CreateAccountInput {
  username: string;
  email: string;
  /** Omitted: a password is generated (returned once). */
  password?: string;
  role?: UserRole;
  confirmed?: boolean;
  approved?: boolean;
  locale?: string | null;
  /** Registration through the API must accept the server's terms. */
  requireAgreement?: boolean;
  agreement?: boolean;
  reason?: string | null;
  dateOfBirth?: string | null;
  createdByApplicationId?: string | null;
  signUpIp?: string | null;
}

export interface CreatedAccount {
  account: Account;
  user: User;
  /** Set when the password was generated. */
  generatedPassword: string | null;
}

/** Normalises a locale like "en_us" to "en-US"; null when absent. */
export function normalizeLocale(locale: string | null | undefined): string | null {
  if (!locale) return null;
  const [lang, ...rest] = locale.split(/[-_]/);
  return [lang.toLowerCase(), ...rest.map((p) => (p.length === 2 ? p.toUpperCase() : p))].join('-');
}

/** Local accounts and users: sign-up, confirmation, approval, suspension, deletion and sign-in checks. */
export class AccountService {
  private readonly store: SocialStore;
  private readonly urls: SocialUrls;
  private readonly mailer: Mailer;
  private readonly logger: Logger;

  constructor(store: SocialStore, urls: SocialUrls, mailer: Mailer, logger: Logger) {
    this.store = store;
    this.urls = urls;
    this.mailer = mailer;
    this.logger = logger;
  }

  /** Field checks of a new account with Mastodon's error codes (ERR_BLANK, ERR_TAKEN, …). */
  validateNew(input: CreateAccountInput, details = new DetailsCollector()): DetailsCollector {
    const username = input.username ?? '';
    if (username === '') details.add('username', 'ERR_BLANK', "can't be blank");
    else if (!USERNAME_PATTERN.test(username))
      details.add('username', 'ERR_INVALID', 'must contain only letters, numbers and underscores');
    else if (username.length > USERNAME_MAX)
      details.add('username', 'ERR_TOO_LONG', `is too long (maximum is ${USERNAME_MAX} characters)`);
    else if (RESERVED_USERNAMES.has(username.toLowerCase()) && input.role !== 'owner' && input.role !== 'admin')
      details.add('username', 'ERR_RESERVED', 'is reserved');
    else if (this.store.accounts.usernameTaken(username))
      details.add('username', 'ERR_TAKEN', 'has already been taken');

    const email = input.email ?? '';
    if (email === '') {
      details.add('email', 'ERR_BLANK', "can't be blank");
      details.add('email', 'ERR_INVALID', 'is invalid');
    } else if (email.length > EMAIL_MAX || !EMAIL_PATTERN.test(email))
      details.add('email', 'ERR_INVALID', 'is invalid');
    else if (this.store.users.emailTaken(email)) details.add('email', 'ERR_TAKEN', 'has already been taken');

    if (input.password !== undefined) {
      if (input.password === '') details.add('password', 'ERR_BLANK', "can't be blank");
      else if ([...input.password].length < PASSWORD_MIN)
        details.add('password', 'ERR_TOO_SHORT', `is too short (minimum is ${PASSWORD_MIN} characters)`);
      else if (Buffer.byteLength(input.password) > PASSWORD_MAX)
        details.add('password', 'ERR_TOO_LONG', `is too long (maximum is ${PASSWORD_MAX} characters)`);
    }
    if (input.requireAgreement && input.agreement !== true)
      details.add('agreement', 'ERR_ACCEPTED', 'must be accepted');
    if (input.reason && input.reason.length > REASON_MAX)
      details.add('reason', 'ERR_TOO_LONG', `is too long (maximum is ${REASON_MAX} characters)`);
    if (input.dateOfBirth && (!DATE_PATTERN.test(input.dateOfBirth) || Number.isNaN(Date.parse(input.dateOfBirth))))
      details.add('date_of_birth', 'ERR_INVALID', 'is invalid');
    return details;
  }

  /**
   * Creates a local account and its user. Unconfirmed users get a confirmation e-mail. Throws a 422
   * ValidationFailure with details for bad or taken values.
   */
  async create(input: CreateAccountInput): Promise<CreatedAccount> {
    this.validateNew(input).throwIfAny();
    const generatedPassword = input.password === undefined ? generatePassword() : null;
    const [passwordHash, keys] = await Promise.all([
      hashPassword(input.password ?? generatedPassword!),
      generateKeyPair('rsa', {
        modulusLength: 2048,
        publicKeyEncoding: { type: 'spki', format: 'pem' },
        privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      }),
    ]);
    const role = input.role ?? 'user';
    const { accountId, userId } = this.store.transaction(() => {
      // Checked again inside the transaction: another request may have taken the name meanwhile.
      this.validateNew({ ...input, password: undefined, requireAgreement: false }).throwIfAny();
      const accountId = this.store.accounts.insertLocal({
        username: input.username,
        publicKey: keys.publicKey,
        privateKey: keys.privateKey,
      });
      const userId = this.store.users.insert({
        accountId,
        email: input.email,
        passwordHash,
        role,
        // Mastodon quietly drops a locale it does not know.
        locale: input.locale && LOCALE_PATTERN.test(input.locale) ? normalizeLocale(input.locale) : null,
        confirmed: input.confirmed ?? false,
        approved: input.approved ?? true,
        createdByApplicationId: input.createdByApplicationId ?? null,
        signUpIp: input.signUpIp ?? null,
        reason: input.reason ?? null,
        dateOfBirth: input.dateOfBirth ?? null,
      });
      return { accountId, userId };
    });
    const account = this.store.accounts.byId(accountId)!;
    const user = this.store.users.byId(userId)!;
    if (user.confirmedAt === null) this.sendConfirmation(user, account);
    if (!user.approved) this.notifyStaffOfSignUp(account);
    this.logger.info({ accountId, username: account.username, role }, 'local account created');
    return { account, user, generatedPassword };
  }

  /** Mails a fresh confirmation link (an older link stops working). */
  sendConfirmation(user: User, account: Account): void {
    const token = randomSecret();
    this.store.users.setConfirmationToken(user.id, sha256(token));
    const title = this.store.settings.owner('title');
    this.mailer.send(
      confirmationEmail({
        to: user.email,
        username: account.username,
        serverTitle: title,
        domain: this.urls.domain,
        link: this.urls.confirmation(token),
      }),
    );
  }

  /** Confirms the user a confirmation link belongs to; null for an unknown or used link. */
  confirmByToken(token: string): { user: User; account: Account } | null {
    const user = this.store.users.byConfirmationToken(sha256(token));
    if (!user) return null;
    this.store.users.confirm(user.id);
    return { user: this.store.users.byId(user.id)!, account: this.store.accounts.byId(user.accountId)! };
  }

  /** Changes the address of a user who has not confirmed yet (POST /api/v1/emails/confirmations). */
  changeUnconfirmedEmail(user: User, email: string): void {
    const details = new DetailsCollector();
    if (email.length > EMAIL_MAX || !EMAIL_PATTERN.test(email)) details.add('email', 'ERR_INVALID', 'is invalid');
    else if (this.store.users.emailTaken(email, user.id)) details.add('email', 'ERR_TAKEN', 'has already been taken');
    details.throwIfAny();
    this.store.users.setEmail(user.id, email);
  }

  /** The local user named by a username (with or without @) or e-mail address. */
  findUser(login: string): { user: User; account: Account } | null {
    const user = this.store.users.byLogin(login);
    if (!user) return null;
    const account = this.store.accounts.byId(user.accountId);
    return account ? { user, account } : null;
  }

  /** Checks a password; null when the login or password is wrong (the same answer for both). */
  async authenticate(login: string, password: string): Promise<{ user: User; account: Account } | null> {
    const found = this.findUser(login);
    if (!found || found.account.deletedAt !== null) {
      // Spend the same time as a real check so response times do not reveal which logins exist.
      await verifyPassword(password, DUMMY_HASH);
      return null;
    }
    return (await verifyPassword(password, found.user.passwordHash)) ? found : null;
  }

  confirm(userId: string): void {
    this.store.users.confirm(userId);
  }

  approve(userId: string): void {
    this.store.users.setApproved(userId, true);
  }

  async setPassword(userId: string, password: string): Promise<void> {
    const details = this.validateNew({ username: 'x', email: 'x@x', password }, new DetailsCollector());
    delete details.details.username;
    delete details.details.email;
    details.throwIfAny();
    this.store.users.setPasswordHash(userId, await hashPassword(password));
  }

  /** Suspends an account: its sessions and tokens end, the API shows it empty. Reversible. */
  /** Changes a profile (and, when given, the user's posting settings) in one commit; tells `account.updated`. */
  updateProfile(
    accountId: string,
    changes: ProfileChanges,
    settings?: { userId: string; settings: UserSettings },
  ): void {
    this.store.transaction(() => {
      this.store.accounts.updateProfile(accountId, changes);
      if (settings) this.store.users.setSettings(settings.userId, settings.settings);
      this.store.events.emit('account.updated', { accountId });
    });
  }

  suspend(accountId: string): void {
    this.store.transaction(() => {
      this.store.accounts.setSuspended(accountId, true);
      // Tokens stay, refused while suspended, so apps work again after an unsuspension (as Mastodon); web sessions end.
      const user = this.store.users.byAccountId(accountId);
      if (user) this.store.oauth.deleteUserSessions(user.id);
    });
  }

  unsuspend(accountId: string): void {
    this.store.accounts.setSuspended(accountId, false);
  }

  /** Suspends or lifts the suspension, told as the admin API tells it (a suspended account's streams close; other servers get the Update). */
  setSuspendedAndTell(accountId: string, suspended: boolean): void {
    this.store.transaction(() => {
      if (suspended) this.suspend(accountId);
      else this.unsuspend(accountId);
      this.store.events.emit('account.updated', { accountId });
    });
  }

  setRole(userId: string, role: UserRole): void {
    this.store.users.setRole(userId, role);
  }

  /** Deletes a local account: relationships, tokens and the user go; the name stays reserved. */
  deleteLocal(accountId: string): void {
    this.store.transaction(() => {
      // Statuses go with the account (their rows stay as tombstones, each told to streaming as a deletion), others'
      // boosts of them too; so do its home feed and scheduled posts.
      deleteReblogsOfAccount(this.store, accountId);
      const listIds = this.store.lists.withMember(accountId).map((l) => l.id);
      const statuses = this.store.accountErasure.eraseLocalData(accountId);
      if (statuses.length > 0) this.store.events.emit('account.statuses.deleted', { accountId, statuses, listIds });
      const user = this.store.users.byAccountId(accountId);
      if (user) this.store.users.delete(user.id);
      this.store.accounts.markDeleted(accountId, { keepPrivateKey: true });
      this.store.events.emit('account.deleted', { accountId });
    });
  }

  private notifyStaffOfSignUp(account: Account): void {
    for (const accountId of this.store.users.staffAccountIds()) {
      const notificationId = this.store.notifications.insert({
        accountId,
        fromAccountId: account.id,
        type: 'admin.sign_up',
      });
      this.store.events.emit('notification.created', {
        notificationId,
        accountId,
        fromAccountId: account.id,
        notificationType: 'admin.sign_up',
        statusId: null,
      });
    }
  }
}

/** Raised for a login state that forbids using the API (the message is what Mastodon says). */
export function userStateError(user: User, account: Account): DomainError | null {
  if (user.disabled || account.suspendedAt !== null || account.deletedAt !== null)
    return forbidden('Your login is currently disabled');
  if (user.confirmedAt === null) return forbidden('Your login is missing a confirmed e-mail address');
  if (!user.approved) return forbidden('Your login is currently pending approval');
  return null;
}

// A valid hash of a random password, checked against when the login is unknown.
const DUMMY_HASH = `scrypt$15$8$1$AAAAAAAAAAAAAAAAAAAAAA$${'A'.repeat(86)}`;
