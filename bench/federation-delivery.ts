/**
 * Federation delivery benchmark (`node bench/federation-delivery.ts`).
 *
 * Outbound: one post by an account with 5,000 remote followers spread over 200 peer servers (real HTTP
 * servers on loopback ports, each verifying the draft-cavage signature and the Digest of every POST it gets)
 * is delivered through their shared inboxes. Reports the time to the last delivery, deliveries per second,
 * Fedify's signing cost per request, and — in the same run — the ceiling of plain signed POSTs one process
 * makes to the same peers.
 * Inbound: signed Create activities from a followed remote actor POSTed to the shared inbox; reports how
 * many per second are accepted and land in the follower's home timeline, the server's CPU per activity by
 * thread (the inbox's verifier worker shows as a thread started meanwhile), and API reads meanwhile.
 * INBOX_WORKER=0 verifies every signature on the main thread instead, to compare.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import inspector from 'node:inspector/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { signRequest } from '@fedify/fedify';
import { createHttpServer } from '../server/http/index.ts';
import { createLogger, LogRing } from '../server/logger.ts';
import { FederationRepository, openSocial } from '../server/social/index.ts';

const PEERS = Number(process.env.PEERS ?? 200);
const FOLLOWERS = Number(process.env.FOLLOWERS ?? 5000);
const INBOUND = Number(process.env.INBOUND ?? 500);
const CEILING_REQUESTS = Number(process.env.CEILING ?? 1000);
const INBOUND_CONNECTIONS = Number(process.env.INBOUND_CONNECTIONS ?? 16);

interface Peer {
  port: number;
  server: http.Server;
  received: number;
  rejected: number;
}

/** Checks a draft-cavage signature (rsa-sha256 over the listed headers) and the SHA-256 Digest of the body. */
function verifyCavage(req: http.IncomingMessage, body: Buffer, publicKey: crypto.KeyObject): boolean {
  const header = String(req.headers.signature ?? '');
  const params = Object.fromEntries([...header.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
  if (!params.headers || !params.signature) return false;
  const digest = `SHA-256=${crypto.createHash('sha256').update(body).digest('base64')}`;
  if (req.headers.digest !== digest) return false;
  const signed = params.headers
    .split(' ')
    .map((h) =>
      h === '(request-target)'
        ? `(request-target): ${req.method!.toLowerCase()} ${req.url}`
        : `${h}: ${req.headers[h]}`,
    )
    .join('\n');
  return crypto.verify('sha256', Buffer.from(signed), publicKey, Buffer.from(params.signature, 'base64'));
}

async function startPeer(publicKey: () => crypto.KeyObject, actorDoc?: (port: number) => object): Promise<Peer> {
  const peer: Peer = { port: 0, server: http.createServer(), received: 0, rejected: 0 };
  peer.server.on('request', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'GET' && actorDoc) {
        res.writeHead(200, { 'content-type': 'application/activity+json' }).end(JSON.stringify(actorDoc(peer.port)));
        return;
      }
      const ok = verifyCavage(req, Buffer.concat(chunks), publicKey());
      if (ok) peer.received++;
      else peer.rejected++;
      res.writeHead(ok ? 202 : 401).end();
    });
  });
  await new Promise<void>((r) => peer.server.listen(0, '127.0.0.1', r));
  peer.port = (peer.server.address() as AddressInfo).port;
  return peer;
}

/**
 * CPU seconds used so far by this process's threads, by thread id with its name (Linux /proc): the main thread
 * apart from libuv's pool (WebCrypto signing, digests), V8's helpers (GC) and worker threads, since only the
 * main thread is the limit.
 */
