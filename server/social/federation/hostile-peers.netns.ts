import fs from 'node:fs';
import type http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { namespaceContext, report } from '../../security/testing/netns-child.ts';
import { inboxPostWithKey, resolvingSearch } from './testing/attacks.ts';
import { startHostilePeer } from './testing/hostile-peer.ts';
import { sampleMemory, startServeProcess } from '../../testing/serve-process.ts';

/*
 * Inside the namespace of hostile-peers-netns.test.ts, the private-address guard ON (no
 * HOMEPORT_TEST_PRIVATE_NETWORK): a `homeport serve`, the hostile server on hostile.example (1.2.3.4), a
 * well-behaved server on 5.6.7.8 for names the DNS server answers first with 5.6.7.8 and then with 127.0.0.1
 * (DNS rebinding), and a service on 127.0.0.1:443 that records whatever reaches it. Runs one part (`input.part`):
 * the rebinding attempts or the hostile server's attacks, and reports what each got.
 */

export interface NetnsReport {
  loopbackRequests: string[];
  /** Requests the rebinding names' public address (5.6.7.8) got: the first lookup's answer was used. */
  publicRequests: string[];
  rebind: {
    url: { status: number; error?: string };
    handle: { status: number; error?: string };
    importErrors: string[];
  } | null;
  hostile: Record<string, { status: number; error?: string; rssGrowth: number }> | null;
  exited: string | null;
}

const { certificates, input } = namespaceContext<{ part: 'rebind' | 'hostile'; rebindNames: string[] }>();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-netns-hostile-'));

/** One TLS server on `address`:443 serving the certificate of the name asked for. */
async function tlsSite(address: string, names: string[], handler: http.RequestListener): Promise<https.Server> {
  const contexts = new Map(names.map((name) => [name, tls.createSecureContext(certificates[name])]));
  const server = https.createServer(
    { ...certificates[names[0]], SNICallback: (name, done) => done(null, contexts.get(name)) },
    handler,
  );
  await new Promise<void>((resolve) => server.listen(443, address, resolve));
  return server;
}

const loopbackRequests: string[] = [];
const loopback = await tlsSite('127.0.0.1', input.rebindNames, (req, res) => {
  loopbackRequests.push(`${req.headers.host}${req.url} (${req.headers['user-agent']})`);
  res.writeHead(200, { 'content-type': 'application/activity+json' }).end('{}');
});
// The public face of the rebinding names: a proper WebFinger answer and actor (so the lookup goes on).
const publicRequests: string[] = [];
const publicSite = await tlsSite('5.6.7.8', input.rebindNames, (req, res) => {
  const host = req.headers.host ?? '';
  publicRequests.push(`${host}${req.url}`);
  if (req.url?.startsWith('/.well-known/webfinger')) {
    res.writeHead(200, { 'content-type': 'application/jrd+json' });
    res.end(
      JSON.stringify({ links: [{ rel: 'self', type: 'application/activity+json', href: `https://${host}/users/x` }] }),
    );
  } else res.writeHead(404).end();
});
const peer = await startHostilePeer({
  address: '1.2.3.4',
  port: 443,
  tls: certificates['hostile.example'],
  host: 'hostile.example',
});
// The drips meet a 3 s deadline instead of 10 (the same bound, sooner): three of them cost seconds, not half a minute.
const server = await startServeProcess({
  dataDir: path.join(dir, 'data'),
  publicUrl: true,
  env: input.part === 'hostile' ? { HOMEPORT_TEST_FETCH_DEADLINE_MS: '3000' } : {},
});
const token = server.createUser('alice');

const search = (q: string) => resolvingSearch(server.httpUrl, token, q);
const inboxPost = async (keyId: string) => ({ status: (await inboxPostWithKey(server.httpUrl, keyId)).status });

const measured = async (attack: () => Promise<{ status: number; error?: string }>) => {
  const before = server.rss() ?? 0;
  const memory = sampleMemory(server);
  try {
    return { ...(await attack()), rssGrowth: memory.peak() - before };
  } finally {
    memory.stop();
  }
};

/** DNS rebinding through search by URL, by handle and an import row. */
async function rebinding(): Promise<NonNullable<NetnsReport['rebind']>> {
  const [urlName, handleName, importName] = input.rebindNames;
  const rebind: NonNullable<NetnsReport['rebind']> = {
    url: await search(`https://${urlName}/users/x`),
    handle: await search(`@x@${handleName}`),
    importErrors: [],
  };
  const imported = await fetch(`${server.httpUrl}/api/v1/homeport/imports`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'following_accounts', data: `x@${importName}` }),
  });
  const { id } = (await imported.json()) as { id: string };
  for (let i = 0; i < 300; i++) {
    const view = (await (
      await fetch(`${server.httpUrl}/api/v1/homeport/imports/${id}`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as { state: string; failures: { error: string }[] };
    if (view.state === 'finished') {
      rebind.importErrors = view.failures.map((f) => f.error);
      break;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return rebind;
}

/** The hostile server's answers through search (WebFinger and actor) and the inbox's key fetch. */
async function attacks(): Promise<NonNullable<NetnsReport['hostile']>> {
  const hostile: NonNullable<NetnsReport['hostile']> = {};
  for (const mode of ['gzip-bomb', 'brotli-bomb', 'endless', 'big-actor', 'drip']) {
    hostile[`search ${mode}`] = await measured(() => search(`@${mode}@${peer.host}`));
    hostile[`actor ${mode}`] = await measured(() => search(`@actor-${mode}@${peer.host}`));
  }
  hostile['inbox gzip-bomb'] = await measured(() => inboxPost(`${peer.origin}/gzip-bomb#main-key`));
  hostile['inbox drip'] = await measured(() => inboxPost(`${peer.origin}/drip#main-key`));
  return hostile;
}

const rebind = input.part === 'rebind' ? await rebinding() : null;
const hostile = input.part === 'hostile' ? await attacks() : null;

const exited = server.exitStatus;
await server.stop();
await peer.close();
loopback.close();
publicSite.close();
fs.rmSync(dir, { recursive: true, force: true });
await report({ loopbackRequests, publicRequests, rebind, hostile, exited } satisfies NetnsReport);
