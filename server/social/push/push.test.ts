import crypto from 'node:crypto';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import ece from 'http_ece';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestCertificate } from '../../security/testing/certificates.ts';
import { startSocialWithClock, type SocialTestServer, type TestUser } from '../testing/harness.ts';

/*
 * Web Push end to end: subscriptions made through masto.js, pushes sent by the server to a push receiver on
 * loopback (HTTPS with a test certificate, reached by the name localhost with the private-address guard off)
 * that decrypts every payload with the subscription's own keys, for each policy and alert; legacy (aesgcm)
 * and standard (aes128gcm) encodings; 410 removes a subscription, a 500 is retried. Literal private
 * addresses are refused even so. The guard switched on: push.netns.test.ts.
 */

interface Pushed {
  path: string;
  encoding: string;
  authorization: string;
  json: Record<string, unknown>;
  raw: string;
}

interface Receiver {
  /** The push "device": its keys and what it decrypted. */
  ecdh: crypto.ECDH;
  auth: string;
  received: Pushed[];
}

let server: SocialTestServer;
let push: https.Server;
let pushBase: string;
const receivers = new Map<string, Receiver>();
/** Paths answering 500 on their first push. */
const flaky = new Set<string>();
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;

function header(value: string | string[] | undefined, name: string): string | undefined {
  const text = Array.isArray(value) ? value.join(';') : (value ?? '');
  return new RegExp(`(?:^|[;,\\s])${name}=([^;,\\s]+)`).exec(text)?.[1];
}

beforeAll(async () => {
  const pems = await makeTestCertificate(['localhost', '127.0.0.1']);
  push = https.createServer({ key: pems.key, cert: pems.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      if (path.startsWith('/gone')) return res.writeHead(410).end();
      if (flaky.delete(path)) return res.writeHead(500).end();
      const receiver = receivers.get(path);
      if (!receiver) return res.writeHead(404).end();
      const encoding = String(req.headers['content-encoding']);
      const body = Buffer.concat(chunks);
      const plain =
        encoding === 'aes128gcm'
          ? ece.decrypt(body, { version: 'aes128gcm', privateKey: receiver.ecdh, authSecret: receiver.auth })
          : ece.decrypt(body, {
              version: 'aesgcm',
              privateKey: receiver.ecdh,
              authSecret: receiver.auth,
              dh: header(req.headers['crypto-key'], 'dh'),
              salt: header(req.headers.encryption, 'salt'),
            });
      const raw = plain.toString('utf8');
      receiver.received.push({
        path,
        encoding,
        authorization: String(req.headers.authorization),
        json: JSON.parse(raw),
        raw,
      });
      res.writeHead(201).end();
    });
  });
  await new Promise<void>((resolve) => push.listen(0, '127.0.0.1', resolve));
  pushBase = `https://localhost:${(push.address() as AddressInfo).port}`;
  server = await startSocialWithClock(Date.now, {
    social: { push: { allowPrivateAddress: true, ca: pems.ca, retryDelaysMs: [30, 30, 30] } },
  });
  [alice, bob, carol] = await Promise.all(['alice', 'bob', 'carol'].map((name) => server.createUser(name)));
  // alice follows bob; carol follows alice: "followed" lets bob through, "follower" lets carol through.
  await server.masto(alice.token).v1.accounts.$select(bob.accountId).follow();
  await server.masto(carol.token).v1.accounts.$select(alice.accountId).follow();
});

afterAll(async () => {
  await server?.close();
  await new Promise((resolve) => push?.close(resolve));
});

/** A new token of alice's with a subscription made through masto.js; returns its token and receiver. */
async function subscribe(
  name: string,
  data: { alerts: Record<string, boolean>; policy?: 'all' | 'followed' | 'follower' | 'none' },
  standard = false,
) {
  const { token } = server.social.admin.createToken('alice', 'read push');
  const ecdh = crypto.createECDH('prime256v1');
  ecdh.generateKeys();
  const receiver: Receiver = { ecdh, auth: crypto.randomBytes(16).toString('base64url'), received: [] };
  receivers.set(`/${name}`, receiver);
  const created = await server.masto(token).v1.push.subscription.create({
    subscription: {
      endpoint: `${pushBase}/${name}`,
      keys: { p256dh: ecdh.getPublicKey('base64url'), auth: receiver.auth },
      standard,
    } as never,
    data: data as never,
    policy: data.policy ?? 'all',
  });
  return { token, receiver, created };
}

