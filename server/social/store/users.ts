import { bool, idOrNull, int, intOrNull, jsonOr, sqlBool, str, type SqlValue, type StoreCore } from './store.ts';
import type { UserRole } from './account-row.ts';

/** Per-user preferences (posting defaults and reading options). */
export interface UserSettings {
  defaultPrivacy?: 'public' | 'unlisted' | 'private' | 'direct';
  defaultSensitive?: boolean;
  defaultLanguage?: string | null;
  defaultQuotePolicy?: 'public' | 'followers' | 'nobody';
  expandMedia?: 'default' | 'show_all' | 'hide_all';
  expandSpoilers?: boolean;
  autoplayGifs?: boolean;
  /** What the profile shows (Mastodon 4.6's profile settings; all true unless turned off). */
  showMedia?: boolean;
  showMediaReplies?: boolean;
  showFeatured?: boolean;
}

export interface User {
  id: string;
  accountId: string;
  email: string;
  passwordHash: string | null;
  role: UserRole;
  locale: string | null;
  confirmedAt: number | null;
  confirmationSentAt: number | null;
  approved: boolean;
  disabled: boolean;
  createdByApplicationId: string | null;
  signUpIp: string | null;
  reason: string | null;
  dateOfBirth: string | null;
  settings: UserSettings;
  currentSignInAt: number | null;
  lastSignInAt: number | null;
  createdAt: number;
  updatedAt: number;
}

function toUser(r: Record<string, unknown>): User {
  return {
    id: str(r.id),
    accountId: str(r.account_id),
    email: r.email as string,
    passwordHash: (r.password_hash as string | null) ?? null,
    role: r.role as UserRole,
    locale: (r.locale as string | null) ?? null,
    confirmedAt: intOrNull(r.confirmed_at),
    confirmationSentAt: intOrNull(r.confirmation_sent_at),
    approved: bool(r.approved),
    disabled: bool(r.disabled),
    createdByApplicationId: idOrNull(r.created_by_application_id),
    signUpIp: (r.sign_up_ip as string | null) ?? null,
    reason: (r.reason as string | null) ?? null,
    dateOfBirth: (r.date_of_birth as string | null) ?? null,
    settings: jsonOr<UserSettings>(r.settings, {}),
    currentSignInAt: intOrNull(r.current_sign_in_at),
    lastSignInAt: intOrNull(r.last_sign_in_at),
    createdAt: int(r.created_at),
    updatedAt: int(r.updated_at),
  };
}

export interface NewUser {
  accountId: string;
  email: string;
  passwordHash: string;
  role: UserRole;
  locale: string | null;
  confirmed: boolean;
  approved: boolean;
  createdByApplicationId?: string | null;
  signUpIp?: string | null;
  reason?: string | null;
  dateOfBirth?: string | null;
}

