import type * as grpc from '@grpc/grpc-js';
import {
  principalOfAuthorization,
  type Caller,
  type EventLogTokens,
  type EventLogUsers,
  type Principal,
} from '../store/index.ts';
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
  // Calls opened together with the same password share one check inside users.authenticate; tokens cost no scrypt.
  return async (call) => {
    const values = call.metadata.get('authorization');
    if (values.length === 0) return null;
    return checkHeader(credentials, String(values[0]), peerAddress(call.getPeer()));
  };
}

/**
 * The principal an `authorization` header names (Basic or Bearer); throws UNAUTHENTICATED (the clients'
 * AccessDeniedError) when it names none. `from`: the client's address.
 */
async function checkHeader(credentials: Credentials, header: string, from: string): Promise<Principal> {
  const result = await principalOfAuthorization(credentials, header, from);
  if ('refused' in result) throw Errors.unauthenticated(result.refused);
  return result;
}
