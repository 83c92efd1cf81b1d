import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Page } from '@playwright/test';
import { createHttpServer } from '../../../http/index.ts';
import { createLogger, LogRing } from '../../../logger.ts';
import { makeTestCertificate } from '../../../security/testing/index.ts';
import { openSocial } from '../../social.ts';

/*
 * The Phanpy web client (cheeaun/phanpy) against a live Homeport, in Chromium:
 *
 *   npm run test:phanpy -- [--source GIT_DIR] [--work DIR]
 *
 * Phanpy is exported from a git repository (`--source`, or PHANPY_SOURCE; without either it is cloned from
 * GitHub), its packages installed from npm and built with its own vite configuration; the build is served on
 * loopback. Phanpy speaks to servers over https only, so Homeport sits behind a TLS proxy on loopback (a
 * certificate made for the run; Chromium is told to accept it). The check signs in through Phanpy's own login
 * (Homeport's OAuth pages), opens another account's post, quotes it from Phanpy's boost menu (offered because
 * `api_versions.mastodon` is 7) and reads the quote back through the API. Exit code 0 when it worked.
 * PHANPY_DEBUG=1 prints the page's console and every response it got.
 */

const REPOSITORY = 'https://github.com/cheeaun/phanpy.git';
/** Top-level entries of the repository the build does not need (design sources, screenshots). */
const NOT_NEEDED = new Set(['design', 'readme-assets', '.github']);
const WAIT_MS = 30_000;
/** Phanpy takes only names with a dot; Chromium resolves every `*.localhost` name to loopback by itself. */
const HOST = 'homeport.localhost';

const { values: flags } = parseArgs({
  options: { source: { type: 'string' }, work: { type: 'string' } },
});
const work = flags.work ?? fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-phanpy-'));
const dist = path.join(work, 'dist');

function build(): void {
  if (fs.existsSync(path.join(dist, 'index.html'))) return;
  fs.mkdirSync(work, { recursive: true });
  const source = flags.source ?? process.env.PHANPY_SOURCE;
  if (source) {
    const entries = execFileSync('git', ['-C', source, 'ls-tree', '--name-only', 'HEAD'], { encoding: 'utf8' })
      .split('\n')
      .filter((name) => name && !NOT_NEEDED.has(name));
    const tar = execFileSync('git', ['-C', source, 'archive', '--format=tar', 'HEAD', '--', ...entries], {
      maxBuffer: 512 << 20,
    });
    execFileSync('tar', ['-x', '-C', work], { input: tar });
  } else {
    execFileSync('git', ['clone', '--quiet', '--depth', '1', REPOSITORY, work], { stdio: 'inherit' });
  }
  // Its postinstall builds a custom ExifReader through `npx webpack` (a download prompt): the published build
  // is used instead, and the icons the postinstall also makes are made here.
  const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { cwd: work, stdio: 'inherit' });
  run('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error']);
  run(process.execPath, ['scripts/generate-icons.js']);
  run(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'warn']);
}

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.webmanifest': 'application/manifest+json',
};

/** Phanpy's build, served as files (it routes with the URL's hash). */
function serveBuild(): http.Server {
  return http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const file = path.join(dist, path.normalize(decodeURIComponent(url.pathname)).replace(/^(\.\.[/\\])+/, ''));
    const target = fs.existsSync(file) && fs.statSync(file).isFile() ? file : path.join(dist, 'index.html');
    res.writeHead(200, { 'content-type': TYPES[path.extname(target)] ?? 'application/octet-stream' });
    fs.createReadStream(target).pipe(res);
  });
}

