/** OAuth 2 protocol pieces shared by the authorization and token endpoints: errors, parameters, client credentials. */
import crypto from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';

export const OOB_REDIRECT = 'urn:ietf:wg:oauth:2.0:oob';

export const DESCRIPTIONS = {
  invalid_request:
    'The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.',
  invalid_client:
    'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
  invalid_grant:
    'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
  unsupported_grant_type: 'The authorization grant type is not supported by the authorization server.',
  invalid_scope: 'The requested scope is invalid, unknown, or malformed.',
  unauthorized_client: 'You are not authorized to revoke this token',
} as const;

/** RFC 6749 error: `{"error": code, "error_description": …}`; invalid_client is a 401. */
export function oauthError(code: keyof typeof DESCRIPTIONS, description?: string, status?: number): ApiError {
  return new ApiError(status ?? (code === 'invalid_client' ? 401 : code === 'unauthorized_client' ? 403 : 400), code, {
    error_description: description ?? DESCRIPTIONS[code],
  });
}

export function param(params: Record<string, unknown>, name: string): string | undefined {
  const v = params[name];
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}

/** Client credentials from the body (client_secret_post) or an HTTP Basic header (client_secret_basic). */
export function clientCredentials(
  req: FastifyRequest,
  params: Record<string, unknown>,
): { clientId?: string; clientSecret?: string } {
  const header = req.headers.authorization;
  if (header && /^Basic\s+/i.test(header)) {
    const decoded = Buffer.from(header.replace(/^Basic\s+/i, ''), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0)
      return {
        clientId: decodeURIComponent(decoded.slice(0, colon)),
        clientSecret: decodeURIComponent(decoded.slice(colon + 1)),
      };
  }
  return { clientId: param(params, 'client_id'), clientSecret: param(params, 'client_secret') };
}

export function s256(verifier: string): string {
  return crypto.createHash('sha256').update(verifier).digest('base64url');
}

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

/** `uri` with `values` added to its query (null values left out). */
export function withQuery(uri: string, values: Record<string, string | null>): string {
  const url = new URL(uri);
  for (const [k, v] of Object.entries(values)) if (v !== null) url.searchParams.set(k, v);
  return url.toString();
}
