import crypto from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { SESSION_COOKIE } from '../cookies.ts';
import type { SocialContext } from '../context.ts';
import type { RouteAuth } from '../route-auth.ts';
import { userStateError } from '../domain/index.ts';
import { ApiError, forbidden } from '../errors.ts';
import { hasPermission } from '../entities/index.ts';
import { grantsAny } from '../scopes.ts';
import type { Account, AccessToken, OAuthApp, User } from '../store/index.ts';

export { auth, type RouteAuth } from '../route-auth.ts';

export interface Principal {
  token: AccessToken;
  app: OAuthApp;
  user: User | null;
  account: Account | null;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
    /** Date (YYYY-MM-DD) the endpoint was deprecated: answered with a Deprecation header. */
    deprecated?: string;
    /** Publicly cacheable responses (instance metadata); everything else is `private, no-store`. */
    publicCache?: boolean;
    /** Files a multipart body may carry (none unless a route says so); the body is read only after the token check. */
    uploads?: { files: number; fileSize: number };
  }
  interface FastifyRequest {
    principal: Principal | null;
    /** The route's token rule has been enforced (early, from headers, or after the body for a token sent in it). */
    authChecked: boolean;
    /** Temporary files this request's multipart body was streamed to (removed when it ends). */
    uploadedFiles: string[];
  }
}

/** The bearer token a request carries before its body: Authorization header, else an access_token query parameter, else (WebSocket) the subprotocol. */
export function tokenBeforeBody(req: FastifyRequest): string | null {
  const header = req.headers.authorization;
  if (header) {
    const m = /^Bearer\s+(.+)$/i.exec(header.trim());
    return m ? m[1].trim() : null;
  }
  const q = (req.query as Record<string, unknown> | undefined)?.access_token;
  if (typeof q === 'string' && q) return q;
  // A browser's WebSocket cannot send headers: masto.js offers the token as the subprotocol (the server echoes it).
  const protocol =
    req.headers.upgrade?.toLowerCase() === 'websocket' ? req.headers['sec-websocket-protocol'] : undefined;
  return protocol ? protocol.split(',')[0].trim() || null : null;
}

/** The bearer token of a request: Authorization header, else an access_token parameter (query or body). */
export function presentedToken(req: FastifyRequest): string | null {
  if (req.headers.authorization) return tokenBeforeBody(req);
  const early = tokenBeforeBody(req);
  if (early) return early;
  const b = (req.body as Record<string, unknown> | undefined)?.access_token;
  return typeof b === 'string' && b ? b : null;
}

const INVALID_TOKEN = () =>
  new ApiError(
    401,
    'The access token is invalid',
    {},
    {
      'WWW-Authenticate':
        'Bearer realm="Doorkeeper", error="invalid_token", error_description="The access token is invalid"',
    },
  );
const OUT_OF_SCOPE = () =>
  new ApiError(
    403,
    'This action is outside the authorized scopes',
    {},
    {
      'WWW-Authenticate':
        'Bearer realm="Doorkeeper", error="insufficient_scope", error_description="The request requires higher privileges than provided by the access token."',
    },
  );

/**
 * Principals of recently seen tokens, reused while no row they are made of has been written since (the
 * store's credential stamp): a revoked token, a suspended user or a changed role is such a write, so it is
 * never served stale, while posts and favourites leave the cache alone. Saves four lookups per request.
 * Bounded by entries; keyed by the token's hash.
 */
const principalCache = new WeakMap<SocialContext, { stamp: string; entries: Map<string, Principal | null> }>();
const PRINCIPAL_CACHE_ENTRIES = 1_000;

function resolve(ctx: SocialContext, secret: string): Principal | null {
  const stamp = ctx.store.credentialStamp();
  let cache = principalCache.get(ctx);
  if (!cache || cache.stamp !== stamp) principalCache.set(ctx, (cache = { stamp, entries: new Map() }));
  const key = crypto.hash('sha256', secret, 'base64');
  if (cache.entries.has(key)) return cache.entries.get(key)!;
  const principal = lookup(ctx, secret);
  // A lookup that wrote (the token's last use) moved the stamp: cache under the new one.
  const after = ctx.store.credentialStamp();
  if (after !== cache.stamp) principalCache.set(ctx, (cache = { stamp: after, entries: new Map() }));
  if (cache.entries.size >= PRINCIPAL_CACHE_ENTRIES) cache.entries.delete(cache.entries.keys().next().value as string);
  cache.entries.set(key, principal);
  return principal;
}

function lookup(ctx: SocialContext, secret: string): Principal | null {
  const token = ctx.store.oauth.tokenBySecret(secret);
  if (!token) return null;
  const app = ctx.store.oauth.appById(token.applicationId);
  if (!app) return null;
  let user: User | null = null;
  let account: Account | null = null;
  if (token.userId) {
    user = ctx.store.users.byId(token.userId);
    account = user ? ctx.store.accounts.byId(user.accountId) : null;
    if (!user || !account) return null;
  }
  ctx.store.oauth.touchToken(token);
  return { token, app, user, account };
}