/** https on loopback in front of Homeport's http listener (requests only: quoting needs no streaming). */
async function tlsProxy(target: () => number): Promise<https.Server> {
  const pems = await makeTestCertificate([HOST]);
  return https.createServer({ key: pems.key, cert: pems.cert }, (req, res) => {
    const upstream = http.request(
      { host: '127.0.0.1', port: target(), method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
}

const listen = async (server: http.Server | https.Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
};

async function quoteThroughPhanpy(page: Page, phanpy: string, domain: string, statusId: string) {
  await page.goto(`${phanpy}/#/login`);
  await page.locator('#instanceURL').fill(domain);
  // Phanpy opens Homeport's sign-in and authorization pages in a popup (and reads the code back from it).
  const popup = page.waitForEvent('popup', { timeout: WAIT_MS });
  await page.getByRole('button', { name: /Continue/ }).click();
  const auth = await popup;
  await auth.locator('input#login').fill('quoter');
  await auth.locator('#password').fill('quoter-password-long-enough');
  await auth.getByRole('button', { name: 'Sign in' }).click();
  await auth.getByRole('button', { name: 'Authorize' }).click();
  await page.waitForURL((url) => url.href.startsWith(phanpy), { timeout: WAIT_MS });
  await page.locator('#compose-button, .timeline').first().waitFor({ timeout: WAIT_MS });

  await page.goto(`${phanpy}/#/${domain}/s/${statusId}`);
  const post = page.locator('.status').filter({ hasText: 'A post worth quoting' }).first();
  await post.waitFor({ timeout: WAIT_MS });
  await post.getByRole('button', { name: /Boost/ }).first().click();
  // "Quote" is offered from api_versions.mastodon 7 (below it, only "Quote with link").
  await page.getByRole('menuitem', { name: 'Quote', exact: true }).click();
  const compose = page.locator('#compose-container textarea').first();
  await compose.fill('Quoting this from Phanpy');
  await page
    .locator('#compose-container')
    .getByRole('button', { name: /^Post$/ })
    .click();
}

async function main(): Promise<number> {
  build();
  const logger = createLogger({ level: 'warn', toConsole: false, ring: new LogRing(100) });
  let homeportPort = 0;
  const proxy = await tlsProxy(() => homeportPort);
  const domain = `${HOST}:${await listen(proxy)}`;
  const files = serveBuild();
  const phanpy = `http://127.0.0.1:${await listen(files)}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-phanpy-data-'));
  const social = await openSocial({ dataDir, logger, domain, secure: true });
  const httpServer = await createHttpServer({
    logger,
    rendererDir: null,
    plugins: [{ name: 'social', plugin: social.plugin }],
  });
  await httpServer.listen({ host: '127.0.0.1', port: 0 });
  homeportPort = (httpServer.server.address() as AddressInfo).port;
  const browser = await chromium.launch({
    executablePath: process.env.HOMEPORT_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--ignore-certificate-errors'],
  });
  try {
    const { account: quoter } = await social.admin.createAccount({
      username: 'quoter',
      email: 'quoter@example.org',
      password: 'quoter-password-long-enough',
      confirmed: true,
    });
    await social.admin.createAccount({ username: 'author', email: 'author@example.org', confirmed: true });
    const authorToken = social.admin.createToken('author', 'read write').token;
    const quoterToken = social.admin.createToken('quoter', 'read').token;
    const api = async (token: string, method: string, urlPath: string, body?: unknown) => {
      const res = await fetch(`http://127.0.0.1:${homeportPort}${urlPath}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return res.json();
    };
    const original = await api(authorToken, 'POST', '/api/v1/statuses', { status: 'A post worth quoting' });

    const page = await (await browser.newContext({ ignoreHTTPSErrors: true })).newPage();
    if (process.env.PHANPY_DEBUG) {
      page.on('console', (m) => console.log('console:', m.type(), m.text()));
      page.on('requestfailed', (r) => console.log('failed:', r.url(), r.failure()?.errorText));
      page.on('response', (r) => console.log('response:', r.status(), r.request().method(), r.url()));
    }
    try {
      await quoteThroughPhanpy(page, phanpy, domain, original.id);
    } catch (err) {
      const shot = path.join(work, 'phanpy-failure.png');
      await page.screenshot({ path: shot, fullPage: true }).catch(() => {});
      console.error(`Phanpy check failed at ${page.url()} (screenshot ${shot})`);
      throw err;
    }
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const statuses = await api(quoterToken, 'GET', `/api/v1/accounts/${quoter.id}/statuses`);
      const quote = statuses.find((s: { quote?: unknown }) => s.quote);
      if (quote) {
        const ok = quote.quote.state === 'accepted' && quote.quote.quoted_status?.id === original.id;
        console.log(
          ok
            ? `Phanpy offered "Quote" and posted a quote: ${quote.url} quotes ${original.url} (state ${quote.quote.state})`
            : `Phanpy posted ${JSON.stringify(quote.quote)}, not an accepted quote of ${original.id}`,
        );
        return ok ? 0 : 1;
      }
      if (Date.now() > deadline) {
        console.error('Phanpy posted no quote');
        return 1;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    await browser.close();
    await httpServer.close();
    await social.close();
    proxy.close();
    files.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (!flags.work) fs.rmSync(work, { recursive: true, force: true });
  }
}

process.exitCode = await main();
