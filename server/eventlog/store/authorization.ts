import type { EventLogTokens } from './access-tokens.ts';
import type { Principal } from './types.ts';
import type { EventLogUsers } from './store-contract.ts';

/** Why an `authorization` header names nobody (the gRPC face says it; the HTTP face answers 401). */
export interface AuthorizationRefused {
  refused: string;
}

/**
 * Who an `authorization` header names: `Basic base64(user:password)` checked against the event log's users (their
 * cache and failure throttle), or `Bearer <token>` with a token Homeport issued to one of them. The one parser for
 * every face of the event log that reads that header (gRPC calls and the HTTP API on the same port).
 */
export async function principalOfAuthorization(
  credentials: { users: EventLogUsers; tokens?: EventLogTokens },
  header: string,
  from: string | undefined,
): Promise<Principal | AuthorizationRefused> {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (bearer) {
    // A 256-bit random token: no password to guess, so no throttle; the refusal says nothing of why.
    return credentials.tokens?.authenticate(bearer[1]) ?? { refused: 'Invalid, expired or revoked access token.' };
  }
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!basic) return { refused: 'Unsupported authorization scheme; use Basic or Bearer.' };
  const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return { refused: 'Malformed Basic credentials.' };
  const principal = await credentials.users.authenticate(decoded.slice(0, colon), decoded.slice(colon + 1), from);
  return principal ?? { refused: 'Bad username or password.' };
}
