import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerApp, startSocialTestServer, type SocialTestServer, type TestUser } from '../testing/harness.ts';

// The ways an authorization-code exchange goes wrong, answered as Doorkeeper (Mastodon's OAuth server) does.
let server: SocialTestServer;
let alice: TestUser;
const REDIRECT = 'https://client.example/callback';

beforeAll(async () => {
  server = await startSocialTestServer();
  alice = await server.createUser('alice');
});
afterAll(async () => {
  await server?.close();
});

const verifier = () => crypto.randomBytes(40).toString('base64url');
const challengeOf = (v: string) => crypto.createHash('sha256').update(v).digest('base64url');

/** What /oauth/authorize answers before any sign-in: a redirect carrying the error, for a registered redirect URI. */
async function authorizeError(
  query: Record<string, string>,
): Promise<{ error: string | null; description: string | null }> {
  const res = await fetch(`${server.url}/oauth/authorize?${new URLSearchParams(query)}`, { redirect: 'manual' });
  expect(res.status).toBe(302);
  const target = new URL(res.headers.get('location')!);
  expect(`${target.origin}${target.pathname}`).toBe(REDIRECT);
  return { error: target.searchParams.get('error'), description: target.searchParams.get('error_description') };
}

function grantFor(
  app: { clientId?: string | null },
  options: { challenge?: string | null; redirectUri?: string } = {},
): string {
  const store = server.social.context.store;
  const oauthApp = store.oauth.appByClientId(app.clientId!)!;
  const user = store.users.byAccountId(alice.accountId)!;
  return store.oauth.createGrant({
    applicationId: oauthApp.id,
    userId: user.id,
    redirectUri: options.redirectUri ?? REDIRECT,
    scopes: ['read'],
    codeChallenge: options.challenge ?? null,
    codeChallengeMethod: options.challenge ? 'S256' : null,
  });
}

async function exchange(
  body: Record<string, string | undefined>,
): Promise<{ status: number; body: Record<string, string> }> {
  const res = await server.fetch(`${server.url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ grant_type: 'authorization_code', ...body }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

describe('OAuth failure paths', () => {
  it('refuses the plain method, a challenge without a method, and a malformed challenge at /oauth/authorize', async () => {
    const app = await registerApp(server, { redirectUris: REDIRECT, scopes: 'read' });
    const base = {
      client_id: app.clientId!,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'read',
      state: 's1',
    };
    const good = challengeOf(verifier());
    expect(await authorizeError({ ...base, code_challenge: good, code_challenge_method: 'plain' })).toEqual({
      error: 'invalid_request',
      description: 'Only the S256 code challenge method is supported.',
    });
    expect((await authorizeError({ ...base, code_challenge: good })).error).toBe('invalid_request');
    expect(await authorizeError({ ...base, code_challenge: 'too-short!', code_challenge_method: 'S256' })).toEqual({
      error: 'invalid_request',
      description: 'The code challenge is malformed.',
    });
  });

  it('refuses a missing or wrong code_verifier with invalid_grant', async () => {
    const app = await registerApp(server, { redirectUris: REDIRECT, scopes: 'read' });
    const v = verifier();
    const missing = await exchange({
      client_id: app.clientId!,
      code: grantFor(app, { challenge: challengeOf(v) }),
      redirect_uri: REDIRECT,
    });
    expect(missing).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const wrong = await exchange({
      client_id: app.clientId!,
      code: grantFor(app, { challenge: challengeOf(v) }),
      redirect_uri: REDIRECT,
      code_verifier: verifier(),
    });
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const right = await exchange({
      client_id: app.clientId!,
      code: grantFor(app, { challenge: challengeOf(v) }),
      redirect_uri: REDIRECT,
      code_verifier: v,
    });
    expect(right.status).toBe(200);
  });

  it('refuses a redirect_uri other than the one the code was issued for', async () => {
    const app = await registerApp(server, { redirectUris: [REDIRECT, 'https://client.example/other'], scopes: 'read' });
    const r = await exchange({
      client_id: app.clientId!,
      client_secret: app.clientSecret!,
      code: grantFor(app),
      redirect_uri: 'https://client.example/other',
    });
    expect(r).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('refuses a code presented by another client, even with that client’s own secret', async () => {
    const owner = await registerApp(server, { redirectUris: REDIRECT, scopes: 'read' });
    const thief = await registerApp(server, { redirectUris: REDIRECT, scopes: 'read' });
    const r = await exchange({
      client_id: thief.clientId!,
      client_secret: thief.clientSecret!,
      code: grantFor(owner),
      redirect_uri: REDIRECT,
    });
    expect(r).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // The code stays good for its own client.
    expect(
      (
        await exchange({
          client_id: owner.clientId!,
          client_secret: owner.clientSecret!,
          code: grantFor(owner),
          redirect_uri: REDIRECT,
        })
      ).status,
    ).toBe(200);
  });

  it('refuses a client that proves nothing: no secret and no PKCE', async () => {
    const app = await registerApp(server, { redirectUris: REDIRECT, scopes: 'read' });
    const r = await exchange({ client_id: app.clientId!, code: grantFor(app), redirect_uri: REDIRECT });
    expect(r).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });
});
