import crypto from 'node:crypto';
import type {
  AdminAccountRow,
  DomainBlockRow,
  IpBlockRow,
  ReportRow,
  SimpleBlockRow,
  SocialStore,
} from '../store/index.ts';
import type { AccountPresenter } from './account.ts';
import { isoTime, isoTimeOrNull } from './dates.ts';
import { serializeRole } from './role.ts';
import type { StatusPresenter } from './status.ts';

/** Admin::Account entities: the account with what only staff see of its user. */
export function presentAdminAccounts(
  accounts: AccountPresenter,
  rows: readonly AdminAccountRow[],
  defaultLocale: string,
): Record<string, unknown>[] {
  const json = accounts.present(rows.map((r) => r.account));
  return rows.map((r, i) => {
    const a = r.account;
    const user = a.user;
    return {
      id: a.id,
      username: a.username,
      domain: a.domain,
      created_at: isoTime(a.createdAt),
      email: r.email ?? '',
      ip: r.signUpIp,
      ips: r.signUpIp ? [{ ip: r.signUpIp, used_at: isoTime(r.lastSignInAt ?? a.createdAt) }] : [],
      locale: r.locale || defaultLocale,
      invite_request: r.reason,
      role: serializeRole(user?.role ?? 'user'),
      confirmed: user ? user.confirmed : true,
      approved: user ? user.approved : true,
      disabled: user ? user.disabled : false,
      silenced: a.silencedAt !== null,
      suspended: a.suspendedAt !== null,
      sensitized: a.sensitizedAt !== null,
      account: json[i],
      created_by_application_id: r.createdByApplicationId,
      invited_by_account_id: null,
    };
  });
}

export function serializeDomainBlock(b: DomainBlockRow): Record<string, unknown> {
  return {
    id: b.id,
    domain: b.domain,
    digest: crypto.createHash('sha256').update(b.domain).digest('hex'),
    created_at: isoTime(b.createdAt),
    severity: b.severity,
    reject_media: b.rejectMedia,
    reject_reports: b.rejectReports,
    private_comment: b.privateComment,
    public_comment: b.publicComment,
    obfuscate: b.obfuscate,
  };
}

export function serializeDomainAllow(a: SimpleBlockRow): Record<string, unknown> {
  return { id: a.id, domain: a.value, created_at: isoTime(a.createdAt) };
}

/** Admin::EmailDomainBlock: the blocked domain and the sign-ups with addresses there over the last week. */
export function serializeEmailDomainBlock(
  b: SimpleBlockRow,
  history: readonly { day: number; accounts: number }[],
): Record<string, unknown> {
  return {
    id: b.id,
    domain: b.value,
    created_at: isoTime(b.createdAt),
    history: history.map((h) => ({
      day: String(h.day / 1000),
      accounts: String(h.accounts),
      uses: String(h.accounts),
    })),
  };
}

export function serializeCanonicalEmailBlock(b: SimpleBlockRow): Record<string, unknown> {
  return { id: b.id, canonical_email_hash: b.value };
}

export function serializeIpBlock(b: IpBlockRow): Record<string, unknown> {
  return {
    id: b.id,
    ip: b.ip,
    severity: b.severity,
    comment: b.comment,
    created_at: isoTime(b.createdAt),
    expires_at: isoTimeOrNull(b.expiresAt),
  };
}

/** Admin::Report entities: reporter and target as Admin::Accounts, the reported statuses, the rules cited. */
export function presentAdminReports(
  store: SocialStore,
  accounts: AccountPresenter,
  statuses: StatusPresenter,
  reports: readonly ReportRow[],
): Record<string, unknown>[] {
  const ids = new Set(
    reports.flatMap((r) =>
      [r.accountId, r.targetAccountId, r.assignedAccountId, r.actionTakenByAccountId].filter(
        (id): id is string => id !== null,
      ),
    ),
  );
  const rows = [...ids].map((id) => store.adminAccounts.byAccountId(id)).filter((r) => r !== null);
  const admin = new Map(
    presentAdminAccounts(accounts, rows, defaultLocale(store)).map((json) => [json.id as string, json]),
  );
  const rules = new Map(store.rules.list().map((r) => [r.id, { id: r.id, text: r.text, hint: r.hint }]));
  return reports.map((r) => ({
    id: r.id,
    action_taken: r.actionTakenAt !== null,
    action_taken_at: isoTimeOrNull(r.actionTakenAt),
    category: r.category,
    comment: r.comment,
    forwarded: r.forwarded,
    created_at: isoTime(r.createdAt),
    updated_at: isoTime(r.updatedAt),
    account: admin.get(r.accountId),
    target_account: admin.get(r.targetAccountId),
    assigned_account: r.assignedAccountId ? (admin.get(r.assignedAccountId) ?? null) : null,
    action_taken_by_account: r.actionTakenByAccountId ? (admin.get(r.actionTakenByAccountId) ?? null) : null,
    statuses: statuses.present(store.statuses.byIds(r.statusIds), null),
    rules: r.ruleIds.flatMap((id) => rules.get(id) ?? []),
  }));
}

/** The server's first language: the locale of users who never chose one (Mastodon's default_locale). */
export function defaultLocale(store: SocialStore): string {
  return store.settings.owner('languages').split(',')[0] || 'en';
}
