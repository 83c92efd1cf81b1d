import { desktopBridge } from '../desktop-bridge.ts';

/*
 * How the social client signs in: OAuth 2.0 with PKCE, as any third-party Mastodon app, against this Homeport
 * or any other Mastodon-compatible server. Tokens are kept per server: in the desktop app by the main process
 * (encrypted with the system's keychain), in a browser in this origin's storage.
 */

export const SCOPES = 'read write follow';
const PENDING_KEY = 'homeport.social.pending';
const SERVER_KEY = 'homeport.social.server';
const tokenKey = (server: string) => `homeport.social.token.${server}`;

/** What must survive the trip to the server's sign-in page and back. */
interface Pending {
  server: string;
  clientId: string;
  clientSecret: string;
  verifier: string;
  state: string;
  redirectUri: string;
}

export class SignInError extends Error {}

function base64url(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function randomString(bytes = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

async function challengeOf(verifier: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
}

/** The page the server sends the user back to: the Social tab itself (its query carries the code). */
function redirectUri(): string {
  return `${location.origin}/ui/social`;
}

/**
 * A server address as typed ("mastodon.social", "https://example.org/", "http://127.0.0.1:8080") as an origin.
 * Plain http only for loopback addresses: a token must not cross the network in the clear.
 */
export function serverOrigin(input: string): string {
  const typed = input.trim();
  if (!typed) throw new SignInError('Enter the address of a Mastodon-compatible server');
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(typed) ? typed : `https://${typed}`);
  } catch {
    throw new SignInError(`“${typed}” is not a server address`);
  }
  // The same local addresses the page's Content-Security-Policy lets it reach over http.
  const loopback = url.hostname === 'localhost' || url.hostname === '127.0.0.1';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback))
    throw new SignInError('Use an https:// address (plain http only for this computer)');
  return url.origin;
}

/** The server the client was last signed in to (this Homeport until another is chosen). */
export function rememberedServer(): string {
  return localStorage.getItem(SERVER_KEY) ?? location.origin;
}

export async function loadToken(server: string): Promise<string | null> {
  const bridge = desktopBridge();
  if (bridge?.loadSocialToken) return bridge.loadSocialToken(server);
  return localStorage.getItem(tokenKey(server));
}

export async function saveToken(server: string, token: string | null): Promise<void> {
  if (token) localStorage.setItem(SERVER_KEY, server);
  else localStorage.removeItem(SERVER_KEY);
  const bridge = desktopBridge();
  if (bridge?.saveSocialToken) return bridge.saveSocialToken(server, token);
  if (token) localStorage.setItem(tokenKey(server), token);
  else localStorage.removeItem(tokenKey(server));
}

/**
 * Registers the app on `server` and sends the user to its authorization page. In a browser the page itself
 * goes there and comes back with the code; the desktop app keeps its window on Homeport and shows the
 * server's page in a window of its own, handing back the address it returned to (null if closed unfinished).
 */
export async function beginSignIn(server: string): Promise<URLSearchParams | null> {
  const app = await fetch(`${server}/api/v1/apps`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Homeport',
      redirect_uris: redirectUri(),
      scopes: SCOPES,
      website: location.origin,
    }),
  }).catch(() => {
    throw new SignInError(`${server} could not be reached (is the address right?)`);
  });
  if (!app.ok) throw new SignInError(`The server refused to register this app (${app.status})`);
  const { client_id: clientId, client_secret: clientSecret } = (await app.json()) as {
    client_id: string;
    client_secret: string;
  };
  const pending: Pending = {
    server,
    clientId,
    clientSecret,
    verifier: randomString(48),
    state: randomString(16),
    redirectUri: redirectUri(),
  };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: pending.redirectUri,
    scope: SCOPES,
    state: pending.state,
    code_challenge: await challengeOf(pending.verifier),
    code_challenge_method: 'S256',
  });
  const authorizeUrl = `${server}/oauth/authorize?${query.toString()}`;
  const bridge = desktopBridge();
  if (bridge?.authorize && server !== location.origin) {
    const returned = await bridge.authorize(authorizeUrl, pending.redirectUri);
    return returned ? new URL(returned).searchParams : null;
  }
  location.assign(authorizeUrl);
  return null;
}

/** Trades the code the server sent back for a token (PKCE). Null when the query carries no sign-in answer. */
export async function finishSignIn(query: URLSearchParams): Promise<{ server: string; token: string } | null> {
  const code = query.get('code');
  const raw = sessionStorage.getItem(PENDING_KEY);
  if (!raw || (!code && !query.get('error'))) return null;
  sessionStorage.removeItem(PENDING_KEY);
  const pending = JSON.parse(raw) as Pending;
  if (query.get('error'))
    throw new SignInError(
      `The server did not authorize the client (${query.get('error_description') ?? query.get('error')})`,
    );
  if (query.get('state') !== pending.state)
    throw new SignInError('The sign-in answer did not match the request (state); please sign in again.');
  const res = await fetch(`${pending.server}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      grant_type: 'authorization_code',
      code,
      client_id: pending.clientId,
      client_secret: pending.clientSecret,
      redirect_uri: pending.redirectUri,
      code_verifier: pending.verifier,
      scope: SCOPES,
    }),
  });
  if (!res.ok) throw new SignInError(`The server did not grant a token (${res.status})`);
  const { access_token: token } = (await res.json()) as { access_token: string };
  await saveToken(pending.server, token);
  return { server: pending.server, token };
}
