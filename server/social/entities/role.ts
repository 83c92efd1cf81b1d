import type { UserRole } from '../store/index.ts';

/** Mastodon's permission bits (UserRole::FLAGS). */
export const PERMISSION = {
  administrator: 1 << 0,
  viewDevops: 1 << 1,
  viewAuditLog: 1 << 2,
  viewDashboard: 1 << 3,
  manageReports: 1 << 4,
  manageFederation: 1 << 5,
  manageSettings: 1 << 6,
  manageBlocks: 1 << 7,
  manageTaxonomies: 1 << 8,
  manageAppeals: 1 << 9,
  manageUsers: 1 << 10,
  manageInvites: 1 << 11,
  manageRules: 1 << 12,
  manageAnnouncements: 1 << 13,
  manageCustomEmojis: 1 << 14,
  manageWebhooks: 1 << 15,
  inviteUsers: 1 << 16,
  manageRoles: 1 << 17,
  manageUserAccess: 1 << 18,
  deleteUserData: 1 << 19,
} as const;

const P = PERMISSION;
const MODERATOR =
  P.viewDashboard | P.viewAuditLog | P.manageUsers | P.manageReports | P.manageTaxonomies | P.manageAppeals;
const ADMIN =
  MODERATOR |
  P.viewDevops |
  P.manageFederation |
  P.manageSettings |
  P.manageBlocks |
  P.manageInvites |
  P.manageRules |
  P.manageAnnouncements |
  P.manageCustomEmojis |
  P.manageWebhooks |
  P.manageRoles |
  P.manageUserAccess |
  P.deleteUserData;

interface RoleDefinition {
  id: string;
  name: string;
  permissions: number;
  highlighted: boolean;
}

/** The four roles, with Mastodon's ids for its seeded roles (everyone = -99). */
export const ROLES: Record<UserRole, RoleDefinition> = {
  owner: { id: '3', name: 'Owner', permissions: P.administrator | P.inviteUsers, highlighted: true },
  admin: { id: '2', name: 'Admin', permissions: ADMIN | P.inviteUsers, highlighted: true },
  moderator: { id: '1', name: 'Moderator', permissions: MODERATOR | P.inviteUsers, highlighted: true },
  user: { id: '-99', name: '', permissions: P.inviteUsers, highlighted: false },
};

export function hasPermission(role: UserRole, permission: number): boolean {
  const p = ROLES[role].permissions;
  return (p & PERMISSION.administrator) !== 0 || (p & permission) !== 0;
}

/** The Role entity (CredentialAccount.role). */
export function serializeRole(role: UserRole) {
  const r = ROLES[role];
  return { id: r.id, name: r.name, permissions: String(r.permissions), color: '', highlighted: r.highlighted };
}

/** The AccountRole entities shown on profiles: highlighted roles only. */
export function serializeAccountRoles(role: UserRole | null) {
  if (!role || !ROLES[role].highlighted) return [];
  return [{ id: ROLES[role].id, name: ROLES[role].name, color: '' }];
}
