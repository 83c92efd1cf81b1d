import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { allowsCrossOrigin, isOwnOrigin } from './cross-origin.ts';
import { useTestHomeport } from './testing/homeport.ts';

/*
 * Issue 25, finding 3: a page on any site could send the UI API JSON sign-ins (the social API's CORS answered
 * OPTIONS on every path with `Access-Control-Allow-Origin: *`), and twelve wrong ones locked the owner out.
 * CORS is for the Mastodon API and discovery documents only; the UI API refuses other sites outright.
 */
const server = useTestHomeport({ domain: 'social.example.org' });

const FOREIGN = 'https://attacker.example';
const preflight = (path: string, origin: string, method = 'POST') =>
  fetch(`${server.hp.httpUrl}${path}`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'content-type',
    },
  });
const signIn = (password: string, origin?: string) =>
  fetch(`${server.hp.httpUrl}/api/homeport/v1/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(origin ? { origin } : {}) },
    body: JSON.stringify({ username: 'admin', password }),
  });

describe('the UI API from another site', () => {
  it('gets no CORS grant on a preflight, and 403', async () => {
    for (const path of [
      '/api/homeport/v1/session',
      '/api/homeport/v1/backup',
      '/api/homeport/v1/nothing',
      '/api/%68omeport/v1/session',
    ]) {
      const res = await preflight(path, FOREIGN);
      expect(res.status, path).toBe(403);
      expect(res.headers.get('access-control-allow-origin'), path).toBeNull();
      expect(res.headers.get('access-control-allow-methods'), path).toBeNull();
    }
    // A path that cannot be decoded is refused by the router itself, granted nothing either.
    for (const path of ['/api/homeport/v1/%E0%A4%A', '/api/%E0%A4%A/v1/session']) {
      const res = await preflight(path, FOREIGN);
      expect(res.status, path).toBe(400);
      expect(res.headers.get('access-control-allow-origin'), path).toBeNull();
    }
  });

  it('gets 403 on sign-in attempts, which never count against the owner', async () => {
    for (let i = 0; i < 12; i++) {
      const res = await signIn(`guess-${i}`, FOREIGN);
      expect(res.status).toBe(403);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
    for (const origin of ['null', 'http://127.0.0.1:1', 'http://localhost:8080', 'file://'])
      expect((await signIn('wrong', origin)).status, origin).toBe(403);
    // The router undoes percent-encoding: another spelling of the path reaches the same route, and is refused too.
    for (const path of ['/api/%68omeport/v1/session', '/api/homeport/v1/%73ession', '/api/homeport/v1/session/']) {
      const res = await fetch(`${server.hp.httpUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: FOREIGN },
        body: JSON.stringify({ username: 'admin', password: 'wrong' }),
      });
      expect(res.status, path).toBe(403);
    }
    // The owner signs in from this machine: from the UI's own pages, and from a client that is not a browser.
    expect((await signIn('changeit', server.hp.httpUrl)).status).toBe(200);
    expect((await signIn('changeit')).status).toBe(200);
    const local = new URL(server.hp.httpUrl);
    // Another name for this server is another site to a browser: its pages are not the UI's.
    expect((await signIn('changeit', `http://localhost:${local.port}`)).status).toBe(403);
  });

  it('accepts the configured public address (behind a reverse proxy)', async () => {
    const res = await signIn('wrong', 'https://social.example.org');
    expect(res.status).toBe(401);
  });

  it('refuses a WebSocket upgrade from another site', async () => {
    const token = server.hp.mintUiToken();
    const url = `${server.hp.httpUrl.replace('http', 'ws')}/api/homeport/v1/eventlog/live?access_token=${token}`;
    const status = (origin: string) =>
      new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(url, { origin });
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('open', () => {
          ws.close();
          resolve(101);
        });
        ws.on('error', reject);
      });
    expect(await status(FOREIGN)).toBe(403);
    expect(await status(server.hp.httpUrl)).toBe(101);
  });
});

