import { hostName } from '../security/index.ts';

/**
 * Which paths other sites' pages may call (CORS), as Mastodon grants it: the Mastodon API, the OAuth token
 * endpoints, discovery documents and ActivityPub profiles, the things browser clients such as Elk and Phanpy
 * read from another origin. The UI's own API and pages are never among them: a page elsewhere must not be able
 * to drive them (sign-in attempts would count against the owner's address).
 */
export function allowsCrossOrigin(url: string): boolean {
  const path = decodedPath(url);
  if (path === null || path.startsWith(UI_API_PATH)) return false;
  return CROSS_ORIGIN_PREFIXES.some((prefix) => path.startsWith(prefix)) || CROSS_ORIGIN_PATHS.has(path);
}

/**
 * Whether a request URL is the UI's own API (every version of it). The router undoes percent-encoding
 * (`/api/%68omeport/…` reaches the same routes), so the check does too; a path that cannot be decoded counts
 * as the UI's, so it gets the stricter treatment.
 */
export function isUiApiPath(url: string): boolean {
  const path = decodedPath(url);
  return path === null || path.startsWith(UI_API_PATH);
}

const UI_API_PATH = '/api/homeport/';

function decodedPath(url: string): string | null {
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  // Every request asks (the Host and Origin hook, CORS): most paths have nothing to decode.
  if (!path.includes('%')) return path;
  try {
    return decodeURIComponent(path);
  } catch {
    return null;
  }
}

const CROSS_ORIGIN_PREFIXES = ['/api/', '/.well-known/', '/nodeinfo/', '/users/', '/@'];
const CROSS_ORIGIN_PATHS = new Set(['/oauth/token', '/oauth/revoke', '/oauth/userinfo']);

/**
 * Whether a request's `Origin` is this server's own: absent (clients that are not browsers, and browsers on
 * same-origin GETs), the `Host` the request was sent to (already checked against the served names), or one of
 * the configured names (the public address behind a reverse proxy, which may rewrite `Host`). `null` (sandboxed
 * frames, files) and every other site are foreign.
 */
export function isOwnOrigin(
  origin: string | undefined,
  host: string | undefined,
  allowedNames: readonly string[],
): boolean {
  if (origin === undefined) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  const defaultPort = url.protocol === 'https:' ? '443' : '80';
  const own = hostAndPort(url.host, defaultPort);
  if (own === null) return false;
  return [...(host === undefined ? [] : [host]), ...allowedNames].some(
    (candidate) => hostAndPort(candidate, defaultPort) === own,
  );
}

/** `name:port` of a host value, the port being the scheme's default when none is written; null when malformed. */
function hostAndPort(host: string, defaultPort: string): string | null {
  const name = hostName(host);
  if (name === null) return null;
  const port = /(?:^|[^:]):(\d{1,5})$|\]:(\d{1,5})$/.exec(host.trim());
  return `${name}:${port?.[1] ?? port?.[2] ?? defaultPort}`;
}
