import crypto from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UiPrincipal } from './principal.ts';
import { hashToken, MemoryUiSessionStore, type UiSessionStore } from './session-store.ts';

export type { UiPrincipal } from './principal.ts';

/** Verifies owner credentials for the UI API; returns null when they are wrong or not an owner's. `from`: the client address. */
export type UiCredentialCheck = (username: string, password: string, from: string) => Promise<UiPrincipal | null>;

/** Where the UI API is mounted. */
export const UI_API_PREFIX = '/api/homeport/v1';

export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
const MAX_SESSIONS = 1000;

export interface UiSessionsOptions {
  now?: () => number;
  /**
   * The current credential state of a principal (e.g. a digest of its password hash and groups), or null when
   * it may no longer sign in (removed, disabled, no longer an administrator). A session whose stamp changed
   * since sign-in has ended: removing a user, disabling it or changing its password signs it out everywhere.
   */
  credentialStamp?: (principal: UiPrincipal) => string | null;
  /** Where signed-in sessions are kept (the server's: a file in the data directory); in memory when not given. */
  store?: UiSessionStore;
}

/**
 * Bearer tokens for the UI's own API. The Electron main process mints short-lived tokens for its window (the
 * preload hands them over and a new one is asked for when one ends); a browser signs in with owner credentials.
 */
export class UiSessions {
  /** Sessions of people who signed in: kept across restarts when the store is a file. */
  private readonly signedIn: UiSessionStore;
  /** App tokens (the desktop window's, the one minted at start) die with the process that minted them. */
  private readonly appTokens = new MemoryUiSessionStore();
  private readonly now: () => number;
  private readonly stampOf: (principal: UiPrincipal) => string | null;

  constructor(options: UiSessionsOptions = {}) {
    this.now = options.now ?? Date.now;
    this.stampOf = options.credentialStamp ?? (() => 'static');
    this.signedIn = options.store ?? new MemoryUiSessionStore();
  }

  private storeFor(principal: UiPrincipal): UiSessionStore {
    return principal.via === 'app-token' ? this.appTokens : this.signedIn;
  }

  /** A token for `principal`; throws when its credentials are not valid now. */
  mint(principal: UiPrincipal, ttlMs: number = SESSION_TTL_MS): string {
    const stamp = this.stampOf(principal);
    if (stamp === null) throw new Error(`${principal.name} may not sign in`);
    this.evictExpired();
    const store = this.storeFor(principal);
    // Bounded: the oldest sessions go first when a flood of sign-ins would grow the store without end.
    store.trim(MAX_SESSIONS - 1);
    const token = crypto.randomBytes(32).toString('base64url');
    store.put(hashToken(token), { principal, expiresAt: this.now() + ttlMs, stamp });
    return token;
  }

  verify(token: string | undefined): UiPrincipal | null {
    if (!token) return null;
    const hash = hashToken(token);
    const store = this.appTokens.get(hash) ? this.appTokens : this.signedIn;
    const s = store.get(hash);
    if (!s) return null;
    if (s.expiresAt <= this.now() || this.stampOf(s.principal) !== s.stamp) {
      store.delete(hash);
      return null;
    }
    return s.principal;
  }

  revoke(token: string): void {
    const hash = hashToken(token);
    this.appTokens.delete(hash);
    this.signedIn.delete(hash);
  }

  get size(): number {
    return this.appTokens.size + this.signedIn.size;
  }

  /** Drops every expired session (run on each sign-in, so the store never grows with dead entries). */
  evictExpired(): void {
    const now = this.now();
    this.appTokens.deleteExpired(now);
    this.signedIn.deleteExpired(now);
  }

  close(): void {
    this.signedIn.close();
  }
}

/**
 * The browser's session cookie: HttpOnly (no script reads it), SameSite=Strict (no other site's page sends
 * it) and scoped to the UI API, so a sign-in lasts across tabs and browser restarts for the session's life.
 */
export const UI_SESSION_COOKIE = 'homeport_ui_session';

/**
 * Token from `Authorization: Bearer …`, `?access_token=` for WebSockets (browsers cannot set headers there),
 * or the session cookie a browser sign-in set.
 */
export function tokenOf(req: FastifyRequest): string | undefined {
  const header = req.headers.authorization;
  if (header?.startsWith('Bearer ')) return header.slice(7).trim();
  const q = (req.query as Record<string, unknown> | undefined)?.access_token;
  if (typeof q === 'string') return q;
  const cookie = req.cookies?.[UI_SESSION_COOKIE];
  return typeof cookie === 'string' && cookie !== '' ? cookie : undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    uiPrincipal?: UiPrincipal;
  }
  interface FastifyContextConfig {
    /** The route stays open to a session that must first change the default password. */
    allowWithDefaultPassword?: boolean;
  }
}

export function requireOwner(sessions: UiSessions) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const principal = sessions.verify(tokenOf(req));
    if (!principal) return reply.code(401).send({ error: 'Sign in as the owner to use this API' });
    if (principal.mustChangePassword && !req.routeOptions.config?.allowWithDefaultPassword) {
      return reply.code(403).send({ error: 'Change the default password first', mustChangePassword: true });
    }
    req.uiPrincipal = principal;
  };
}
