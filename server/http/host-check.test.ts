import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { useTestHomeport } from './testing/homeport.ts';
import { UI_CONTENT_SECURITY_POLICY } from './server.ts';

const server = useTestHomeport({ domain: 'social.example.org' });

/** A request with a chosen Host header (fetch does not let a page, or us, set it). */
function request(pathname: string, host: string, body?: object | string): Promise<{ status: number; body: string }> {
  const url = new URL(server.hp.httpUrl);
  return new Promise((resolve, reject) => {
    const payload = typeof body === 'string' ? body : body ? JSON.stringify(body) : undefined;
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: pathname,
        method: body ? 'POST' : 'GET',
        headers: { host, ...(payload ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

describe('the UI pages', () => {
  it('carry a strict Content-Security-Policy', async () => {
    const page = await request('/', `127.0.0.1:${new URL(server.hp.httpUrl).port}`);
    expect(page.status).toBe(200);
    const res = await fetch(`${server.hp.httpUrl}/`);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    // Plain http only to this computer (another local server the social client signs in to), never elsewhere.
    expect(csp).toContain(
      "connect-src 'self' https: wss: http://127.0.0.1:* http://localhost:* ws://127.0.0.1:* ws://localhost:*;",
    );
  });

  it('say the same in the page itself (Electron loads it too), less what only a header can say', async () => {
    const html = fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'renderer', 'index.html'), 'utf8');
    const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1];
    expect(meta).toBe(UI_CONTENT_SECURITY_POLICY.replace("; frame-ancestors 'none'", ''));
  });
});

describe('DNS rebinding: only expected Host values are served', () => {
  it('refuses the sign-in of a rebinding page (Host: evil.example) with 421, and serves loopback and configured names', async () => {
    const signIn = { username: 'admin', password: 'changeit' };
    const evil = await request('/api/homeport/v1/session', 'evil.example:80', signIn);
    expect(evil.status).toBe(421);
    expect(evil.body).not.toContain('token');
    const port = new URL(server.hp.httpUrl).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'social.example.org'])
      expect((await request('/api/homeport/v1/session', host, signIn)).status, host).toBe(200);
    for (const url of ['/api/v1/instance', '/.well-known/nodeinfo', '/'])
      expect((await request(url, 'attacker.example')).status, url).toBe(421);
  });

  it('refuses a foreign Host before reading the body: a malformed one is not even a 400', async () => {
    for (const url of ['/api/homeport/v1/session', '/api/v1/statuses', '/no/such/route']) {
      const res = await request(url, 'evil.example', '{"username": ');
      expect(res.status, url).toBe(421);
      expect(res.body, url).toContain('Misdirected Request');
    }
    const port = new URL(server.hp.httpUrl).port;
    expect((await request('/api/homeport/v1/session', `127.0.0.1:${port}`, '{"username": ')).status).toBe(400);
  });

  it('refuses WebSocket upgrades for a foreign Host', async () => {
    const url = `${server.hp.httpUrl.replace('http', 'ws')}/api/homeport/v1/eventlog/live?access_token=${server.hp.uiToken}`;
    const status = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(url, { headers: { host: 'evil.example' } });
      ws.on('unexpected-response', (req, res) => {
        resolve(res.statusCode!);
        req.destroy();
      });
      ws.on('open', () => {
        ws.close();
        resolve(101);
      });
      ws.on('error', reject);
    });
    expect(status).toBe(421);
  });
});
