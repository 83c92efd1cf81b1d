import crypto from 'node:crypto';
import { bool, idOrNull, int, intOrNull, str, type StoreCore } from './store.ts';

export function sha256(value: string): string {
  return crypto.createHash('sha256').update(value).digest('hex');
}

/** A random secret for tokens, codes and client secrets (43 URL-safe characters, 256 bits). */
export function randomSecret(): string {
  return crypto.randomBytes(32).toString('base64url');
}

export interface OAuthApp {
  id: string;
  name: string;
  website: string | null;
  redirectUris: string[];
  scopes: string[];
  clientId: string;
  clientSecretHash: string;
  builtin: boolean;
  createdAt: number;
}

function toApp(r: Record<string, unknown>): OAuthApp {
  return {
    id: str(r.id),
    name: r.name as string,
    website: (r.website as string | null) ?? null,
    redirectUris: (r.redirect_uris as string).split('\n').filter(Boolean),
    scopes: (r.scopes as string).split(' ').filter(Boolean),
    clientId: r.client_id as string,
    clientSecretHash: r.client_secret_hash as string,
    builtin: bool(r.builtin),
    createdAt: int(r.created_at),
  };
}

export interface AccessToken {
  id: string;
  applicationId: string;
  userId: string | null;
  scopes: string[];
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

function toToken(r: Record<string, unknown>): AccessToken {
  return {
    id: str(r.id),
    applicationId: str(r.application_id),
    userId: idOrNull(r.user_id),
    scopes: (r.scopes as string).split(' ').filter(Boolean),
    createdAt: int(r.created_at),
    lastUsedAt: intOrNull(r.last_used_at),
    revokedAt: intOrNull(r.revoked_at),
  };
}

/** What an authorization code is granted for: an application, a user, where to send the code, scopes, PKCE. */
export interface NewAccessGrant {
  applicationId: string;
  userId: string;
  redirectUri: string;
  scopes: string[];
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
}

export interface AccessGrant extends NewAccessGrant {
  id: string;
  expiresAt: number;
  usedAt: number | null;
}

export interface WebSession {
  id: string;
  userId: string;
  csrfToken: string;
  expiresAt: number;
}

const GRANT_TTL_MS = 10 * 60 * 1000;
const LAST_USED_RESOLUTION_MS = 60 * 1000;

/** OAuth applications, authorization codes, access tokens and the browser sessions of the consent page. */
export class OAuthRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  createApp(input: {
    name: string;
    website: string | null;
    redirectUris: string[];
    scopes: string[];
    builtin?: boolean;
  }): { app: OAuthApp; clientSecret: string } {
    const id = this.core.ids.next();
    const clientSecret = randomSecret();
    this.core
      .sql(
        `INSERT INTO oauth_applications (id, name, website, redirect_uris, scopes, client_id, client_secret_hash, builtin, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        input.name,
        input.website,
        input.redirectUris.join('\n'),
        input.scopes.join(' '),
        randomSecret(),
        sha256(clientSecret),
        input.builtin ? 1 : 0,
        this.core.now(),
      );
    return { app: this.appById(id)!, clientSecret };
  }

  appById(id: string): OAuthApp | null {
    const r = this.core.sql('SELECT * FROM oauth_applications WHERE id = ?').get(id) as
      | Record<string, unknown>
      | undefined;
    return r ? toApp(r) : null;
  }

  appByClientId(clientId: string): OAuthApp | null {
    const r = this.core.sql('SELECT * FROM oauth_applications WHERE client_id = ?').get(clientId) as
      | Record<string, unknown>
      | undefined;
    return r ? toApp(r) : null;
  }

  /** Homeport's own application, which CLI and UI tokens belong to. */
  builtinApp(): OAuthApp {
    const r = this.core.sql('SELECT * FROM oauth_applications WHERE builtin = 1 ORDER BY id LIMIT 1').get() as
      | Record<string, unknown>
      | undefined;
    if (r) return toApp(r);
    return this.createApp({
      name: 'Homeport',
      website: null,
      redirectUris: ['urn:ietf:wg:oauth:2.0:oob'],
      scopes: ['read', 'write', 'follow', 'push', 'profile', 'admin:read', 'admin:write'],
      builtin: true,
    }).app;
  }

  verifyClient(clientId: string, clientSecret: string): OAuthApp | null {
    const app = this.appByClientId(clientId);
    if (!app) return null;
    const given = Buffer.from(sha256(clientSecret));
    const stored = Buffer.from(app.clientSecretHash);
    return given.length === stored.length && crypto.timingSafeEqual(given, stored) ? app : null;
  }

  createToken(input: { applicationId: string; userId: string | null; scopes: string[]; grantId?: string | null }): {
    token: AccessToken;
    secret: string;
  } {
    const id = this.core.ids.next();
    const secret = randomSecret();
    this.core
      .sql(
        'INSERT INTO oauth_access_tokens (id, application_id, user_id, token_hash, scopes, grant_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        id,
        input.applicationId,
        input.userId,
        sha256(secret),
        input.scopes.join(' '),
        input.grantId ?? null,
        this.core.now(),
      );
    return { token: this.tokenById(id)!, secret };
  }

  tokenById(id: string): AccessToken | null {
    const r = this.core.sql('SELECT * FROM oauth_access_tokens WHERE id = ?').get(id) as
      | Record<string, unknown>
      | undefined;
    return r ? toToken(r) : null;
  }

  /** The live token for a presented secret (revoked tokens are not returned). */
  tokenBySecret(secret: string): AccessToken | null {
    const r = this.core
      .sql('SELECT * FROM oauth_access_tokens WHERE token_hash = ? AND revoked_at IS NULL')
      .get(sha256(secret)) as Record<string, unknown> | undefined;
    return r ? toToken(r) : null;
  }

  touchToken(token: AccessToken): void {
    const now = this.core.now();
    if (token.lastUsedAt !== null && now - token.lastUsedAt < LAST_USED_RESOLUTION_MS) return;
    this.core.sql('UPDATE oauth_access_tokens SET last_used_at = ? WHERE id = ?').run(now, token.id);
  }

  revokeToken(id: string): void {
    this.core
      .sql('UPDATE oauth_access_tokens SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?')
      .run(this.core.now(), id);
  }

  /** The token a secret names even when revoked (for /oauth/revoke ownership checks). */
  anyTokenBySecret(secret: string): AccessToken | null {
    const r = this.core.sql('SELECT * FROM oauth_access_tokens WHERE token_hash = ?').get(sha256(secret)) as
      | Record<string, unknown>
      | undefined;
    return r ? toToken(r) : null;
  }

  revokeUserTokens(userId: string): void {
    this.core
      .sql('UPDATE oauth_access_tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL')
      .run(this.core.now(), userId);
  }

  createGrant(input: NewAccessGrant): string {
    const code = randomSecret();
    const now = this.core.now();
    this.core
      .sql(
        `INSERT INTO oauth_access_grants (id, application_id, user_id, code_hash, redirect_uri, scopes, code_challenge, code_challenge_method, expires_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        this.core.ids.next(),
        input.applicationId,
        input.userId,
        sha256(code),
        input.redirectUri,
        input.scopes.join(' '),
        input.codeChallenge,
        input.codeChallengeMethod,
        now + GRANT_TTL_MS,
        now,
      );
    return code;
  }

  grantByCode(code: string): AccessGrant | null {
    const r = this.core.sql('SELECT * FROM oauth_access_grants WHERE code_hash = ?').get(sha256(code)) as
      | Record<string, unknown>
      | undefined;
    if (!r) return null;
    return {
      id: str(r.id),
      applicationId: str(r.application_id),
      userId: str(r.user_id),
      redirectUri: r.redirect_uri as string,
      scopes: (r.scopes as string).split(' ').filter(Boolean),
      codeChallenge: (r.code_challenge as string | null) ?? null,
      codeChallengeMethod: (r.code_challenge_method as string | null) ?? null,
      expiresAt: int(r.expires_at),
      usedAt: intOrNull(r.used_at),
    };
  }

  /** Marks a code used; false when it already was (a replayed code). */
  useGrant(id: string): boolean {
    return (
      this.core
        .sql('UPDATE oauth_access_grants SET used_at = ? WHERE id = ? AND used_at IS NULL')
        .run(this.core.now(), id).changes === 1
    );
  }

  /** RFC 6749 §4.1.2: a code used twice revokes the tokens issued for it. */
  revokeTokensOfGrant(grantId: string): void {
    this.core
      .sql('UPDATE oauth_access_tokens SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL')
      .run(this.core.now(), grantId);
  }

  createSession(input: { userId: string; ip: string | null; userAgent: string | null; ttlMs: number }): {
    secret: string;
    session: WebSession;
  } {
    const secret = randomSecret();
    const id = this.core.ids.next();
    const now = this.core.now();
    const csrf = randomSecret();
    this.core
      .sql(
        'INSERT INTO web_sessions (id, user_id, session_hash, csrf_token, ip, user_agent, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(id, input.userId, sha256(secret), csrf, input.ip, input.userAgent, now, now + input.ttlMs);
    return { secret, session: { id, userId: input.userId, csrfToken: csrf, expiresAt: now + input.ttlMs } };
  }

  sessionBySecret(secret: string): WebSession | null {
    const r = this.core
      .sql('SELECT * FROM web_sessions WHERE session_hash = ? AND expires_at > ?')
      .get(sha256(secret), this.core.now()) as Record<string, unknown> | undefined;
    return r
      ? { id: str(r.id), userId: str(r.user_id), csrfToken: r.csrf_token as string, expiresAt: int(r.expires_at) }
      : null;
  }

  deleteSession(id: string): void {
    this.core.sql('DELETE FROM web_sessions WHERE id = ?').run(id);
  }

  deleteUserSessions(userId: string): void {
    this.core.sql('DELETE FROM web_sessions WHERE user_id = ?').run(userId);
  }

  purgeExpired(): void {
    const now = this.core.now();
    this.core.sql('DELETE FROM web_sessions WHERE expires_at <= ?').run(now);
    this.core.sql('DELETE FROM oauth_access_grants WHERE expires_at <= ?').run(now - 24 * 3600 * 1000);
  }
}
