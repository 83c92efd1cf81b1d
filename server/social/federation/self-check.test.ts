import { execFile } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSocialTestServer, type SocialTestServer } from '../testing/harness.ts';
import { checkInstance, runSelfCheck, type SelfCheckReport } from './self-check.ts';

/*
 * The federation self-check against a real Homeport, and against the things that stand between an instance
 * and other servers: another server at the address, a self-signed certificate, a proxy that rewrites Host
 * or forwards client addresses Homeport does not trust, nothing listening. Each must be named as such.
 */

const exec = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '..', '..', '..', 'bin', 'homeport.js');

let server: SocialTestServer;
const others: (http.Server | https.Server)[] = [];

async function listen(s: http.Server | https.Server): Promise<string> {
  others.push(s);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return `${s instanceof https.Server ? 'https' : 'http'}://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

/** A reverse proxy to the instance that changes what the instance sees. */
function proxy(rewrite: (headers: http.IncomingHttpHeaders) => http.OutgoingHttpHeaders): http.Server {
  const target = new URL(server.url);
  return http.createServer((req, res) => {
    const upstream = http.request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: rewrite(req.headers) },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  });
}

const byName = (report: SelfCheckReport) => Object.fromEntries(report.checks.map((c) => [c.name, c]));

beforeAll(async () => {
  server = await startSocialTestServer();
  await server.createUser('owner', { role: 'owner' });
});

afterAll(async () => {
  for (const s of others) s.close();
  await server?.close();
});

describe('federation self-check', () => {
  it('passes for a reachable instance, warning that plain http and loopback do not federate', async () => {
    const report = await checkInstance(server.social.context);
    const checks = byName(report);
    expect(report.ok).toBe(true);
    expect(checks['public-url'].status).toBe('warning');
    expect(checks.dns.status).toBe('warning');
    expect(checks.dns.detail).toMatch(/private address/);
    for (const name of ['reach', 'proxy', 'nodeinfo', 'webfinger', 'actor'])
      expect(checks[name].status, `${name}: ${checks[name].detail}`).toBe('ok');
    expect(checks.webfinger.detail).toContain(`acct:owner@${new URL(server.url).host}`);
  });

  it('tells another server at the address from this instance', async () => {
    const other = await listen(
      http.createServer((_req, res) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"instance":"someone else"}'),
      ),
    );
    const report = await runSelfCheck(server.social.context.store, other, {
      username: 'owner',
      domain: new URL(other).host,
    });
    const checks = byName(report);
    expect(report.ok).toBe(false);
    expect(checks.reach.status).toBe('error');
    expect(checks.reach.detail).toMatch(/something else than this Homeport instance/);
    expect(checks.actor.status).toBe('skipped');
  });

  it('names a self-signed certificate and a port nobody listens on', async () => {
    const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], { keySize: 2048, algorithm: 'sha256' });
    const tls = await listen(https.createServer({ key: pems.private, cert: pems.cert }, (_req, res) => res.end('{}')));
    const selfSigned = byName(await runSelfCheck(server.social.context.store, tls, { username: 'owner', domain: 'x' }));
    expect(selfSigned.reach.detail).toMatch(/self-signed/);
    const closed = http.createServer();
    const closedUrl = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    const refused = byName(
      await runSelfCheck(server.social.context.store, closedUrl, { username: 'owner', domain: 'x' }),
    );
    expect(refused.reach.detail).toMatch(/nothing accepts connections/);
  });

  it('sees what a proxy does: a rewritten Host is refused (421), a forwarded address not trusted is flagged', async () => {
    const rewriting = await listen(proxy((headers) => ({ ...headers, host: 'internal.invalid' })));
    const rewritten = byName(
      await runSelfCheck(server.social.context.store, rewriting, {
        username: 'owner',
        domain: new URL(rewriting).host,
      }),
    );
    expect(rewritten.reach.status).toBe('error');
    expect(rewritten.reach.detail).toMatch(/Host header/);

    // Host passed through, the client address forwarded: reachable, but Homeport was not started with --trust-proxy.
    const forwarding = await listen(proxy((headers) => ({ ...headers, 'x-forwarded-for': '203.0.113.9' })));
    const forwarded = byName(
      await runSelfCheck(server.social.context.store, forwarding, {
        username: 'owner',
        domain: new URL(server.url).host,
      }),
    );
    expect(forwarded.reach.status).toBe('ok');
    expect(forwarded.proxy.status).toBe('warning');
    expect(forwarded.proxy.detail).toMatch(/--trust-proxy/);
  });

  it('runs from the command line beside the running server', async () => {
    const { stdout } = await exec(process.execPath, [BIN, 'federation', 'check', '--data-dir', server.dir]);
    expect(stdout).toContain(`Federation self-check of ${server.url}`);
    expect(stdout).toMatch(/ok +reach +http/);
    expect(stdout).toContain('Other servers can reach this instance.');
    const failed = await exec(process.execPath, [
      BIN,
      'federation',
      'check',
      '--data-dir',
      server.dir,
      '--public-url',
      'http://127.0.0.1:1',
    ]).catch((err: { code: number; stdout: string }) => err);
    expect((failed as { code: number }).code).toBe(1);
  });
});
