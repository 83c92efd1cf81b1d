import type { OAuthApp } from '../store/index.ts';

/** The Application entity (GET /api/v1/apps/verify_credentials). */
export function serializeApplication(app: OAuthApp, vapidKey: string) {
  return {
    id: app.id,
    name: app.name,
    website: app.website,
    scopes: app.scopes,
    redirect_uris: app.redirectUris,
    // Deprecated in Mastodon 4.3 but still read by megalodon to build the authorize URL.
    redirect_uri: app.redirectUris.join('\n'),
    vapid_key: vapidKey,
  };
}

/** CredentialApplication (POST /api/v1/apps): the only time the client secret is shown. */
export function serializeCredentialApplication(app: OAuthApp, clientSecret: string, vapidKey: string) {
  return {
    ...serializeApplication(app, vapidKey),
    client_id: app.clientId,
    client_secret: clientSecret,
    client_secret_expires_at: 0,
  };
}

/** The Token entity (POST /oauth/token and POST /api/v1/accounts). */
export function serializeToken(secret: string, scopes: readonly string[], createdAtMs: number) {
  return {
    access_token: secret,
    token_type: 'Bearer',
    scope: scopes.join(' '),
    created_at: Math.floor(createdAtMs / 1000),
  };
}