export class UserRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  byId(id: string): User | null {
    const r = this.core.sql('SELECT * FROM users WHERE id = ?').get(id) as Record<string, unknown> | undefined;
    return r ? toUser(r) : null;
  }

  byAccountId(accountId: string): User | null {
    const r = this.core.sql('SELECT * FROM users WHERE account_id = ?').get(accountId) as
      | Record<string, unknown>
      | undefined;
    return r ? toUser(r) : null;
  }

  byEmail(email: string): User | null {
    const r = this.core.sql('SELECT * FROM users WHERE lower(email) = lower(?)').get(email) as
      | Record<string, unknown>
      | undefined;
    return r ? toUser(r) : null;
  }

  /** A user by local username or e-mail address (what sign-in forms accept). */
  byLogin(login: string): User | null {
    const trimmed = login.trim().replace(/^@/, '');
    if (trimmed.includes('@')) {
      const byMail = this.byEmail(trimmed);
      if (byMail) return byMail;
    }
    const r = this.core
      .sql(
        'SELECT u.* FROM users u JOIN accounts a ON a.id = u.account_id WHERE a.domain IS NULL AND lower(a.username) = lower(?)',
      )
      .get(trimmed) as Record<string, unknown> | undefined;
    return r ? toUser(r) : null;
  }

  emailTaken(email: string, exceptUserId?: string): boolean {
    return (
      this.core
        .sql('SELECT 1 FROM users WHERE lower(email) = lower(?) AND id IS NOT ?')
        .get(email, exceptUserId ?? null) !== undefined
    );
  }

  insert(input: NewUser): string {
    const id = this.core.ids.next();
    const now = this.core.now();
    this.core
      .sql(
        `INSERT INTO users (id, account_id, email, password_hash, role, locale, confirmed_at, approved, created_by_application_id,
           sign_up_ip, reason, date_of_birth, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        input.accountId,
        input.email,
        input.passwordHash,
        input.role,
        input.locale,
        input.confirmed ? now : null,
        sqlBool(input.approved),
        input.createdByApplicationId ?? null,
        input.signUpIp ?? null,
        input.reason ?? null,
        input.dateOfBirth ?? null,
        now,
        now,
      );
    return id;
  }

  private update(id: string, sets: Record<string, SqlValue>): void {
    const cols = Object.keys(sets);
    this.core
      .prepareOnce(
        `UPDATE users SET ${cols.map((c) => `${c} = @${c}`).join(', ')}, updated_at = @updated_at WHERE id = @id`,
      )
      .run({ ...sets, id, updated_at: this.core.now() });
  }

  setConfirmationToken(id: string, tokenHash: string): void {
    this.update(id, { confirmation_token_hash: tokenHash, confirmation_sent_at: this.core.now() });
  }

  byConfirmationToken(tokenHash: string): User | null {
    const r = this.core.sql('SELECT * FROM users WHERE confirmation_token_hash = ?').get(tokenHash) as
      | Record<string, unknown>
      | undefined;
    return r ? toUser(r) : null;
  }

  confirm(id: string): void {
    this.core
      .sql(
        'UPDATE users SET confirmed_at = coalesce(confirmed_at, ?), confirmation_token_hash = NULL, updated_at = ? WHERE id = ?',
      )
      .run(this.core.now(), this.core.now(), id);
  }

  setEmail(id: string, email: string): void {
    this.update(id, { email });
  }

  setApproved(id: string, approved: boolean): void {
    this.update(id, { approved: sqlBool(approved) });
  }

  setDisabled(id: string, disabled: boolean): void {
    this.core
      .sql('UPDATE users SET disabled = ?, updated_at = ? WHERE id = ?')
      .run(disabled ? 1 : 0, this.core.now(), id);
  }

  setRole(id: string, role: UserRole): void {
    this.update(id, { role });
  }

  setPasswordHash(id: string, hash: string): void {
    this.update(id, { password_hash: hash });
  }

  setLocale(id: string, locale: string): void {
    this.update(id, { locale });
  }

  setSettings(id: string, settings: UserSettings): void {
    this.update(id, { settings: JSON.stringify(settings) });
  }

  recordSignIn(id: string): void {
    this.core
      .sql('UPDATE users SET last_sign_in_at = current_sign_in_at, current_sign_in_at = ? WHERE id = ?')
      .run(this.core.now(), id);
  }

  delete(id: string): void {
    this.core.sql('DELETE FROM users WHERE id = ?').run(id);
  }

  /** The first owner, or else the first admin: the server's contact. */
  /** Accounts of the staff who see reports: owners, admins and moderators, not disabled. */
  staffAccountIds(): string[] {
    const rows = this.core
      .sql(`SELECT account_id FROM users WHERE role IN ('owner', 'admin', 'moderator') AND disabled = 0`)
      .all() as { account_id: bigint }[];
    return rows.map((r) => String(r.account_id));
  }

  staffContact(): User | null {
    const r = this.core
      .sql(
        `SELECT * FROM users WHERE role IN ('owner', 'admin') AND disabled = 0 ORDER BY CASE role WHEN 'owner' THEN 0 ELSE 1 END, id LIMIT 1`,
      )
      .get() as Record<string, unknown> | undefined;
    return r ? toUser(r) : null;
  }
}