/** What a signed-in web session may do through the API: the admin API only (Mastodon's web admin), with every admin scope. */
const SESSION_SCOPES = ['admin:read', 'admin:write'];

/**
 * The principal of a signed-in browser session (the server's sign-in cookie) on an admin route. Such a
 * request must carry the session's CSRF token in X-CSRF-Token (the server's own pages hold it), so another
 * site the user visits cannot act with the cookie; bearer-token requests need none (the seed's rule).
 */
function sessionPrincipal(ctx: SocialContext, req: FastifyRequest): Principal | null {
  if (!/^\/api\/v[12]\/admin\//.test(req.url)) return null;
  const cookie = req.cookies?.[SESSION_COOKIE];
  if (!cookie) return null;
  const session = ctx.store.oauth.sessionBySecret(cookie);
  if (!session) return null;
  const presented = req.headers['x-csrf-token'];
  if (typeof presented !== 'string' || !safeEqual(presented, session.csrfToken))
    throw new ApiError(422, "Can't verify CSRF token authenticity.");
  const user = ctx.store.users.byId(session.userId);
  const account = user ? ctx.store.accounts.byId(user.accountId) : null;
  if (!user || !account) return null;
  const app = ctx.store.oauth.builtinApp();
  return {
    token: {
      id: `session:${session.id}`,
      applicationId: app.id,
      userId: user.id,
      scopes: SESSION_SCOPES,
      createdAt: 0,
      lastUsedAt: null,
      revokedAt: null,
    },
    app,
    user,
    account,
  };
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

function isMultipart(req: FastifyRequest): boolean {
  return /^multipart\//i.test(req.headers['content-type'] ?? '');
}

/**
 * onRequest: enforces the token rule before any body byte is read when the token came in a header or the
 * query (nearly always), and refuses a multipart body that brings no such token: uploads are never read for
 * a caller who may not make them. A token sent inside a small form or JSON body is checked after parsing.
 */
export function authenticateBeforeBody(ctx: SocialContext) {
  const check = authenticate(ctx);
  return (req: FastifyRequest): void => {
    const rule = req.routeOptions.config?.auth;
    if (!rule || rule.kind === 'public') return;
    if (tokenBeforeBody(req) || req.headers.authorization) return check(req);
    if (isMultipart(req) && rule.kind !== 'optional') throw INVALID_TOKEN();
  };
}

/**
 * Enforces a route's RouteAuth, in Mastodon's order: token (401), scope (403), user state (422/403); throws.
 * Synchronous (the hooks calling it make no promise per request).
 */
export function authenticate(ctx: SocialContext) {
  return (req: FastifyRequest): void => {
    if (req.authChecked) return;
    req.authChecked = true;
    const rule = req.routeOptions.config.auth;
    req.principal = null;
    if (!rule || rule.kind === 'public') return;
    const secret = presentedToken(req);
    const session = secret ? null : sessionPrincipal(ctx, req);
    if (!secret && !session) {
      if (rule.kind === 'optional') return;
      throw INVALID_TOKEN();
    }
    const principal = session ?? resolve(ctx, secret!);
    if (!principal) throw INVALID_TOKEN();
    // Verified, if not sufficient: rate limits count this caller's requests, not its address's.
    req.principal = principal;
    if (!grantsAny(principal.token.scopes, rule.scopes)) throw OUT_OF_SCOPE();
    req.principal = null;
    if (rule.kind === 'app') {
      req.principal = principal;
      return;
    }
    if (!principal.user || !principal.account) {
      if (rule.kind === 'optional') {
        req.principal = principal;
        return;
      }
      throw new ApiError(422, 'This method requires an authenticated user', { details: {} });
    }
    const state = userStateError(principal.user, principal.account);
    if (
      state &&
      !(
        rule.kind === 'user' &&
        rule.allowUnconfirmed &&
        principal.user.confirmedAt === null &&
        !principal.user.disabled &&
        principal.account.suspendedAt === null
      )
    )
      throw state;
    req.principal = principal;
  };
}

/** Whether a token still stands for an active user (long-lived connections ask again from time to time). */
export function tokenStillValid(ctx: SocialContext, secret: string): boolean {
  const principal = resolve(ctx, secret);
  return (
    principal !== null &&
    principal.user !== null &&
    principal.account !== null &&
    userStateError(principal.user, principal.account) === null
  );
}

/** The signed-in user of a `user` route (the preHandler guarantees one). */
export function currentUser(req: FastifyRequest): { user: User; account: Account; token: AccessToken; app: OAuthApp } {
  const p = req.principal;
  if (!p?.user || !p.account) throw new ApiError(422, 'This method requires an authenticated user', { details: {} });
  return { user: p.user, account: p.account, token: p.token, app: p.app };
}

/** The signed-in account of an `optional` route, or null for anonymous and app-token callers. */
export function viewer(req: FastifyRequest): Account | null {
  return req.principal?.account ?? null;
}

/** The signed-in user, who must hold a staff permission (Mastodon's role permissions); 403 otherwise. */
export function currentStaff(req: FastifyRequest, permission: number): { user: User; account: Account } {
  const { user, account } = currentUser(req);
  if (!hasPermission(user.role, permission)) throw forbidden();
  return { user, account };
}
