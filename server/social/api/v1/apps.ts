// https://docs.joinmastodon.org/methods/apps/
import type { FastifyInstance } from 'fastify';
import type { SocialContext } from '../../context.ts';
import { serializeApplication, serializeCredentialApplication } from '../../entities/index.ts';
import { DetailsCollector } from '../../errors.ts';
import { auth, requestParams } from '../../http/index.ts';
import { OOB_REDIRECT } from '../../oauth/index.ts';
import { DEFAULT_SCOPES, isKnownScope, parseScopes } from '../../scopes.ts';

const NAME_MAX = 60;
const URI_MAX = 2000;

/** A redirect URI must be absolute (any scheme, so native apps may use their own) and carry no fragment. */
function validRedirectUri(uri: string): boolean {
  if (uri === OOB_REDIRECT) return true;
  if (uri.length > URI_MAX) return false;
  try {
    const parsed = new URL(uri);
    return parsed.protocol.length > 1 && parsed.hash === '' && !/^(javascript|data|vbscript):$/i.test(parsed.protocol);
  } catch {
    return false;
  }
}

export function appRoutes(app: FastifyInstance, ctx: SocialContext): void {
  app.post('/api/v1/apps', { config: { auth: auth.public() } }, async (req) => {
    const params = requestParams(req);
    const details = new DetailsCollector();
    const name = typeof params.client_name === 'string' ? params.client_name.trim() : '';
    if (!name) details.add('client_name', 'ERR_BLANK', "can't be blank");
    else if (name.length > NAME_MAX)
      details.add('client_name', 'ERR_TOO_LONG', `is too long (maximum is ${NAME_MAX} characters)`);

    const rawUris = params.redirect_uris;
    const uris = (Array.isArray(rawUris) ? rawUris : typeof rawUris === 'string' ? rawUris.split(/\r?\n/) : [])
      .map((u) => (typeof u === 'string' ? u.trim() : ''))
      .filter(Boolean);
    if (uris.length === 0) details.add('redirect_uris', 'ERR_BLANK', "can't be blank");
    else if (!uris.every(validRedirectUri))
      details.add('redirect_uris', 'ERR_INVALID', 'must be absolute URIs without a fragment');

    const scopes =
      typeof params.scopes === 'string'
        ? parseScopes(params.scopes)
        : Array.isArray(params.scopes)
          ? parseScopes(params.scopes.join(' '))
          : DEFAULT_SCOPES;
    const unknown = scopes.filter((s) => !isKnownScope(s));
    if (unknown.length) details.add('scopes', 'ERR_INVALID', `contains unknown scopes: ${unknown.join(', ')}`);

    let website: string | null = null;
    if (typeof params.website === 'string' && params.website.trim()) {
      website = params.website.trim();
      try {
        const u = new URL(website);
        if (!['http:', 'https:'].includes(u.protocol) || website.length > URI_MAX) throw new Error('bad scheme');
      } catch {
        details.add('website', 'ERR_INVALID', 'must be an http(s) URL');
      }
    }
    details.throwIfAny();
    const { app: created, clientSecret } = ctx.applications.register({
      name,
      website,
      redirectUris: [...new Set(uris)],
      scopes: scopes.length ? scopes : DEFAULT_SCOPES,
    });
    return serializeCredentialApplication(created, clientSecret, ctx.vapidPublicKey);
  });

  app.get('/api/v1/apps/verify_credentials', { config: { auth: auth.app() } }, async (req) =>
    serializeApplication(req.principal!.app, ctx.vapidPublicKey),
  );
}
