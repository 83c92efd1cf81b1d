/**
 * Inbox flood (`node bench/inbox-flood.ts`): issue 32's volume test. `homeport serve` runs in its own process
 * (loopback peers allowed, as the multi-process federation tests run it); a remote actor on a loopback peer
 * POSTs RATE signed Creates per second, each addressed to alice (so the server keeps them), to the shared
 * inbox for SECONDS seconds, open loop: each sent on time whatever the answers. Reports the answers by status,
 * the server's resident memory (start, peak, end, read from /proc) and the inbox queue's depth.
 * RATE (200), SECONDS (60).
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import { signRequest } from '@fedify/fedify';
import { startServer, stopServer } from './support.ts';
import { signingKey } from './federation-support.ts';

const RATE = Number(process.env.RATE ?? 200);
const SECONDS = Number(process.env.SECONDS ?? 60);
const ROOT = path.resolve(import.meta.dirname, '..');

/** The remote actor: its document (with the key the flood is signed with); every POST to it answered 202. */
async function startPeer(publicKeyPem: string): Promise<{ base: string; close: () => void }> {
  const peer = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method !== 'GET') return void res.writeHead(202).end();
      const base = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
      const actor = {
        '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
        id: `${base}/users/bob`,
        type: 'Person',
        preferredUsername: 'bob',
        inbox: `${base}/users/bob/inbox`,
        publicKey: { id: `${base}/users/bob#main-key`, owner: `${base}/users/bob`, publicKeyPem },
      };
      res.writeHead(200, { 'content-type': 'application/activity+json' }).end(JSON.stringify(actor));
    });
  });
  await new Promise<void>((r) => peer.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${(peer.address() as AddressInfo).port}`, close: () => peer.close() };
}

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

const keys = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
const peer = await startPeer(keys.publicKey.export({ type: 'spki', format: 'pem' }) as string);
process.env.HOMEPORT_TEST_PRIVATE_NETWORK = '1';
const server = await startServer('homeport-bench-flood-');
execFileSync(
  process.execPath,
  [
    'bin/homeport.js',
    'accounts',
    'create',
    'alice',
    '--email',
    'alice@example.org',
    '--password',
    'correct-horse-battery',
    '--confirmed',
    '--approved',
    '--data-dir',
    server.dataDir,
  ],
  { cwd: ROOT, stdio: 'ignore' },
);
const inbox = `http://127.0.0.1:${server.httpPort}/inbox`;
const alice = (
  (await (
    await fetch(`http://127.0.0.1:${server.httpPort}/users/alice`, {
      headers: { accept: 'application/activity+json' },
    })
  ).json()) as { id: string }
).id;
const db = new Database(path.join(server.dataDir, 'social.db'), { readonly: true });
const inboxQueued = () =>
  Number(
    (
      db
        .prepare(`SELECT COUNT(*) AS n FROM federation_queue WHERE json_extract(message, '$.type') = 'inbox'`)
        .get() as { n: number }
    ).n,
  );
const storedFromPeer = () =>
  Number((db.prepare('SELECT COUNT(*) AS n FROM statuses WHERE uri LIKE ?').get(`${peer.base}/%`) as { n: number }).n);

const key = await signingKey(keys.privateKey);
const answers = new Map<string, number>();
const count = (s: string) => answers.set(s, (answers.get(s) ?? 0) + 1);
let sent = 0;
async function send(): Promise<void> {
  const i = sent++;
  const note = {
    id: `${peer.base}/users/bob/statuses/${i}`,
    type: 'Note',
    attributedTo: `${peer.base}/users/bob`,
    content: `<p>flood ${i}</p>`,
    to: [alice],
    published: new Date().toISOString(),
  };
  const body = JSON.stringify({
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${note.id}/activity`,
    type: 'Create',
    actor: `${peer.base}/users/bob`,
    to: note.to,
    object: note,
  });
  const request = await signRequest(
    new Request(inbox, { method: 'POST', body, headers: { 'content-type': 'application/activity+json' } }),
    key,
    new URL(`${peer.base}/users/bob#main-key`),
    { spec: 'draft-cavage-http-signatures-12' },
  );
  try {
    const res = await fetch(request, { signal: AbortSignal.timeout(120_000) });
    await res.arrayBuffer();
    count(String(res.status));
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause;
    count(`${(err as Error).name}${cause?.code ? ` ${cause.code}` : ''}`);
  }
}

const pid = server.child.pid!;
const samples: { rssMb: number; inboxQueued: number }[] = [];
const sample = () => samples.push({ rssMb: rssMb(pid), inboxQueued: inboxQueued() });
sample();
const sampler = setInterval(sample, 1000);
const inFlight = new Set<Promise<void>>();
const started = performance.now();
// Open loop: a tenth of RATE every 100 ms, without waiting for answers.
for (let tick = 0; tick < SECONDS * 10; tick++) {
  for (let j = 0; j < RATE / 10; j++) {
    const p = send().finally(() => inFlight.delete(p));
    inFlight.add(p);
  }
  await new Promise((r) => setTimeout(r, Math.max(0, started + (tick + 1) * 100 - performance.now())));
}
await Promise.all(inFlight);
clearInterval(sampler);
sample();
console.log(
  JSON.stringify(
    {
      rate: RATE,
      seconds: SECONDS,
      sent,
      answers: Object.fromEntries(answers),
      serverRssMb: {
        start: Math.round(samples[0].rssMb),
        peak: Math.round(Math.max(...samples.map((s) => s.rssMb))),
        end: Math.round(samples[samples.length - 1].rssMb),
      },
      inboxQueuedPeak: Math.max(...samples.map((s) => s.inboxQueued)),
      storedAtEnd: storedFromPeer(),
    },
    null,
    2,
  ),
);
db.close();
await stopServer(server);
peer.close();
