import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SocialContext } from '../context.ts';
import { serializeToken } from '../entities/index.ts';
import { auth, currentUser, requestParams } from '../http/index.ts';
import { ALL_SCOPES, DEFAULT_SCOPES, parseScopes, withinRegistered } from '../scopes.ts';
import { clientCredentials, oauthError, param, s256, safeEqual } from './protocol.ts';

/** The machine-facing OAuth endpoints: token, revocation, userinfo and the server metadata (RFC 8414). */
export function tokenRoutes(app: FastifyInstance, ctx: SocialContext): void {
  app.post('/oauth/token', { config: { auth: auth.public() } }, async (req, reply) => {
    const params = requestParams(req);
    const grantType = param(params, 'grant_type');
    if (!grantType) throw oauthError('invalid_request', 'Missing required parameter: grant_type.');
    const { clientId, clientSecret } = clientCredentials(req, params);
    reply.header('Pragma', 'no-cache');

    if (grantType === 'client_credentials') {
      const client = clientId && clientSecret ? ctx.store.oauth.verifyClient(clientId, clientSecret) : null;
      if (!client) throw oauthError('invalid_client');
      const requested = parseScopes(param(params, 'scope'));
      const scopes = requested.length ? requested : DEFAULT_SCOPES;
      if (!scopes.every((s) => ALL_SCOPES.includes(s)) || !withinRegistered(client.scopes, scopes))
        throw oauthError('invalid_scope');
      const { token, secret } = ctx.applications.issueToken({ applicationId: client.id, userId: null, scopes });
      return serializeToken(secret, token.scopes, token.createdAt);
    }

    if (grantType === 'authorization_code') {
      const code = param(params, 'code');
      if (!code) throw oauthError('invalid_request', 'Missing required parameter: code.');
      if (!clientId) throw oauthError('invalid_client');
      const client = ctx.store.oauth.appByClientId(clientId);
      if (!client) throw oauthError('invalid_client');
      const grant = ctx.store.oauth.grantByCode(code);
      if (!grant || grant.applicationId !== client.id) throw oauthError('invalid_grant');
      const verifier = param(params, 'code_verifier');
      let clientAuthenticated =
        clientSecret !== undefined && ctx.store.oauth.verifyClient(clientId, clientSecret) !== null;
      if (clientSecret !== undefined && !clientAuthenticated) throw oauthError('invalid_client');
      if (grant.codeChallenge) {
        if (
          !verifier ||
          !/^[A-Za-z0-9._~-]{43,128}$/.test(verifier) ||
          !safeEqual(s256(verifier), grant.codeChallenge)
        ) {
          throw oauthError(
            'invalid_grant',
            'The code verifier does not match the code challenge of the authorization request.',
          );
        }
        // A matching PKCE verifier authenticates a public client that holds no secret (RFC 7636 with RFC 8252).
        clientAuthenticated = true;
      }
      if (!clientAuthenticated) throw oauthError('invalid_client');
      const redirectUri = param(params, 'redirect_uri') ?? grant.redirectUri;
      if (redirectUri !== grant.redirectUri || grant.expiresAt <= ctx.store.now()) throw oauthError('invalid_grant');
      const issued = ctx.applications.redeemGrant(grant, client.id);
      if (!issued) throw oauthError('invalid_grant');
      return serializeToken(issued.secret, issued.token.scopes, issued.token.createdAt);
    }

    // The password grant was removed in Mastodon 4.4; refresh tokens were never issued.
    throw oauthError('unsupported_grant_type');
  });

  app.post('/oauth/revoke', { config: { auth: auth.public() } }, async (req) => {
    const params = requestParams(req);
    const { clientId, clientSecret } = clientCredentials(req, params);
    const client = clientId && clientSecret ? ctx.store.oauth.verifyClient(clientId, clientSecret) : null;
    if (!client) throw oauthError('invalid_client');
    const tokenSecret = param(params, 'token');
    if (!tokenSecret) throw oauthError('invalid_request', 'Missing required parameter: token.');
    const token = ctx.store.oauth.anyTokenBySecret(tokenSecret);
    // RFC 7009: an unknown token is not an error.
    if (!token) return {};
    if (token.applicationId !== client.id) throw oauthError('unauthorized_client');
    ctx.applications.revokeToken(token.id);
    return {};
  });

  const userinfo = async (req: FastifyRequest) => {
    const { account } = currentUser(req);
    const json = ctx.presenter.one(account);
    return {
      iss: `${ctx.urls.base}/`,
      sub: json.uri,
      name: account.displayName || account.username,
      preferred_username: account.username,
      profile: json.url,
      picture: json.avatar,
    };
  };
  app.get('/oauth/userinfo', { config: { auth: auth.user('profile') } }, userinfo);
  app.post('/oauth/userinfo', { config: { auth: auth.user('profile') } }, userinfo);

  app.get(
    '/.well-known/oauth-authorization-server',
    { config: { auth: auth.public(), publicCache: true } },
    async () => ({
      issuer: `${ctx.urls.base}/`,
      service_documentation: 'https://docs.joinmastodon.org/',
      authorization_endpoint: ctx.urls.absolute('/oauth/authorize'),
      token_endpoint: ctx.urls.absolute('/oauth/token'),
      app_registration_endpoint: ctx.urls.absolute('/api/v1/apps'),
      revocation_endpoint: ctx.urls.absolute('/oauth/revoke'),
      userinfo_endpoint: ctx.urls.absolute('/oauth/userinfo'),
      scopes_supported: [...ALL_SCOPES],
      response_types_supported: ['code'],
      response_modes_supported: ['query', 'fragment', 'form_post'],
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: ['authorization_code', 'client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    }),
  );
}