function threadCpu(): Map<string, { name: string; seconds: number }> {
  const byTid = new Map<string, { name: string; seconds: number }>();
  const tick = 100; // USER_HZ
  for (const tid of fs.readdirSync('/proc/self/task')) {
    try {
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const name = tid === String(process.pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      byTid.set(tid, { name, seconds: (Number(fields[11]) + Number(fields[12])) / tick });
    } catch {
      // The thread ended meanwhile.
    }
  }
  return byTid;
}

/**
 * µs per operation by thread name since `before`; threads started meanwhile count as 'new thread' (the
 * delivery worker, which Node names 'node' as it does V8's helpers). A thread that ended meanwhile is missed.
 */
function threadCpuSince(before: Map<string, { name: string; seconds: number }>, per: number): string {
  const byName = new Map<string, number>();
  for (const [tid, { name, seconds }] of threadCpu()) {
    const earlier = before.get(tid);
    const label = earlier ? name : 'new thread';
    byName.set(label, (byName.get(label) ?? 0) + seconds - (earlier?.seconds ?? 0));
  }
  return [...byName]
    .map(([name, s]) => [name, (s * 1e6) / per] as const)
    .filter(([, us]) => us >= 1)
    .sort((a, b) => b[1] - a[1])
    .map(([name, us]) => `${name} ${us.toFixed(0)}`)
    .join(', ');
}

/** OUTBOUND_PROFILE / INBOUND_PROFILE=file.cpuprofile: a V8 CPU profile of this process during that phase only. */
async function startProfile(file: string | undefined): Promise<() => Promise<void>> {
  if (!file) return async () => {};
  const session = new inspector.Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    fs.writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
}

async function waitFor(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 5));
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-bench-fed-'));
const logger = createLogger({ level: 'error', toConsole: true, ring: new LogRing(10) });
const social = await openSocial({
  dataDir: dir,
  logger,
  domain: '127.0.0.1:1',
  generalRateLimit: false,
  // Loopback peers need the test switch; retries never happen here (every peer answers 202).
  federation: {
    allowPrivateAddress: true,
    queueIdleMs: 5,
    retryDelayMs: () => 1000,
    // INBOX_WORKER=0: every signature verified on the main thread, to compare.
    inbox: { verifyInWorker: process.env.INBOX_WORKER !== '0' },
  },
});
const app = await createHttpServer({ logger, rendererDir: null, plugins: [{ name: 'social', plugin: social.plugin }] });
await app.listen({ host: '127.0.0.1', port: 0 });
const port = (app.server.address() as AddressInfo).port;
social.setDomain(`127.0.0.1:${port}`);
const ctx = social.context;
const { account: alice } = await social.admin.createAccount({
  username: 'alice',
  email: 'alice@example.org',
  password: 'correct-horse-battery',
  role: 'owner',
  confirmed: true,
  approved: true,
});
const alicePem = ctx.store.accounts.keyPair(alice.id)!;
const alicePublic = crypto.createPublicKey(alicePem.publicKey);

// ---- outbound: 5,000 followers on 200 peers
const peers = await Promise.all(Array.from({ length: PEERS }, () => startPeer(() => alicePublic)));
const repo = new FederationRepository(ctx.store);
const perPeer = Math.ceil(FOLLOWERS / PEERS);
ctx.store.transaction(() => {
  for (const [i, peer] of peers.entries()) {
    for (let j = 0; j < perPeer && i * perPeer + j < FOLLOWERS; j++) {
      const base = `http://127.0.0.1:${peer.port}`;
      const id = repo.upsertRemoteAccount({
        username: `u${j}`,
        domain: `127.0.0.1:${peer.port}`,
        uri: `${base}/users/u${j}`,
        url: null,
        actorType: 'Person',
        displayName: '',
        note: '',
        fields: [],
        locked: false,
        discoverable: null,
        indexable: false,
        inboxUrl: `${base}/users/u${j}/inbox`,
        sharedInboxUrl: `${base}/inbox`,
        outboxUrl: null,
        followersUrl: null,
        followingUrl: null,
        featuredUrl: null,
        publicKey: alicePem.publicKey,
        avatarRemoteUrl: null,
        headerRemoteUrl: null,
        alsoKnownAs: [],
        suspended: false,
        counts: null,
      });
      ctx.store.relationships.upsertFollow(id, alice.id, { showReblogs: true, notify: false, languages: null });
    }
  }
});
const user = ctx.store.users.byAccountId(alice.id);
// Fedify loads at the first federation use (hundreds of ms of CPU): before the clock, as on a server that federates.
await social.federation!.fedify();
const stopOutboundProfile = await startProfile(process.env.OUTBOUND_PROFILE);
const outboundThreadsBefore = threadCpu();
const outboundCpuBefore = process.cpuUsage();
const outboundCommitsBefore = ctx.store.groupsCommitted;
const started = performance.now();
ctx.statuses.post(
  { account: alice, user, applicationId: null },
  { text: 'Hello, 5,000 followers', visibility: 'public' },
);
await waitFor(() => peers.reduce((n, p) => n + p.received + p.rejected, 0) >= PEERS);
const elapsed = performance.now() - started;
const outboundCpu = process.cpuUsage(outboundCpuBefore);
const outboundCommits = ctx.store.groupsCommitted - outboundCommitsBefore;
const outboundThreads = threadCpuSince(outboundThreadsBefore, PEERS);
await stopOutboundProfile();
const rejected = peers.reduce((n, p) => n + p.rejected, 0);

