/**
 * The social half of the soak, in a process of its own (bench/soak.ts starts it): streaming sockets on four
 * accounts, two accounts posting and a remote server of the bench's own POSTing signed Creates to the shared
 * inbox, with what each socket should get.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type WebSocket from 'ws';
import { signRequest } from '@fedify/fedify';
import { openSocket } from './soak-clients.ts';
import { answerCalls, ownCpuSeconds } from './soak-ipc.ts';
import { signingKey } from './federation-support.ts';

/** Which posts a group of sockets should see: the local ones, the remote ones, or both. */
interface SocketGroup {
  name: string;
  account: string;
  stream: string;
  /** The streaming event counted ('update' or 'notification'). */
  event: string;
  local: boolean;
  remote: boolean;
  received: number[];
}

const EVENT_KEY = Buffer.from('"event":');
const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what: string, done: () => boolean, deadlineMs: number): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`soak set-up: ${what} did not happen within ${deadlineMs / 1000} s`);
    await sleep(100);
  }
}

/** A remote server with one actor (its key the Creates are signed with); every other request answered 404. */
async function startRemote(publicKeyPem: string): Promise<{ actor: string; close: () => void }> {
  const remote = http.createServer((req, res) => {
    req.resume();
    const base = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
    if (req.method !== 'GET' || req.url !== '/users/remote') return void res.writeHead(404).end();
    const actor = {
      '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
      id: `${base}/users/remote`,
      type: 'Person',
      preferredUsername: 'remote',
      inbox: `${base}/users/remote/inbox`,
      publicKey: { id: `${base}/users/remote#main-key`, owner: `${base}/users/remote`, publicKeyPem },
    };
    res.writeHead(200, { 'content-type': 'application/activity+json' }).end(JSON.stringify(actor));
  });
  await new Promise<void>((r) => remote.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
  return { actor: `${base}/users/remote`, close: () => remote.close() };
}

async function api(httpUrl: string, token: string, method: string, path: string, body?: unknown) {
  const request = () =>
    fetch(`${httpUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      // An overloaded server fails a request rather than holding the end of the run for ever.
      signal: AbortSignal.timeout(60_000),
    });
  // Set-up calls follow a pause: a kept-alive connection the server closed meanwhile is tried once more.
  const res = await request().catch((err: { cause?: { code?: string } }) => {
    if (method === 'POST' && path === '/api/v1/statuses') throw err;
    if (err.cause?.code !== 'UND_ERR_SOCKET') throw err;
    return request();
  });
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as { id: string };
}

/** The accounts the soak made (`tokens`: a read, write and follow token of each) and the load to put on them. */
interface SocialSetup {
  httpUrl: string;
  tokens: Record<string, string>;
  sockets: number;
  postsPerSecond: number;
  createsPerSecond: number;
}

/**
 * Sets the social load up on the server at `httpUrl` (started with a public URL, loopback peers allowed and the
 * social rate limits off): follows, `sockets` streaming sockets spread over four groups, each proven subscribed
 * by one local post and one remote Create before the counts start. `postsPerSecond` local posts from two
 * accounts, `createsPerSecond` signed Creates mentioning alice from the remote actor.
 */
async function startSocialLoad({ httpUrl, tokens, ...options }: SocialSetup) {
  const aliceLookup = await api(httpUrl, tokens.carol, 'GET', '/api/v1/accounts/lookup?acct=alice');
  const bobLookup = await api(httpUrl, tokens.carol, 'GET', '/api/v1/accounts/lookup?acct=bob');
  for (const followed of [aliceLookup.id, bobLookup.id])
    await api(httpUrl, tokens.carol, 'POST', `/api/v1/accounts/${followed}/follow`);

  const keys = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const remote = await startRemote(keys.publicKey.export({ type: 'spki', format: 'pem' }) as string);
  const key = await signingKey(keys.privateKey);
  const aliceId = `${httpUrl}/users/alice`;
  const inbox = `${httpUrl}/inbox`;

  let local = 0;
  let remoteTaken = 0;
  let errors = 0;
  let lastError = '';
  const inFlight = new Set<Promise<void>>();
  const track = (p: Promise<void>) => {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };
  let posts = 0;
  const post = async (): Promise<void> => {
    const n = posts++;
    try {
      await api(httpUrl, n % 2 === 0 ? tokens.alice : tokens.bob, 'POST', '/api/v1/statuses', { status: `soak ${n}` });
      local++;
    } catch (err) {
      errors++;
      lastError = String((err as Error).cause ?? err);
    }
  };
  let creates = 0;
  // A public Note mentioning alice, signed as Mastodon signs (draft-cavage with a Digest): the bench's own, as
  // the builders under server/social/federation/testing/ are not for code outside that subsystem.
  const sendCreate = async (): Promise<void> => {
    const note = `${remote.actor}/statuses/${++creates}`;
    const body = JSON.stringify({
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${note}/activity`,
      type: 'Create',
      actor: remote.actor,
      to: [PUBLIC],
      cc: [aliceId],
      object: {
        id: note,
        type: 'Note',
        attributedTo: remote.actor,
        content: `<p>soak ${creates} for @alice</p>`,
        to: [PUBLIC],
        cc: [aliceId],
        tag: [{ type: 'Mention', href: aliceId, name: `@alice@${new URL(httpUrl).host}` }],
      },
    });
    try {
      const signed = await signRequest(
        new Request(inbox, { method: 'POST', body, headers: { 'content-type': 'application/activity+json' } }),
        key,
        new URL(`${remote.actor}#main-key`),
        { spec: 'draft-cavage-http-signatures-12' },
      );
      const res = await fetch(signed, { signal: AbortSignal.timeout(60_000) });
      await res.arrayBuffer();
      if (res.status === 202) remoteTaken++;
      else {
        errors++;
        lastError = `the shared inbox answered ${res.status}`;
      }
    } catch (err) {
      errors++;
      lastError = String((err as Error).cause ?? err);
    }
  };

  const quarter = Math.ceil(options.sockets / 4);
  const groups: SocketGroup[] = [
    { name: 'carol user (home)', account: 'carol', stream: 'user', event: 'update', local: true, remote: false },
    { name: 'dave public:local', account: 'dave', stream: 'public:local', event: 'update', local: true, remote: false },
    { name: 'erin public', account: 'erin', stream: 'public', event: 'update', local: true, remote: true },
    {
      name: 'alice user:notification',
      account: 'alice',
      stream: 'user:notification',
      event: 'notification',
      local: false,
      remote: true,
    },
  ].map((g, i) => ({
    ...g,
    received: new Array<number>(Math.max(0, Math.min(quarter, options.sockets - i * quarter))).fill(0),
  }));

  const sockets: WebSocket[] = [];
  let closing = false;
  const wsBase = httpUrl.replace('http', 'ws');
  for (const group of groups) {
    const wanted = Buffer.from(`"${group.event}"`);
    for (let i = 0; i < group.received.length; i++) {
      const ws = openSocket(`${wsBase}/api/v1/streaming?stream=${group.stream}`, [tokens[group.account]], {
        // The frame starts {"stream":[…],"event":"…": its payload is a string, so the pattern cannot be inside it.
        onMessage(data) {
          const at = data.indexOf(EVENT_KEY);
          if (at !== -1 && data.subarray(at + EVENT_KEY.length, at + EVENT_KEY.length + wanted.length).equals(wanted))
            group.received[i]++;
        },
        onDrop(why) {
          if (closing) return;
          errors++;
          lastError = `streaming socket (${group.name}) dropped: ${why}`;
        },
      });
      await new Promise((resolve, reject) => {
        ws.once('open', resolve);
        ws.once('error', reject);
      });
      sockets.push(ws);
    }
  }

  // Proof that every socket is subscribed: one post of each kind reaches all, then the counts start from zero.
  await post();
  await sendCreate();
  if (local !== 1 || remoteTaken !== 1)
    throw new Error(`soak set-up: the first post or remote Create failed: ${lastError}`);
  await waitFor(
    'every streaming socket receiving the first post and remote Create',
    () => groups.every((g) => g.received.every((n) => n >= 1)),
    60_000,
  );
  for (const g of groups) g.received.fill(0);
  local = 0;
  remoteTaken = 0;

  const expected = (g: SocketGroup) => (g.local ? local : 0) + (g.remote ? remoteTaken : 0);
  let running = false;
  let loop: Promise<void> = Promise.resolve();
  const ticker = async (perSecond: number, send: () => Promise<void>) => {
    const started = performance.now();
    for (let n = 0; running; n++) {
      const wait = started + (n * 1000) / perSecond - performance.now();
      if (wait > 0) await sleep(wait);
      if (running) track(send());
    }
  };
  return {
    status: () => ({ posts: local, creates: remoteTaken, errors, lastError, cpuSeconds: ownCpuSeconds() }),
    missing: () =>
      groups.map((g) => ({
        group: `${g.name} (${g.event})`,
        sockets: g.received.length,
        incomplete: g.received.filter((n) => n !== expected(g)).length,
        missingEvents: g.received.reduce((sum, n) => sum + Math.max(0, expected(g) - n), 0),
      })),
    complete: () => groups.every((g) => g.received.every((n) => n === expected(g))),
    start() {
      running = true;
      loop = Promise.all([ticker(options.postsPerSecond, post), ticker(options.createsPerSecond, sendCreate)]).then(
        () => {},
      );
    },
    async stop() {
      running = false;
      await loop;
      await Promise.all(inFlight);
    },
    close() {
      closing = true;
      for (const ws of sockets) ws.terminate();
      remote.close();
    },
  };
}

let load: Awaited<ReturnType<typeof startSocialLoad>> | null = null;
const started = () => {
  if (!load) throw new Error('the social load is not set up');
  return load;
};
answerCalls({
  async setup(setup: SocialSetup) {
    load = await startSocialLoad(setup);
  },
  start: () => started().start(),
  status: () => started().status(),
  stop: () => started().stop(),
  missing: () => started().missing(),
  complete: () => started().complete(),
  close: () => started().close(),
});
