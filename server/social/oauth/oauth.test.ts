import crypto from 'node:crypto';
import { chromium, type Browser } from '@playwright/test';
import { createOAuthAPIClient, createRestAPIClient } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appToken,
  registerApp,
  startSocialTestServer,
  type SocialTestServer,
  type TestUser,
} from '../testing/harness.ts';

let server: SocialTestServer;
let browser: Browser;
let alice: TestUser;

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
const CALLBACK = 'https://app.example/callback';

beforeAll(async () => {
  server = await startSocialTestServer();
  alice = await server.createUser('alice', { role: 'owner' });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

function pkcePair() {
  const verifier = crypto.randomBytes(48).toString('base64url');
  return { verifier, challenge: crypto.createHash('sha256').update(verifier).digest('base64url') };
}

async function postJson(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await server.fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

/** Drives the real sign-in and consent pages; returns the URL the browser was sent back to (intercepted, no network). */
async function authorizeInBrowser(
  url: string,
  decision: 'Authorize' | 'Deny',
  login = alice.username,
  password = alice.password,
): Promise<string> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    let redirected: string | null = null;
    await page.route('https://app.example/**', async (route) => {
      redirected = route.request().url();
      await route.fulfill({ status: 200, contentType: 'text/html', body: '<p>back in the app</p>' });
    });
    await page.goto(url);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Username or e-mail address').fill(login);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: /Authorize Homeport tests/ }).waitFor();
    await page.getByRole('button', { name: decision }).click();
    await page.waitForURL('https://app.example/**');
    return redirected!;
  } finally {
    await context.close();
  }
}

describe('applications', () => {
  it('registers an app with redirect_uri, redirect_uris and vapid_key, and verifies its credentials', async () => {
    const app = await registerApp(server, { redirectUris: ['urn:ietf:wg:oauth:2.0:oob', CALLBACK] });
    expect(app.redirectUris).toEqual(['urn:ietf:wg:oauth:2.0:oob', CALLBACK]);
    // The deprecated singular field megalodon reads (masto's types no longer list it).
    expect((app as unknown as { redirectUri: string }).redirectUri).toBe(`urn:ietf:wg:oauth:2.0:oob\n${CALLBACK}`);
    expect(app.vapidKey).toMatch(/^[A-Za-z0-9_-]{80,}$/);
    expect(app.scopes).toEqual(['read', 'write', 'follow', 'push']);
    expect(app.clientSecretExpiresAt).toBe(0);
    const token = await appToken(server, app, 'read');
    const verified = await server.masto(token).v1.apps.verifyCredentials();
    expect(verified.name).toBe('Homeport tests');
    expect(verified).not.toHaveProperty('clientSecret');
  });

  it('rejects apps without a name or with bad redirect URIs or scopes (422 with details)', async () => {
    const res = await postJson('/api/v1/apps', {
      client_name: '',
      redirect_uris: 'not a uri',
      scopes: 'read nonsense',
    });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.details as object).sort()).toEqual(['client_name', 'redirect_uris', 'scopes']);
    expect(res.body.error).toMatch(/^Validation failed: /);
  });

  it('publishes OAuth server metadata (RFC 8414)', async () => {
    const res = await server.fetch(`${server.url}/.well-known/oauth-authorization-server`);
    const meta = (await res.json()) as Record<string, unknown>;
    expect(meta.code_challenge_methods_supported).toEqual(['S256']);
    expect(meta.grant_types_supported).toEqual(['authorization_code', 'client_credentials']);
    expect(meta.token_endpoint).toBe(`${server.url}/oauth/token`);
    expect(meta.scopes_supported).toEqual(
      expect.arrayContaining(['read', 'write:statuses', 'follow', 'push', 'admin:read:accounts', 'profile']),
    );
  });
});

describe('client credentials', () => {
  it('issues an app token through masto (JSON) and through a form body; app tokens cannot act as users', async () => {
    const app = await registerApp(server);
    const oauth = createOAuthAPIClient({ url: server.url });
    const token = await oauth.token.create({
      grantType: 'client_credentials',
      clientId: app.clientId!,
      clientSecret: app.clientSecret!,
      redirectUri: 'urn:ietf:wg:oauth:2.0:oob',
      scope: 'read write',
    });
    expect(token.tokenType).toBe('Bearer');
    expect(token.scope).toBe('read write');

    const form = await server.fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: app.clientId!,
        client_secret: app.clientSecret!,
      }).toString(),
    });
    expect(form.status).toBe(200);
    expect(((await form.json()) as { scope: string }).scope).toBe('read');

    await expect(server.masto(token.accessToken).v1.accounts.verifyCredentials()).rejects.toMatchObject({
      statusCode: 422,
      message: 'This method requires an authenticated user',
    });
  });

  it('answers OAuth errors with error and error_description', async () => {
    const app = await registerApp(server, { scopes: 'read' });
    const wrongSecret = await postJson('/oauth/token', {
      grant_type: 'client_credentials',
      client_id: app.clientId,
      client_secret: 'wrong',
    });
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.body.error).toBe('invalid_client');
    expect(wrongSecret.body.error_description).toEqual(expect.any(String));
    const outside = await postJson('/oauth/token', {
      grant_type: 'client_credentials',
      client_id: app.clientId,
      client_secret: app.clientSecret,
      scope: 'write',
    });
    expect(outside).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
    const password = await postJson('/oauth/token', {
      grant_type: 'password',
      client_id: app.clientId,
      client_secret: app.clientSecret,
      username: alice.email,
      password: alice.password,
    });
    expect(password).toMatchObject({ status: 400, body: { error: 'unsupported_grant_type' } });
    const missing = await postJson('/oauth/token', {});
    expect(missing).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
  });
});