// Fedify's signing cost per request, and the ceiling of plain signed POSTs from this process to the same peers.
const key = await crypto.subtle.importKey(
  'pkcs8',
  crypto.createPrivateKey(alicePem.privateKey!).export({ type: 'pkcs8', format: 'der' }),
  { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
  true,
  ['sign'],
);
const keyId = new URL(`http://127.0.0.1:${port}/users/alice#main-key`);
const body = JSON.stringify({ '@context': 'https://www.w3.org/ns/activitystreams', type: 'Create', id: 'x' });
const signStart = performance.now();
for (let i = 0; i < 200; i++) {
  await signRequest(
    new Request(`http://127.0.0.1:${peers[i % PEERS].port}/inbox`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/activity+json' },
    }),
    key,
    keyId,
    { spec: 'draft-cavage-http-signatures-12' },
  );
}
const signMs = (performance.now() - signStart) / 200;
for (const p of peers) p.received = 0;
const ceilingThreadsBefore = threadCpu();
const ceilingStart = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: 8 }, async () => {
    while (next < CEILING_REQUESTS) {
      const peer = peers[next++ % PEERS];
      const request = await signRequest(
        new Request(`http://127.0.0.1:${peer.port}/inbox`, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/activity+json' },
        }),
        key,
        keyId,
        { spec: 'draft-cavage-http-signatures-12' },
      );
      await (await fetch(request)).arrayBuffer();
    }
  }),
);
const ceilingPerSec = CEILING_REQUESTS / ((performance.now() - ceilingStart) / 1000);
const ceilingThreads = threadCpuSince(ceilingThreadsBefore, CEILING_REQUESTS);

// ---- inbound: a followed remote actor's signed Creates to the shared inbox, until they are in alice's home feed
const bobKeys = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
const bobPem = bobKeys.publicKey.export({ type: 'spki', format: 'pem' }) as string;
const bobPeer = await startPeer(
  () => bobKeys.publicKey,
  (p) => ({
    '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
    id: `http://127.0.0.1:${p}/users/bob`,
    type: 'Person',
    preferredUsername: 'bob',
    inbox: `http://127.0.0.1:${p}/users/bob/inbox`,
    endpoints: { sharedInbox: `http://127.0.0.1:${p}/inbox` },
    publicKey: {
      id: `http://127.0.0.1:${p}/users/bob#main-key`,
      owner: `http://127.0.0.1:${p}/users/bob`,
      publicKeyPem: bobPem,
    },
  }),
);
const bobBase = `http://127.0.0.1:${bobPeer.port}`;
const bobAccount = (await social.federation!.resolveAccount(`${bobBase}/users/bob`))!;
ctx.store.relationships.upsertFollow(alice.id, bobAccount.id, { showReblogs: true, notify: false, languages: null });
const bobKey = await crypto.subtle.importKey(
  'pkcs8',
  bobKeys.privateKey.export({ type: 'pkcs8', format: 'der' }),
  { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
  true,
  ['sign'],
);
const homeCount = () =>
  Number(
    (
      ctx.store.db
        .prepare(
          'SELECT COUNT(*) AS n FROM home_feed h JOIN statuses s ON s.id = h.status_id WHERE h.account_id = ? AND s.account_id = ?',
        )
        .get(alice.id, bobAccount.id) as { n: bigint }
    ).n,
  );
// Signed before the clock starts (a signature stays valid for an hour): the timed part is the server's work.
const deliveries = await Promise.all(
  Array.from({ length: INBOUND }, async (_, n) => {
    const note = {
      id: `${bobBase}/users/bob/statuses/${n}`,
      type: 'Note',
      attributedTo: `${bobBase}/users/bob`,
      content: `<p>note ${n}</p>`,
      to: ['https://www.w3.org/ns/activitystreams#Public'],
      published: new Date().toISOString(),
    };
    const activity = {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${note.id}/activity`,
      type: 'Create',
      actor: `${bobBase}/users/bob`,
      to: note.to,
      object: note,
    };
    const signed = await signRequest(
      new Request(`http://127.0.0.1:${port}/inbox`, {
        method: 'POST',
        body: JSON.stringify(activity),
        headers: { 'content-type': 'application/activity+json' },
      }),
      bobKey,
      new URL(`${bobBase}/users/bob#main-key`),
      { spec: 'draft-cavage-http-signatures-12' },
    );
    return { headers: Object.fromEntries(signed.headers), body: JSON.stringify(activity) };
  }),
);
const { token } = social.admin.createToken('alice', 'read');
const stopInboundProfile = await startProfile(process.env.INBOUND_PROFILE);
const commitsBefore = ctx.store.groupsCommitted;
const cpuBefore = process.cpuUsage();
const threadsBefore = threadCpu();
// How long the main thread stayed busy between turns of its loop: what an API read waits behind.
const loopDelay = monitorEventLoopDelay({ resolution: 1 });
loopDelay.enable();
const inboundStart = performance.now();
// The senders and one API reader (alice's home timeline, back to back) run in a child process: this process's
// CPU is the server's.
const client = spawn(process.execPath, [path.join(import.meta.dirname, 'federation-inbound-client.ts')], {
  stdio: ['pipe', 'pipe', 'inherit'],
});
client.stdin.end(JSON.stringify({ port, token, connections: INBOUND_CONNECTIONS, deliveries }));
const clientOut: Buffer[] = [];
client.stdout.on('data', (c: Buffer) => clientOut.push(c));
const clientCode = await new Promise<number | null>((resolve) => client.on('close', resolve));
if (clientCode !== 0) throw new Error(`the inbound client exited with ${clientCode}`);
const answers = JSON.parse(Buffer.concat(clientOut).toString('utf8')) as {
  statuses: Record<string, number>;
  sentMs: number;
  readLatencies: number[];
};
const accepted = answers.statuses['202'] ?? 0;
const acceptedMs = answers.sentMs;
await waitFor(() => homeCount() >= accepted);
const landedMs = performance.now() - inboundStart;
const inboundCpu = process.cpuUsage(cpuBefore);
const inboundThreads = threadCpuSince(threadsBefore, accepted);
const inboundCommits = ctx.store.groupsCommitted - commitsBefore;
loopDelay.disable();
await stopInboundProfile();
const readLatencies = answers.readLatencies.sort((a, b) => a - b);
const readP = (q: number) => readLatencies[Math.min(readLatencies.length - 1, Math.floor(q * readLatencies.length))];

