import net from 'node:net';
import { isPrivateAddress } from '../../security/index.ts';

/*
 * Media of other servers (attachments, avatars, headers) are links to their origin that clients load
 * themselves, on the user's machine and network. A remote server must not make them load an address of that
 * network (a router's page, a local service), nor an SVG as an image (a document with its own links and
 * scripts, which Mastodon never serves as one). Only https links to public hosts are handed out (http too
 * where the server runs for tests); the rest as Mastodon shows media it could not fetch: the default avatar
 * and header, an attachment of unknown type.
 */

export interface RemoteMediaRules {
  /** Tests only: plain http links pass too (the recorded payloads of older servers use them). */
  allowHttp: boolean;
}

export const STRICT_REMOTE_MEDIA: RemoteMediaRules = { allowHttp: false };

/** Names that never lead to a public host: loopback, mDNS, home and internal networks (RFC 6761, 6762, 8375). */
const LOCAL_SUFFIXES = ['.localhost', '.local', '.internal', '.lan', '.home', '.home.arpa', '.intranet', '.corp'];

/** Whether clients may be pointed at `url` as media of another server. */
export function isPublicMediaUrl(url: string, rules: RemoteMediaRules): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'https:' && !(rules.allowHttp && parsed.protocol === 'http:')) return false;
  if (parsed.username || parsed.password) return false;
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (net.isIP(host) !== 0) return !isPrivateAddress(host);
  // The same name with its root's dot ("localhost.").
  const name = host.endsWith('.') ? host.slice(0, -1) : host;
  // A single-label name ("router", "nas") resolves only on the local network.
  if (!name.includes('.')) return false;
  return !LOCAL_SUFFIXES.some((suffix) => name.endsWith(suffix));
}

/** Whether media is SVG, by its declared type or, when it has none (avatars), its address's extension. */
export function isSvg(url: string, contentType: string | null = null): boolean {
  if (contentType && /^image\/svg/i.test(contentType.trim())) return true;
  try {
    return /\.svgz?$/i.test(new URL(url).pathname);
  } catch {
    return false;
  }
}

/** A remote image's address as clients may load it (public, not SVG), or null. */
export function publicImageUrl(url: string | null, rules: RemoteMediaRules): string | null {
  return url && isPublicMediaUrl(url, rules) && !isSvg(url) ? url : null;
}
