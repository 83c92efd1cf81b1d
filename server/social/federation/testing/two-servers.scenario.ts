/**
 * Two `homeport serve` processes federating over real TLS, run inside a network namespace of its own (see
 * two-servers.test.ts, which starts this under `unshare` with an /etc/hosts naming alpha.test 127.0.0.2 and
 * beta.test 127.0.0.3). Each server sits behind a TLS proxy on port 443 of its address, as behind Caddy or a
 * tunnel, with a certificate from a test CA every process trusts (NODE_EXTRA_CA_CERTS). Accounts and tokens
 * come from the CLI, everything else goes through the Mastodon API with masto.js. Prints one JSON line.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { createRestAPIClient, type mastodon } from 'masto';

const BIN = path.resolve(import.meta.dirname, '..', '..', '..', '..', 'bin', 'homeport.js');
const [workDir, keyFile, certFile] = process.argv.slice(2);

interface Instance {
  name: string;
  host: string;
  address: string;
  dataDir: string;
  child: ChildProcess;
  proxy: https.Server;
}

function cli(dataDir: string, args: string[], input?: string): string {
  return execFileSync(process.execPath, [BIN, ...args, '--data-dir', dataDir], {
    encoding: 'utf8',
    input,
    env: process.env,
  });
}

async function start(name: string, address: string): Promise<Instance> {
  const host = `${name}.test`;
  const dataDir = path.join(workDir, name);
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const child = spawn(
    process.execPath,
    [
      BIN,
      'serve',
      '--data-dir',
      dataDir,
      '--host',
      address,
      '--http-port',
      '3000',
      '--tcp-port',
      '0',
      '--tcp-tls-port',
      'off',
      '--public-url',
      `https://${host}`,
      '--trust-proxy',
      '--log-level',
      'warn',
    ],
    {
      env: { ...process.env, HOMEPORT_TEST_PRIVATE_NETWORK: '1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('http listening on')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}`)));
  });
  // TLS in front, as Caddy would: Host kept, the client address forwarded.
  const proxy = https.createServer({ key: fs.readFileSync(keyFile), cert: fs.readFileSync(certFile) }, (req, res) => {
    const upstream = http.request(
      {
        host: address,
        port: 3000,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, 'x-forwarded-for': req.socket.remoteAddress ?? '', 'x-forwarded-proto': 'https' },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(443, address, resolve));
  return { name, host, address, dataDir, child, proxy };
}

function user(instance: Instance, username: string): mastodon.rest.Client {
  cli(
    instance.dataDir,
    [
      'accounts',
      'create',
      username,
      '--email',
      `${username}@${instance.host}`,
      '--password-stdin',
      '--confirmed',
      '--role',
      'owner',
    ],
    `${username}-long-test-password\n`,
  );
  const token = /([A-Za-z0-9_-]{30,})/.exec(
    cli(instance.dataDir, ['tokens', 'create', username, '--scopes', 'read write follow']),
  )![1];
  return createRestAPIClient({ url: `https://${instance.host}`, accessToken: token });
}

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const instances: Instance[] = [];
const result: Record<string, unknown> = {};
try {
  const alpha = await start('alpha', '127.0.0.2');
  instances.push(alpha);
  const beta = await start('beta', '127.0.0.3');
  instances.push(beta);
  const alice = user(alpha, 'alice');
  const bob = user(beta, 'bob');

  // Follow both ways, each found through WebFinger by handle.
  const bobSeenByAlice = await alice.v1.accounts.lookup({ acct: 'bob@beta.test' });
  result.bobAcct = bobSeenByAlice.acct;
  await alice.v1.accounts.$select(bobSeenByAlice.id).follow();
  const aliceSeenByBob = await bob.v1.accounts.lookup({ acct: 'alice@alpha.test' });
  result.aliceAcct = aliceSeenByBob.acct;
  await bob.v1.accounts.$select(aliceSeenByBob.id).follow();
  const bobAccountOnBeta = await bob.v1.accounts.verifyCredentials();
  result.bobFollowers = await until('alice in bob’s followers', async () => {
    const list = await bob.v1.accounts.$select(bobAccountOnBeta.id).followers.list();
    return list.some((a) => a.acct === 'alice@alpha.test') && list.map((a) => a.acct);
  });
  result.aliceFollowsBob = await until(
    'the follow accepted',
    async () => (await alice.v1.accounts.relationships.fetch({ id: [bobSeenByAlice.id] }))[0].following,
  );

  // A post from beta reaches alpha's home timeline; a reply from alpha threads and notifies on beta.
  const post = await bob.v1.statuses.create({ status: 'Hello from beta #homeport' });
  const arrived = await until('bob’s post in alice’s home', async () =>
    (await alice.v1.timelines.home.list({ limit: 40 })).find((s) => s.uri === post.uri),
  );
  result.postArrived = arrived.content.includes('Hello from beta');
  const reply = await alice.v1.statuses.create({
    status: '@bob@beta.test hello back from alpha',
    inReplyToId: arrived.id,
  });
  const mention = await until('the mention notification on beta', async () =>
    (await bob.v1.notifications.list({ types: ['mention'] })).find((n) => n.status?.uri === reply.uri),
  );
  result.mentionFrom = mention.account.acct;
  result.replyThreaded = await until('the reply in the thread on beta', async () =>
    (await bob.v1.statuses.$select(post.id).context.fetch()).descendants.some((s) => s.uri === reply.uri),
  );
  // And the other way: a mention from beta notifies on alpha.
  const hey = await bob.v1.statuses.create({ status: '@alice@alpha.test are you there?' });
  const back = await until('the mention notification on alpha', async () =>
    (await alice.v1.notifications.list({ types: ['mention'] })).find((n) => n.status?.uri === hey.uri),
  );
  result.mentionOnAlpha = back.account.acct;
  result.ok = true;
} catch (err) {
  result.ok = false;
  result.error = (err as Error).stack ?? String(err);
} finally {
  for (const i of instances) {
    i.proxy.close();
    i.child.kill('SIGTERM');
    await new Promise((r) => i.child.once('exit', r));
  }
}
process.stdout.write(`${JSON.stringify(result)}\n`);