console.log(
  `outbound: 1 post, ${FOLLOWERS} followers on ${PEERS} servers → ${PEERS} shared-inbox deliveries (${rejected} refused by the peers' signature check)`,
);
console.log(
  `  time to last delivery ${elapsed.toFixed(0)} ms, ${(PEERS / (elapsed / 1000)).toFixed(0)} deliveries/s, ${outboundCommits} write-group commits`,
);
console.log(
  `  ${(((outboundCpu.user + outboundCpu.system) / PEERS) | 0).toString()} µs process CPU per delivery (the 200 peers' verification included); by thread: ${outboundThreads}`,
);
console.log(`  signing (Fedify, draft-cavage, RSA 2048) ${(signMs * 1000).toFixed(0)} µs per request`);
console.log(
  `  ceiling: plain signed POSTs from one process, 8 at a time: ${ceilingPerSec.toFixed(0)}/s; by thread, µs per request: ${ceilingThreads}`,
);
console.log(
  `  outbound at ${((100 * PEERS) / (elapsed / 1000) / ceilingPerSec).toFixed(0)}% of the ceiling (target ≥ 60%)`,
);
console.log(
  `inbound: ${INBOUND} signed Creates to the shared inbox, ${INBOUND_CONNECTIONS} connections: answers ${JSON.stringify(answers.statuses)}, ${accepted} accepted in ${acceptedMs.toFixed(0)} ms (${(accepted / (acceptedMs / 1000)).toFixed(0)}/s), all in the home timeline after ${landedMs.toFixed(0)} ms (${(accepted / (landedMs / 1000)).toFixed(0)}/s)`,
);
console.log(
  `  server CPU per activity ${((inboundCpu.user + inboundCpu.system) / accepted).toFixed(0)} µs (${(inboundCpu.user / accepted).toFixed(0)} user, ${(inboundCpu.system / accepted).toFixed(0)} system; clients in their own process), ${inboundCommits} write-group commits (${(accepted / Math.max(1, inboundCommits)).toFixed(1)} activities per commit)`,
);
console.log(`  by thread, µs per activity: ${inboundThreads}`);
console.log(
  `  API reads meanwhile (home timeline, 1 client): ${readLatencies.length} reads, p50 ${readP(0.5).toFixed(1)} ms, p99 ${readP(0.99).toFixed(1)} ms (target < 50 ms)`,
);
const loopMs = (ns: number) => (ns / 1e6).toFixed(1);
console.log(
  `  main thread's event-loop delay meanwhile: p50 ${loopMs(loopDelay.percentile(50))} ms, p99 ${loopMs(loopDelay.percentile(99))} ms, max ${loopMs(loopDelay.max)} ms`,
);
console.log(
  `  load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);

for (const p of [...peers, bobPeer]) p.server.close();
await app.close();
await social.close();
fs.rmSync(dir, { recursive: true, force: true });
