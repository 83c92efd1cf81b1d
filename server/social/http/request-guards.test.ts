import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSocialTestServer, type SocialTestServer, type TestUser } from '../testing/harness.ts';

let server: SocialTestServer;
let alice: TestUser;
beforeAll(async () => {
  server = await startSocialTestServer();
  alice = await server.createUser('alice');
});
afterAll(async () => {
  await server?.close();
});

/**
 * Announces a large multipart upload, sends only its first bytes, and returns the status line the server
 * answers with while the rest is still unsent (null if it waits for the body).
 */
function announceUpload(
  pathname: string,
  headers: Record<string, string>,
  declaredBytes: number,
): Promise<{ statusLine: string | null; sentBytes: number }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    const boundary = 'homeportboundary';
    const head = [
      `POST ${pathname} HTTP/1.1`,
      `Host: ${url.host}`,
      `Content-Type: multipart/form-data; boundary=${boundary}`,
      `Content-Length: ${declaredBytes}`,
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      '',
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
    ].join('\r\n');
    const chunk = Buffer.alloc(64 * 1024, 0x41);
    socket.write(head);
    socket.write(chunk);
    const sentBytes = Buffer.byteLength(head) + chunk.length;
    let answer = '';
    socket.on('data', (d) => {
      answer += String(d);
      if (answer.includes('\r\n')) {
        socket.destroy();
        resolve({ statusLine: answer.split('\r\n')[0], sentBytes });
      }
    });
    socket.on('error', reject);
    // A server that waits for the body never answers; the test then fails on the null status line.
    setTimeout(() => {
      socket.destroy();
      resolve({ statusLine: null, sentBytes });
    }, 5000);
  });
}

describe('request guards', () => {
  it('answers an unauthenticated 50 MB upload with 401 after its first 64 KB, without reading the rest', async () => {
    for (const headers of [{}, { Authorization: 'Bearer made-up-token' }] as Record<string, string>[]) {
      const { statusLine } = await announceUpload('/api/v2/media', headers, 50 * 1024 * 1024);
      expect(statusLine).toBe('HTTP/1.1 401 Unauthorized');
    }
  });

  it('streams an upload to a temporary file as it arrives, and removes it when the client goes away', async () => {
    const url = new URL(server.url);
    const incoming = server.social.context.media.incomingDir;
    const socket = net.connect(Number(url.port), url.hostname);
    const boundary = 'streamboundary';
    socket.write(
      [
        'POST /api/v2/media HTTP/1.1',
        `Host: ${url.host}`,
        `Authorization: Bearer ${alice.token}`,
        `Content-Type: multipart/form-data; boundary=${boundary}`,
        `Content-Length: ${60 * 1024 * 1024}`,
        '',
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="clip.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
      ].join('\r\n'),
    );
    const chunk = Buffer.alloc(256 * 1024, 0x42);
    for (let i = 0; i < 8; i++) socket.write(chunk);
    // The 2 MB sent so far are on disk in the incoming folder, not waiting in memory for the rest.
    await expect
      .poll(
        () =>
          fs.existsSync(incoming) ? fs.readdirSync(incoming).map((f) => fs.statSync(path.join(incoming, f)).size) : [],
        { timeout: 5000, interval: 50 },
      )
      .toEqual([2 * 1024 * 1024]);
    socket.destroy();
    await expect.poll(() => fs.readdirSync(incoming), { timeout: 5000, interval: 50 }).toEqual([]);
  });

  it('refuses files on routes that take none, and checks the scope before reading an upload', async () => {
    const form = new FormData();
    form.append('status', 'hello');
    form.append('file', new Blob([Buffer.alloc(1024)]), 'x.bin');
    const res = await server.fetch(`${server.url}/api/v1/statuses`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${alice.token}` },
      body: form,
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: 'This endpoint takes no file uploads' });

    const { token: readOnly } = server.admin.createToken('alice', 'read');
    const { statusLine } = await announceUpload(
      '/api/v2/media',
      { Authorization: `Bearer ${readOnly}` },
      50 * 1024 * 1024,
    );
    expect(statusLine).toBe('HTTP/1.1 403 Forbidden');
  });

  it('answers bodies over the limit with 413 and a JSON error, on every kind of body', async () => {
    const huge = 'x'.repeat(17 * 1024 * 1024);
    for (const [contentType, body] of [
      ['application/json', JSON.stringify({ status: huge })],
      ['application/x-www-form-urlencoded', `status=${huge}`],
    ] as const) {
      const res = await fetch(`${server.url}/api/v1/statuses`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${alice.token}`, 'Content-Type': contentType },
        body,
      });
      expect(res.status, contentType).toBe(413);
      expect(((await res.json()) as { error: string }).error).toBeTruthy();
    }
    // A multipart field over its bound (64 KB) is refused the same way, long before the body limit.
    const form = new FormData();
    form.append('status', 'x'.repeat(100 * 1024));
    const multipart = await fetch(`${server.url}/api/v1/statuses`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${alice.token}` },
      body: form,
    });
    expect(multipart.status).toBeGreaterThanOrEqual(400);
    expect(multipart.status).toBeLessThan(500);
  });

  it('keys the general rate limit by the verified caller, so made-up tokens share their address bucket', async () => {
    let limited: Response | null = null;
    for (let i = 0; i < 305 && !limited; i++) {
      const res = await fetch(`${server.url}/api/v1/instance/rules?access_token=random-${i}`);
      if (res.status === 429) limited = res;
      else await res.arrayBuffer();
    }
    expect(limited?.status).toBe(429);
    // A verified account has its own bucket, untouched by the address's made-up tokens.
    const own = await fetch(`${server.url}/api/v1/accounts/verify_credentials`, {
      headers: { Authorization: `Bearer ${alice.token}` },
    });
    expect(own.status).toBe(200);
    expect(Number(own.headers.get('x-ratelimit-remaining'))).toBeGreaterThan(250);
  });
});