async function delivered(): Promise<void> {
  await server.social.push.idle();
}

describe('Web Push', () => {
  it('pushes each notification to the subscriptions whose alerts and policy let it through, decryptable with their keys', async () => {
    const everything = { mention: true, favourite: true, follow: true, reblog: true };
    const all = await subscribe('all', { alerts: everything, policy: 'all' }, true);
    const followed = await subscribe('followed', { alerts: everything, policy: 'followed' });
    const follower = await subscribe('follower', { alerts: everything, policy: 'follower' });
    const none = await subscribe('none', { alerts: everything, policy: 'none' });
    const mentionsOnly = await subscribe('mentions-only', { alerts: { mention: true } });
    expect(all.created.policy).toBe('all');
    expect(all.created.alerts.favourite).toBe(true);
    expect(mentionsOnly.created.alerts.favourite).toBe(false);
    expect(all.created.serverKey).toBe(
      (await server.masto(alice.token).v2.instance.fetch()).configuration.vapid.publicKey,
    );

    const post = await server.masto(alice.token).v1.statuses.create({ status: 'push me' });
    await server.masto(bob.token).v1.statuses.create({ status: '@alice from bob', visibility: 'unlisted' });
    await server
      .masto(carol.token)
      .v1.statuses.create({ status: '@alice from carol, who follows her', visibility: 'unlisted' });
    await server.masto(bob.token).v1.statuses.$select(post.id).favourite();
    await delivered();

    const seen = (r: Receiver) =>
      r.received.map((p) => `${p.json.notification_type}:${String(p.json.title).split(' ')[0]}`).sort();
    expect(seen(all.receiver)).toEqual(['favourite:bob', 'mention:You', 'mention:You'].sort());
    expect(
      all.receiver.received.every((p) => p.encoding === 'aes128gcm' && p.authorization.startsWith('vapid t=')),
    ).toBe(true);
    expect(followed.receiver.received.map((p) => p.json.title).sort()).toEqual([
      'You were mentioned by bob',
      'bob favorited your post',
    ]);
    expect(
      followed.receiver.received.every((p) => p.encoding === 'aesgcm' && p.authorization.startsWith('WebPush ')),
    ).toBe(true);
    expect(follower.receiver.received.map((p) => p.json.title)).toEqual(['You were mentioned by carol']);
    expect(none.receiver.received).toEqual([]);
    expect(mentionsOnly.receiver.received.map((p) => p.json.notification_type)).toEqual(['mention', 'mention']);

    // Mastodon's payload: the subscription's own token, the notification's id as a JSON number, text.
    const mention = follower.receiver.received[0];
    expect(mention.json.access_token).toBe(follower.token);
    expect(mention.json.preferred_locale).toBe('en');
    expect(mention.json.body).toBe('@alice from carol, who follows her');
    expect(String(mention.json.icon)).toMatch(/^http/);
    const notifications = await server.masto(follower.token).v1.notifications.list({ types: ['mention'] });
    const fromCarol = notifications.find((n) => n.account?.id === carol.accountId)!;
    expect(mention.raw).toContain(`"notification_id":${fromCarol.id}`);
  });

  it('keeps one subscription per token: GET, PUT and DELETE act on the caller’s own', async () => {
    const { token } = await subscribe('own', { alerts: { follow: true } });
    const client = server.masto(token);
    expect((await client.v1.push.subscription.fetch()).alerts.follow).toBe(true);
    const updated = await client.v1.push.subscription.update({
      data: { alerts: { mention: true }, policy: 'followed' } as never,
    });
    expect(updated.alerts).toMatchObject({ follow: true, mention: true });
    expect(updated.policy).toBe('followed');
    const replaced = await subscribe('own-again', { alerts: {} });
    expect(replaced.created.id).not.toBe(updated.id);
    await client.v1.push.subscription.remove();
    await expect(client.v1.push.subscription.fetch()).rejects.toMatchObject({ statusCode: 404 });
  });

  it('removes a subscription its push service calls gone, and retries one that failed', async () => {
    const { token } = server.social.admin.createToken('alice', 'push');
    const ecdh = crypto.createECDH('prime256v1');
    ecdh.generateKeys();
    await server.masto(token).v1.push.subscription.create({
      subscription: {
        endpoint: `${pushBase}/gone`,
        keys: { p256dh: ecdh.getPublicKey('base64url'), auth: crypto.randomBytes(16).toString('base64url') },
      },
      data: { alerts: { follow: true } } as never,
      policy: 'all',
    });
    const retried = await subscribe('flaky', { alerts: { follow: true } });
    flaky.add('/flaky');
    await server.masto(bob.token).v1.accounts.$select(alice.accountId).follow();
    await delivered();
    await expect(server.masto(token).v1.push.subscription.fetch()).rejects.toMatchObject({ statusCode: 404 });
    expect(flaky.has('/flaky')).toBe(false);
    // The retry waits its delay (30 ms here) before going out again.
    for (let i = 0; i < 200 && retried.receiver.received.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(retried.receiver.received.map((p) => p.json.notification_type)).toEqual(['follow']);
    await server.masto(bob.token).v1.accounts.$select(alice.accountId).unfollow();
  });

  it('refuses tokens without the push scope, and bad keys or endpoints with 422 details', async () => {
    const readOnly = server.social.admin.createToken('alice', 'read');
    const body = { subscription: { endpoint: `${pushBase}/x`, keys: { p256dh: 'AAAA', auth: 'short' } } };
    const refused = await server.fetch(`${server.url}/api/v1/push/subscription`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${readOnly.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(refused.status).toBe(403);
    const { token } = server.social.admin.createToken('alice', 'push');
    const bad = await server.fetch(`${server.url}/api/v1/push/subscription`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, subscription: { ...body.subscription, endpoint: 'http://insecure.example/x' } }),
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(((await bad.json()) as { details: object }).details).sort()).toEqual([
      'endpoint',
      'keys.auth',
      'keys.p256dh',
    ]);
  });

  it('refuses endpoints on literal loopback and private addresses with 422, whatever their spelling', async () => {
    const { token } = server.social.admin.createToken('alice', 'push');
    const ecdh = crypto.createECDH('prime256v1');
    ecdh.generateKeys();
    const port = new URL(pushBase).port;
    for (const host of [
      '127.0.0.1',
      '[::1]',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '2130706433',
      '0x7f.0.0.1',
      '10.0.0.1',
      '169.254.169.254',
      '[64:ff9b::7f00:1]',
    ]) {
      const res = await server.fetch(`${server.url}/api/v1/push/subscription`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          subscription: {
            endpoint: `https://${host}:${port}/literal`,
            keys: { p256dh: ecdh.getPublicKey('base64url'), auth: crypto.randomBytes(16).toString('base64url') },
          },
        }),
      });
      expect(res.status, host).toBe(422);
      expect(await res.json(), host).toMatchObject({
        details: { endpoint: [{ error: 'ERR_INVALID', description: 'must not be a loopback or private address' }] },
      });
    }
  });

  it('drops a stored subscription whose endpoint is a literal loopback address without connecting to it', async () => {
    const stored = await subscribe('literal', { alerts: { follow: true } });
    // A subscription from before endpoints were checked when subscribing.
    server.social.context.store.core
      .sql('UPDATE push_subscriptions SET endpoint = ? WHERE id = ?')
      .run(`https://[::ffff:127.0.0.1]:${new URL(pushBase).port}/literal`, stored.created.id);
    await server.masto(bob.token).v1.accounts.$select(alice.accountId).follow();
    await delivered();
    expect(stored.receiver.received).toEqual([]);
    await expect(server.masto(stored.token).v1.push.subscription.fetch()).rejects.toMatchObject({ statusCode: 404 });
    await server.masto(bob.token).v1.accounts.$select(alice.accountId).unfollow();
  });
});
