import crypto from 'node:crypto';
import type * as grpc from '@grpc/grpc-js';
import type { Caller, EventLogTokens, EventLogUsers, Principal } from '../store/index.ts';
import { Errors } from './errors.ts';

/**
 * Who a call comes from. Over TLS: `authorization: Basic base64(user:password)` checked against the
 * event log's users (the same accounts, cache and failure throttle as TCP), or `authorization: Bearer <token>`
 * with a token Homeport issued to one of them (store/access-tokens.ts); no header = the anonymous
 * user, with the same stream ACLs as TCP. In cleartext mode (--grpc-insecure) authentication and
 * authorization are off, as KurrentDB's --insecure: the Node client sends no credentials without TLS,
 * and every call runs with full rights (Homeport refuses that mode on a non-loopback address).
 */
export const INSECURE_PRINCIPAL: Principal = Object.freeze({
  name: '$insecure',
  groups: Object.freeze(['$admins']),
});

export type Authenticator = (call: { metadata: grpc.Metadata; getPeer(): string }) => Promise<Caller>;

function peerAddress(peer: string): string {
  // "ipv4:127.0.0.1:5000", "127.0.0.1:5000" or "[::1]:5000"
  const bare = peer.replace(/^ipv[46]:/, '');
  const v6 = /^\[(.*)\]:\d+$/.exec(bare);
  if (v6) return v6[1];
  return bare.replace(/:\d+$/, '');
}

/** The accounts and tokens an `authorization` header is checked against. */
export interface Credentials {
  users: EventLogUsers;
  tokens: EventLogTokens;
}

export function createAuthenticator(credentials: Credentials, secure: boolean): Authenticator {
  if (!secure) return async () => INSECURE_PRINCIPAL;
  // Calls opened together with the same credentials share one password check: a client opening a thousand
  // subscriptions at once must not cost a thousand scrypt runs before the first answer is cached.
  const inFlight = new Map<string, Promise<Caller>>();
  return async (call) => {
    const values = call.metadata.get('authorization');
    if (values.length === 0) return null;
    const header = String(values[0]);
    const key = `${crypto.createHash('sha256').update(header).digest('base64')} ${peerAddress(call.getPeer())}`;
    let check = inFlight.get(key);
    if (!check) {
      check = checkHeader(credentials, header, peerAddress(call.getPeer())).finally(() => inFlight.delete(key));
      inFlight.set(key, check);
    }
    return check;
  };
}

/**
 * The principal an `authorization` header names (Basic or Bearer), for gRPC calls and the HTTP API on the same
 * port; throws UNAUTHENTICATED (the clients' AccessDeniedError) when it names none. `from`: the client's address.
 */
export async function checkHeader({ users, tokens }: Credentials, header: string, from: string): Promise<Principal> {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (bearer) {
    // A 256-bit random token: no password to guess, so no throttle; the failure says nothing of why.
    const principal = tokens.authenticate(bearer[1]);
    if (!principal) throw Errors.unauthenticated('Invalid, expired or revoked access token.');
    return principal;
  }
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!basic) throw Errors.unauthenticated('Unsupported authorization scheme; use Basic or Bearer.');
  const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw Errors.unauthenticated('Malformed Basic credentials.');
  const principal = await users.authenticate(decoded.slice(0, colon), decoded.slice(colon + 1), from);
  if (!principal) throw Errors.unauthenticated('Bad username or password.');
  return principal;
}
