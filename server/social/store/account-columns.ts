/* The accounts table as SQL sees it (columns, the listed condition) and the mapping of its rows to Account. */
import type { Account, ProfileField, UserRole } from './account-row.ts';
import { bool, boolOrNull, idOrNull, int, intOrNull, jsonOr, str } from './store.ts';

/**
 * Every account column except the key pair: PEM keys are kilobytes per row and only signing needs them
 * (AccountRepository.keyPair), so listings do not copy them into every Account.
 */
const ACCOUNT_FIELDS = [
  'id',
  'username',
  'domain',
  'uri',
  'url',
  'actor_type',
  'display_name',
  'note',
  'fields',
  'avatar_file',
  'avatar_remote_url',
  'avatar_description',
  'header_file',
  'header_remote_url',
  'header_description',
  'locked',
  'discoverable',
  'indexable',
  'hide_collections',
  'memorial',
  'moved_to_account_id',
  'also_known_as',
  'attribution_domains',
  'inbox_url',
  'shared_inbox_url',
  'outbox_url',
  'followers_url',
  'following_url',
  'featured_url',
  'suspended_at',
  'silenced_at',
  'sensitized_at',
  'deleted_at',
  'last_webfingered_at',
  'fetched_at',
  'created_at',
  'updated_at',
];
export const ACCOUNT_ROW = ACCOUNT_FIELDS.map((c) => `a.${c}`).join(', ');
export const ACCOUNT_COLUMNS = `${ACCOUNT_ROW}, u.id AS u_id, u.confirmed_at AS u_confirmed_at, u.approved AS u_approved, u.disabled AS u_disabled, u.role AS u_role`;
export const ACCOUNT_FROM = `accounts a LEFT JOIN users u ON u.account_id = a.id`;
/** Accounts the REST API may show: not deleted, and local ones confirmed and approved. Suspended ones are shown empty. */
export const ACCOUNT_LISTED = `a.deleted_at IS NULL AND (a.domain IS NOT NULL OR (u.confirmed_at IS NOT NULL AND u.approved = 1))`;

export function toAccount(r: Record<string, unknown>): Account {
  return {
    id: str(r.id),
    username: r.username as string,
    domain: (r.domain as string | null) ?? null,
    uri: (r.uri as string | null) ?? null,
    url: (r.url as string | null) ?? null,
    actorType: r.actor_type as string,
    displayName: r.display_name as string,
    note: r.note as string,
    fields: jsonOr<ProfileField[]>(r.fields, []),
    avatarFile: (r.avatar_file as string | null) ?? null,
    avatarRemoteUrl: (r.avatar_remote_url as string | null) ?? null,
    avatarDescription: r.avatar_description as string,
    headerFile: (r.header_file as string | null) ?? null,
    headerRemoteUrl: (r.header_remote_url as string | null) ?? null,
    headerDescription: r.header_description as string,
    locked: bool(r.locked),
    discoverable: boolOrNull(r.discoverable),
    indexable: bool(r.indexable),
    hideCollections: boolOrNull(r.hide_collections),
    memorial: bool(r.memorial),
    movedToAccountId: idOrNull(r.moved_to_account_id),
    alsoKnownAs: jsonOr<string[]>(r.also_known_as, []),
    attributionDomains: jsonOr<string[]>(r.attribution_domains, []),
    inboxUrl: (r.inbox_url as string | null) ?? null,
    sharedInboxUrl: (r.shared_inbox_url as string | null) ?? null,
    outboxUrl: (r.outbox_url as string | null) ?? null,
    followersUrl: (r.followers_url as string | null) ?? null,
    followingUrl: (r.following_url as string | null) ?? null,
    featuredUrl: (r.featured_url as string | null) ?? null,
    suspendedAt: intOrNull(r.suspended_at),
    silencedAt: intOrNull(r.silenced_at),
    sensitizedAt: intOrNull(r.sensitized_at),
    deletedAt: intOrNull(r.deleted_at),
    createdAt: int(r.created_at),
    updatedAt: int(r.updated_at),
    user:
      r.u_id === null || r.u_id === undefined
        ? null
        : {
            userId: str(r.u_id),
            confirmed: r.u_confirmed_at !== null,
            approved: bool(r.u_approved),
            disabled: bool(r.u_disabled),
            role: r.u_role as UserRole,
          },
  };
}

/** An account the REST API may show (see ACCOUNT_LISTED). */
export function isListed(a: Account): boolean {
  if (a.deletedAt !== null) return false;
  if (a.domain !== null) return true;
  return a.user?.confirmed === true && a.user.approved;
}
