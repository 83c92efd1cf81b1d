import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger, LogRing } from '../../logger.ts';
import { makeTestCertificate } from '../../security/testing/certificates.ts';
import { openSocialAdmin } from '../social.ts';
import { startSocialWithClock, type SocialTestServer } from '../testing/harness.ts';

/*
 * A change made with the admin CLI while no server runs has its effects at the next start: the events it
 * relayed wait in relayed_events and are delivered once the server's listeners are in place. Here: a sign-up
 * awaiting approval, made while the server is down, reaches the owner's phone as a push after the restart.
 */

let push: https.Server;
let pushBase: string;
let ca: string;
const pushed: string[] = [];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-relay-restart-'));
let server: SocialTestServer | null = null;

beforeAll(async () => {
  const pems = await makeTestCertificate(['localhost']);
  ca = pems.ca;
  push = https.createServer({ key: pems.key, cert: pems.cert }, (req, res) => {
    req.resume();
    req.on('end', () => {
      pushed.push(req.url ?? '');
      res.writeHead(201).end();
    });
  });
  await new Promise<void>((resolve) => push.listen(0, '127.0.0.1', resolve));
  pushBase = `https://localhost:${(push.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await server?.close();
  await new Promise((resolve) => push?.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

const start = () =>
  startSocialWithClock(Date.now, { dataDir: dir, keepData: true, social: { push: { allowPrivateAddress: true, ca } } });

async function until(probe: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

it('delivers at start the events the CLI relayed while the server was down (a sign-up is pushed to staff)', async () => {
  server = await start();
  const owner = await server.createUser('boss', { role: 'owner', scopes: 'read push admin:read' });
  const ecdh = crypto.createECDH('prime256v1');
  ecdh.generateKeys();
  const subscribed = await server.call(owner.token, 'POST', '/api/v1/push/subscription', {
    subscription: {
      endpoint: `${pushBase}/boss-phone`,
      keys: { p256dh: ecdh.getPublicKey('base64url'), auth: crypto.randomBytes(16).toString('base64url') },
    },
    data: { alerts: { 'admin.sign_up': true }, policy: 'all' },
  });
  expect(subscribed.body.alerts['admin.sign_up']).toBe(true);
  await server.close();
  server = null;

  // `homeport accounts create newcomer --email …` (not approved) while nothing serves.
  const cli = openSocialAdmin({
    dataDir: dir,
    logger: createLogger({ level: 'warn', toConsole: false, ring: new LogRing(10) }),
  });
  await cli.admin.createAccount({ username: 'newcomer', email: 'newcomer@example.org', approved: false });
  await cli.close();
  expect(pushed).toEqual([]);

  server = await start();
  await until(() => pushed.length > 0, 'the sign-up pushed after the restart');
  await server.social.push.idle();
  expect(pushed).toEqual(['/boss-phone']);
  // Delivered events leave the table; the next start delivers nothing twice.
  expect(server.social.context.store.relayedEvents.after(0, 1)).toEqual([]);
  const notifications = await server.masto(owner.token).v1.notifications.list({ types: ['admin.sign_up'] });
  expect(notifications.map((n) => n.account?.username)).toEqual(['newcomer']);
});
