import crypto from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface UiPrincipal {
  name: string;
  /** How the owner proved who they are. */
  via: 'app-token' | 'eventlog-admin' | 'social-owner';
}

/** Verifies owner credentials for the UI API; returns null when they are wrong or not an owner's. */
export type UiCredentialCheck = (username: string, password: string) => Promise<UiPrincipal | null>;

const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/**
 * Bearer tokens for the UI's own API. The Electron main process gets a token minted at start
 * (handed to the renderer by the preload); a browser signs in with owner credentials for a session token.
 */
export class UiSessions {
  private sessions = new Map<string, { principal: UiPrincipal; expiresAt: number }>();

  mint(principal: UiPrincipal, ttlMs: number = SESSION_TTL_MS): string {
    const token = crypto.randomBytes(32).toString('base64url');
    this.sessions.set(token, { principal, expiresAt: Date.now() + ttlMs });
    return token;
  }

  verify(token: string | undefined): UiPrincipal | null {
    if (!token) return null;
    const s = this.sessions.get(token);
    if (!s) return null;
    if (s.expiresAt < Date.now()) {
      this.sessions.delete(token);
      return null;
    }
    return s.principal;
  }

  revoke(token: string): void {
    this.sessions.delete(token);
  }
}

/** Token from `Authorization: Bearer …`, or `?access_token=` for WebSockets (browsers cannot set headers there). */
export function tokenOf(req: FastifyRequest): string | undefined {
  const header = req.headers.authorization;
  if (header?.startsWith('Bearer ')) return header.slice(7).trim();
  const q = (req.query as Record<string, unknown> | undefined)?.access_token;
  return typeof q === 'string' ? q : undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    uiPrincipal?: UiPrincipal;
  }
}

export function requireOwner(sessions: UiSessions) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const principal = sessions.verify(tokenOf(req));
    if (!principal) return reply.code(401).send({ error: 'Sign in as the owner to use this API' });
    req.uiPrincipal = principal;
  };
}
