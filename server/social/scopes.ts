/*
 * OAuth scopes as Mastodon 4.5 defines them (docs api/oauth-scopes): umbrella scopes grant all their
 * granular children, and the deprecated `follow` still grants the block/follow/mute parts of read and write.
 */
export const READ_SCOPES = [
  'read:accounts',
  'read:blocks',
  'read:bookmarks',
  'read:collections',
  'read:favourites',
  'read:filters',
  'read:follows',
  'read:lists',
  'read:mutes',
  'read:notifications',
  'read:search',
  'read:statuses',
] as const;

export const WRITE_SCOPES = [
  'write:accounts',
  'write:blocks',
  'write:bookmarks',
  'write:collections',
  'write:conversations',
  'write:favourites',
  'write:filters',
  'write:follows',
  'write:lists',
  'write:media',
  'write:mutes',
  'write:notifications',
  'write:reports',
  'write:statuses',
] as const;

const ADMIN_SUBJECTS = [
  'accounts',
  'reports',
  'domain_allows',
  'domain_blocks',
  'ip_blocks',
  'email_domain_blocks',
  'canonical_email_blocks',
] as const;
export const ADMIN_READ_SCOPES = ADMIN_SUBJECTS.map((s) => `admin:read:${s}`);
export const ADMIN_WRITE_SCOPES = ADMIN_SUBJECTS.map((s) => `admin:write:${s}`);

/** Children the deprecated `follow` scope still covers. */
export const FOLLOW_COVERS: readonly string[] = [
  'read:blocks',
  'read:follows',
  'read:mutes',
  'write:blocks',
  'write:follows',
  'write:mutes',
];

export const ALL_SCOPES: readonly string[] = [
  'profile',
  'read',
  'write',
  'push',
  'follow',
  'admin:read',
  'admin:write',
  ...READ_SCOPES,
  ...WRITE_SCOPES,
  ...ADMIN_READ_SCOPES,
  ...ADMIN_WRITE_SCOPES,
];

export const DEFAULT_SCOPES = ['read'];

export function isKnownScope(scope: string): boolean {
  return ALL_SCOPES.includes(scope);
}

/** Splits a scope string (space or "+" separated, as clients send it). */
export function parseScopes(raw: string | null | undefined): string[] {
  if (!raw) return [];
  return [...new Set(raw.split(/[\s+]+/).filter(Boolean))];
}

/** Does a token holding `held` satisfy one scope `required`? */
export function grants(held: readonly string[], required: string): boolean {
  if (held.includes(required)) return true;
  const [head, second] = required.split(':');
  if (head === 'read' || head === 'write') {
    if (held.includes(head)) return true;
    if (held.includes('follow') && FOLLOW_COVERS.includes(required)) return true;
  }
  if (head === 'admin' && (second === 'read' || second === 'write') && held.includes(`admin:${second}`)) return true;
  return false;
}

/** True when the token satisfies any one of the alternatives (an empty list needs no scope). */
export function grantsAny(held: readonly string[], alternatives: readonly string[]): boolean {
  return alternatives.length === 0 || alternatives.some((s) => grants(held, s));
}

/** Is every scope in `requested` within what an application registered (umbrellas cover children)? */
export function withinRegistered(registered: readonly string[], requested: readonly string[]): boolean {
  return requested.every((s) => grants(registered, s));
}
