import crypto from 'node:crypto';
import https from 'node:https';
import ece from 'http_ece';
import { connectionCounter, namespaceContext, report } from '../../security/testing/netns-child.ts';
import { startSocialTestServer } from '../testing/harness.ts';

/*
 * Run by push.netns.test.ts inside its namespace: a whole Homeport as served (no test switches: the
 * private-address guard is on), a push service on the public-looking 1.2.3.4:443 with a test-CA certificate
 * that decrypts what it gets, and bare listeners on loopback and a private address counting any connection
 * that reaches them. alice subscribes with each endpoint the test names; bob's follow makes one push each.
 */

export interface PushNetnsReport {
  /** HTTP status of each subscription request, by endpoint. */
  subscribed: Record<string, number>;
  /** Paths the push service got, with the notification type it decrypted. */
  received: string[];
  /** Whether each accepted subscription still exists after its push (by endpoint). */
  kept: Record<string, boolean>;
  /** Connections that reached each loopback or private listener. */
  victims: Record<string, number>;
}

const { certificates, input: endpoints } = namespaceContext<string[]>();
const devices = new Map<string, { ecdh: crypto.ECDH; auth: string }>();
const received: string[] = [];
const service = https.createServer(certificates['push.example'], (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const device = devices.get(req.url ?? '');
    if (!device) return res.writeHead(404).end();
    const plain = ece.decrypt(Buffer.concat(chunks), {
      version: 'aes128gcm',
      privateKey: device.ecdh,
      authSecret: device.auth,
    });
    received.push(
      `${req.url} ${(JSON.parse(plain.toString('utf8')) as { notification_type: string }).notification_type}`,
    );
    res.writeHead(201).end();
  });
});
await new Promise<void>((resolve) => service.listen(443, '1.2.3.4', resolve));
const victimAddresses = ['127.0.0.1', '::1', '10.1.2.3'];
const victims = await Promise.all(victimAddresses.map((address) => connectionCounter(address, 443)));

const server = await startSocialTestServer();
const report_: PushNetnsReport = { subscribed: {}, received, kept: {}, victims: {} };
try {
  const alice = await server.createUser('alice');
  const bob = await server.createUser('bob');
  const tokens = new Map<string, string>();
  const subscribe = async (endpoint: string) => {
    const { token } = server.social.admin.createToken('alice', 'push');
    const ecdh = crypto.createECDH('prime256v1');
    ecdh.generateKeys();
    const auth = crypto.randomBytes(16).toString('base64url');
    devices.set(new URL(endpoint).pathname, { ecdh, auth });
    const res = await server.fetch(`${server.url}/api/v1/push/subscription`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        subscription: { endpoint, keys: { p256dh: ecdh.getPublicKey('base64url'), auth }, standard: true },
        data: { alerts: { follow: true } },
      }),
    });
    await res.body?.cancel();
    report_.subscribed[endpoint] = res.status;
    if (res.status === 200) tokens.set(endpoint, token);
    return token;
  };
  for (const endpoint of endpoints) await subscribe(endpoint);
  // One stored before endpoints were checked when subscribing: a literal loopback address.
  const stored = 'https://[::ffff:7f00:1]/stored-literal';
  const storedToken = await subscribe('https://push.example/stored-literal');
  server.social.context.store.core
    .sql('UPDATE push_subscriptions SET endpoint = ? WHERE endpoint = ?')
    .run(stored, 'https://push.example/stored-literal');
  tokens.delete('https://push.example/stored-literal');
  tokens.set(stored, storedToken);

  await server.masto(bob.token).v1.accounts.$select(alice.accountId).follow();
  await server.social.push.idle();
  for (const [endpoint, token] of tokens) {
    const res = await server.fetch(`${server.url}/api/v1/push/subscription`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    await res.body?.cancel();
    report_.kept[endpoint] = res.status === 200;
  }
} finally {
  await server.close();
  service.close();
  victimAddresses.forEach((address, i) => (report_.victims[address] = victims[i].connections));
  await Promise.all(victims.map((v) => v.close()));
}
await report(report_);
