import type { Account } from './account-row.ts';
import { ACCOUNT_COLUMNS, toAccount } from './account-columns.ts';
import { cursorWhere, finishPage, type PageQuery, type StoreCore } from './store.ts';

/** What staff filter accounts by (the v1 and v2 admin API's filters, normalized). */
export interface AdminAccountFilter {
  origin?: 'local' | 'remote';
  status?: 'active' | 'pending' | 'disabled' | 'silenced' | 'suspended' | 'sensitized';
  staff?: boolean;
  username?: string;
  displayName?: string;
  byDomain?: string;
  email?: string;
  ip?: string;
}

export interface AdminAccountRow {
  account: Account;
  email: string | null;
  locale: string | null;
  signUpIp: string | null;
  reason: string | null;
  createdByApplicationId: string | null;
  lastSignInAt: number | null;
}

const STATUS_WHERE: Record<NonNullable<AdminAccountFilter['status']>, string> = {
  active: 'a.suspended_at IS NULL AND a.deleted_at IS NULL AND (u.id IS NULL OR (u.approved = 1 AND u.disabled = 0))',
  pending: 'u.approved = 0 AND a.deleted_at IS NULL',
  disabled: 'u.disabled = 1',
  silenced: 'a.silenced_at IS NOT NULL',
  suspended: 'a.suspended_at IS NOT NULL',
  sensitized: 'a.sensitized_at IS NOT NULL',
};

/** Accounts as staff list them, local and remote, with the user data only staff see. */
export class AdminAccountRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  list(filter: AdminAccountFilter, page: PageQuery): AdminAccountRow[] {
    const c = cursorWhere('a.id', page);
    const where: string[] = ['a.deleted_at IS NULL OR a.suspended_at IS NOT NULL'];
    if (filter.origin === 'local') where.push('a.domain IS NULL');
    if (filter.origin === 'remote') where.push('a.domain IS NOT NULL');
    if (filter.status) where.push(STATUS_WHERE[filter.status]);
    if (filter.staff) where.push("u.role IN ('owner', 'admin', 'moderator')");
    if (filter.username) where.push("lower(a.username) LIKE @username || '%' ESCAPE '\\'");
    if (filter.displayName) where.push("lower(a.display_name) LIKE '%' || @display || '%' ESCAPE '\\'");
    if (filter.byDomain) where.push('lower(a.domain) = @domain');
    if (filter.email) where.push("lower(u.email) LIKE '%' || @email || '%' ESCAPE '\\'");
    if (filter.ip) where.push('u.sign_up_ip = @ip');
    const like = (v?: string) => (v ?? '').toLowerCase().replace(/[\\%_]/g, (m) => `\\${m}`);
    const rows = this.core
      .sql(
        `SELECT ${ACCOUNT_COLUMNS}, u.email AS admin_email, u.locale AS admin_locale, u.sign_up_ip AS admin_ip, u.reason AS admin_reason,
           u.created_by_application_id AS admin_app, u.last_sign_in_at AS admin_last_sign_in
         FROM accounts a LEFT JOIN users u ON u.account_id = a.id
         WHERE ${where.map((w) => `(${w})`).join(' AND ')} AND ${c.where} ORDER BY a.id ${c.order} LIMIT @cursor_limit`,
      )
      .all({
        username: like(filter.username),
        display: like(filter.displayName),
        domain: filter.byDomain?.toLowerCase() ?? null,
        email: like(filter.email),
        ip: filter.ip ?? null,
        ...c.params,
      }) as Record<string, unknown>[];
    return finishPage(rows.map(toAdminRow), page);
  }

  byAccountId(accountId: string): AdminAccountRow | null {
    const r = this.core
      .sql(
        `SELECT ${ACCOUNT_COLUMNS}, u.email AS admin_email, u.locale AS admin_locale, u.sign_up_ip AS admin_ip, u.reason AS admin_reason,
           u.created_by_application_id AS admin_app, u.last_sign_in_at AS admin_last_sign_in
         FROM accounts a LEFT JOIN users u ON u.account_id = a.id WHERE a.id = ?`,
      )
      .get(accountId) as Record<string, unknown> | undefined;
    return r ? toAdminRow(r) : null;
  }
}

function toAdminRow(r: Record<string, unknown>): AdminAccountRow {
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    account: toAccount(r),
    email: (r.admin_email as string | null) ?? null,
    locale: (r.admin_locale as string | null) ?? null,
    signUpIp: (r.admin_ip as string | null) ?? null,
    reason: (r.admin_reason as string | null) ?? null,
    createdByApplicationId: r.admin_app === null || r.admin_app === undefined ? null : String(r.admin_app),
    lastSignInAt: num(r.admin_last_sign_in),
  };
}