describe('CORS elsewhere', () => {
  it('is granted on the Mastodon API, OAuth token endpoints and discovery documents', async () => {
    for (const path of ['/api/v1/statuses', '/api/v2/search', '/oauth/token', '/oauth/revoke']) {
      const res = await preflight(path, FOREIGN);
      expect(res.status, path).toBe(204);
      expect(res.headers.get('access-control-allow-origin'), path).toBe('*');
      expect(res.headers.get('access-control-allow-methods'), path).toBe(
        'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS',
      );
      expect(res.headers.get('access-control-allow-headers'), path).toBe(
        'Authorization, Content-Type, Accept, Idempotency-Key, Cache-Control',
      );
    }
    // Browser clients read pagination and rate limits from these (Elk, Phanpy).
    const exposed = (await fetch(`${server.hp.httpUrl}/api/v1/instance`, { headers: { origin: FOREIGN } })).headers.get(
      'access-control-expose-headers',
    );
    expect(exposed?.split(', ')).toEqual(expect.arrayContaining(['Link', 'X-RateLimit-Remaining', 'Idempotency-Key']));
    for (const path of [
      '/.well-known/host-meta',
      '/.well-known/nodeinfo',
      '/nodeinfo/2.0',
      '/.well-known/webfinger?resource=acct:nobody@social.example.org',
      '/api/v1/instance',
      '/api/v1/no-such-endpoint',
    ]) {
      const res = await fetch(`${server.hp.httpUrl}${path}`, { headers: { origin: FOREIGN } });
      expect(res.headers.get('access-control-allow-origin'), path).toBe('*');
    }
  });

  it('is never granted on the UI pages', async () => {
    for (const path of ['/', '/ui/eventlog']) {
      const res = await preflight(path, FOREIGN, 'GET');
      expect(res.headers.get('access-control-allow-origin'), path).toBeNull();
      const page = await fetch(`${server.hp.httpUrl}${path}`, { headers: { origin: FOREIGN } });
      expect(page.headers.get('access-control-allow-origin'), path).toBeNull();
    }
  });
});

describe('isOwnOrigin', () => {
  it("accepts no Origin, the Host's own and the configured names; refuses every other site", () => {
    const own: [string | undefined, string, string[]][] = [
      [undefined, '127.0.0.1:3000', []],
      ['http://127.0.0.1:3000', '127.0.0.1:3000', []],
      ['http://127.0.0.1', '127.0.0.1', []],
      ['http://[::1]:3000', '[::1]:3000', []],
      ['https://social.example.org', '127.0.0.1:3000', ['social.example.org']],
      ['http://localhost:3000', '127.0.0.1:3000', ['localhost:3000']],
    ];
    for (const [origin, host, names] of own) expect(isOwnOrigin(origin, host, names), String(origin)).toBe(true);
    const foreign: [string, string, string[]][] = [
      ['http://127.0.0.1:8080', '127.0.0.1:3000', []],
      // A Host without a port is the scheme's default port, not any port.
      ['http://127.0.0.1:8080', '127.0.0.1', []],
      ['https://attacker.example', '127.0.0.1:3000', ['social.example.org']],
      ['https://social.example.org:8443', '127.0.0.1:3000', ['social.example.org']],
      ['http://[::1]:3001', '[::1]:3000', []],
      ['null', '127.0.0.1:3000', []],
      ['file://', '127.0.0.1:3000', []],
      ['not a url', '127.0.0.1:3000', []],
    ];
    for (const [origin, host, names] of foreign) expect(isOwnOrigin(origin, host, names), origin).toBe(false);
  });

  it('leaves the UI API out of CORS whatever follows its prefix', () => {
    for (const url of [
      '/api/homeport/v1/session',
      '/api/homeport/v2/x?y=1',
      '/api/%68omeport/v1/session',
      '/api/%zz',
      '/ui/eventlog',
      '/',
      '/oauth/authorize',
    ])
      expect(allowsCrossOrigin(url), url).toBe(false);
    for (const url of ['/api/v1/statuses?limit=1', '/.well-known/webfinger', '/oauth/token', '/nodeinfo/2.1'])
      expect(allowsCrossOrigin(url), url).toBe(true);
  });
});