describe('authorization code with PKCE through the sign-in and consent pages', () => {
  it('signs in, consents, redirects with code and state, and exchanges the code with the verifier', async () => {
    const app = await registerApp(server, { redirectUris: [CALLBACK, 'urn:ietf:wg:oauth:2.0:oob'] });
    const { verifier, challenge } = pkcePair();
    const authorize = new URL('/oauth/authorize', server.url);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: app.clientId!,
      redirect_uri: CALLBACK,
      scope: 'read write:accounts follow',
      state: 'state-123',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }).toString();
    const back = new URL(await authorizeInBrowser(authorize.toString(), 'Authorize'));
    expect(back.searchParams.get('state')).toBe('state-123');
    const code = back.searchParams.get('code')!;
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const wrong = await postJson('/oauth/token', {
      grant_type: 'authorization_code',
      code,
      client_id: app.clientId,
      redirect_uri: CALLBACK,
      code_verifier: pkcePair().verifier,
    });
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

    // A public client: the verifier alone authenticates it.
    const ok = await postJson('/oauth/token', {
      grant_type: 'authorization_code',
      code,
      client_id: app.clientId,
      redirect_uri: CALLBACK,
      code_verifier: verifier,
    });
    expect(ok.status).toBe(200);
    expect(ok.body.scope).toBe('read write:accounts follow');
    expect(ok.headers.get('cache-control')).toBe('private, no-store');
    const token = ok.body.access_token as string;
    const me = await server.masto(token).v1.accounts.verifyCredentials();
    expect(me.username).toBe('alice');

    // Replaying a used code fails and revokes what it issued (RFC 6749 §4.1.2).
    const replay = await postJson('/oauth/token', {
      grant_type: 'authorization_code',
      code,
      client_id: app.clientId,
      client_secret: app.clientSecret,
      redirect_uri: CALLBACK,
      code_verifier: verifier,
    });
    expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    await expect(server.masto(token).v1.accounts.verifyCredentials()).rejects.toMatchObject({ statusCode: 401 });
  });

  it('shows the code on the page for urn:ietf:wg:oauth:2.0:oob, which megalodon exchanges', async () => {
    const megalodon = server.megalodon();
    const appData = await megalodon.registerApp('Homeport tests', { scopes: ['read', 'write', 'follow'] });
    expect(appData.url).toContain('/oauth/authorize?');
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(appData.url!);
    await page.getByLabel('Username or e-mail address').fill(alice.email);
    await page.getByLabel('Password').fill(alice.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Read all your account data').waitFor();
    await page.getByRole('button', { name: 'Authorize' }).click();
    const code = (await page.locator('#authorization-code').textContent())!.trim();
    await context.close();
    const token = await megalodon.fetchAccessToken(appData.client_id, appData.client_secret, code);
    const me = await server.megalodon(token.access_token).verifyAccountCredentials();
    expect(me.data.username).toBe('alice');
  });

  it('redirects with access_denied when the user denies, and rejects bad sign-ins and scopes', async () => {
    const app = await registerApp(server, { redirectUris: CALLBACK, scopes: 'read' });
    const base = { response_type: 'code', client_id: app.clientId!, redirect_uri: CALLBACK, state: 's' };
    const denied = new URL(
      await authorizeInBrowser(
        `${server.url}/oauth/authorize?${new URLSearchParams({ ...base, scope: 'read' })}`,
        'Deny',
      ),
    );
    expect(denied.searchParams.get('error')).toBe('access_denied');
    expect(denied.searchParams.get('state')).toBe('s');

    const invalidScope = await server.fetch(
      `${server.url}/oauth/authorize?${new URLSearchParams({ ...base, scope: 'write' })}`,
      { redirect: 'manual' },
    );
    expect(invalidScope.status).toBe(302);
    expect(new URL(invalidScope.headers.get('location')!).searchParams.get('error')).toBe('invalid_scope');

    const unknownClient = await server.fetch(
      `${server.url}/oauth/authorize?response_type=code&client_id=nope&redirect_uri=${encodeURIComponent(CALLBACK)}`,
    );
    expect(unknownClient.status).toBe(400);
    expect(unknownClient.headers.get('content-type')).toMatch(/text\/html/);

    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}/oauth/authorize?${new URLSearchParams({ ...base, scope: 'read' })}`);
    await page.getByLabel('Username or e-mail address').fill('alice');
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await page.getByRole('alert').textContent()).toBe('Invalid username, e-mail address or password.');
    await context.close();
  });
});

describe('revocation', () => {
  it('revokes own tokens (idempotently) and refuses other apps’ tokens', async () => {
    const app = await registerApp(server);
    const other = await registerApp(server);
    const oauth = createOAuthAPIClient({ url: server.url });
    const token = await appToken(server, app, 'read');
    const otherToken = await appToken(server, other, 'read');
    const refused = await postJson('/oauth/revoke', {
      client_id: app.clientId,
      client_secret: app.clientSecret,
      token: otherToken,
    });
    expect(refused).toMatchObject({ status: 403, body: { error: 'unauthorized_client' } });
    await oauth.revoke({ clientId: app.clientId!, clientSecret: app.clientSecret!, token });
    const again = await postJson('/oauth/revoke', { client_id: app.clientId, client_secret: app.clientSecret, token });
    expect(again).toMatchObject({ status: 200, body: {} });
    await expect(
      createRestAPIClient({ url: server.url, accessToken: token }).v1.apps.verifyCredentials(),
    ).rejects.toMatchObject({ statusCode: 401 });
    await expect(server.masto(otherToken).v1.apps.verifyCredentials()).resolves.toMatchObject({
      name: 'Homeport tests',
    });
  });
});
