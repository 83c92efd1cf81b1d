/* The account as the store hands it out: a leaf module, so the repositories can share it without a cycle. */

export const USER_ROLES = ['owner', 'admin', 'moderator', 'user'] as const;
export type UserRole = (typeof USER_ROLES)[number];

export interface ProfileField {
  name: string;
  value: string;
  verified_at: string | null;
}

/** The state of the user behind a local account, as far as account queries need it. */
export interface LocalUserState {
  userId: string;
  confirmed: boolean;
  approved: boolean;
  disabled: boolean;
  role: UserRole;
}

export interface Account {
  id: string;
  username: string;
  /** null for local accounts */
  domain: string | null;
  uri: string | null;
  url: string | null;
  actorType: string;
  displayName: string;
  note: string;
  fields: ProfileField[];
  avatarFile: string | null;
  avatarRemoteUrl: string | null;
  avatarDescription: string;
  headerFile: string | null;
  headerRemoteUrl: string | null;
  headerDescription: string;
  locked: boolean;
  discoverable: boolean | null;
  indexable: boolean;
  hideCollections: boolean | null;
  memorial: boolean;
  movedToAccountId: string | null;
  alsoKnownAs: string[];
  attributionDomains: string[];
  inboxUrl: string | null;
  sharedInboxUrl: string | null;
  outboxUrl: string | null;
  followersUrl: string | null;
  followingUrl: string | null;
  featuredUrl: string | null;
  suspendedAt: number | null;
  silencedAt: number | null;
  /** Staff marked all its media sensitive. */
  sensitizedAt: number | null;
  deletedAt: number | null;
  createdAt: number;
  updatedAt: number;
  /** null for remote accounts */
  user: LocalUserState | null;
}

export interface AccountCounts {
  statuses: number;
  followers: number;
  following: number;
  lastStatusAt: number | null;
}
