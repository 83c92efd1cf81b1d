/**
 * Federation delivery benchmark (`node bench/federation-delivery.ts`).
 *
 * Outbound: one post by an account with 5,000 remote followers spread over 200 peer servers (real HTTP
 * servers on loopback ports, each verifying the draft-cavage signature and the Digest of every POST it gets)
 * is delivered through their shared inboxes. Reports the time to the last delivery, deliveries per second,
 * Fedify's signing cost per request, and — in the same run — the ceiling of plain signed POSTs one process
 * makes to the same peers.
 * Inbound: signed Create activities to the shared inbox (bench/federation-inbound.ts).
 * PHASES=inbound runs one phase only; INBOUND_SHAPE=mastodon sends Creates as Mastodon shapes them (mastodon-signed: with its Linked Data signature);
 * INBOX_WORKER=0 verifies every signature on the main thread instead, to compare.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { signRequest } from '@fedify/fedify';
import { createHttpServer } from '../server/http/index.ts';
import { createLogger, LogRing } from '../server/logger.ts';
import { type Account, FederationRepository, openSocial } from '../server/social/index.ts';
import { benchInbound } from './federation-inbound.ts';
import {
  type Peer,
  startPeer,
  startProfile,
  threadCpu,
  threadCpuSince,
  signingKey,
  waitFor,
} from './federation-support.ts';

const PHASES = new Set((process.env.PHASES ?? 'outbound,inbound').split(','));

const PEERS = Number(process.env.PEERS ?? 200);
const FOLLOWERS = Number(process.env.FOLLOWERS ?? 5000);
// 2,000: a run of 500 lasted about 1.4 s, much of it the verifier worker's start and the first compilations.
const INBOUND = Number(process.env.INBOUND ?? 2000);
const CEILING_REQUESTS = Number(process.env.CEILING ?? 1000);
const INBOUND_CONNECTIONS = Number(process.env.INBOUND_CONNECTIONS ?? 16);

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

// Fedify loads at the first federation use (hundreds of ms of CPU): before the clock, as on a server that federates.
await social.federation!.fedify();
if (PHASES.has('outbound')) await benchOutbound(alice);
if (PHASES.has('inbound'))
  await benchInbound(social, port, alice, {
    activities: INBOUND,
    connections: INBOUND_CONNECTIONS,
    shape:
      process.env.INBOUND_SHAPE === 'mastodon' || process.env.INBOUND_SHAPE === 'mastodon-signed'
        ? process.env.INBOUND_SHAPE
        : 'plain',
    profile: process.env.INBOUND_PROFILE,
  });
await app.close();
await social.close();
fs.rmSync(dir, { recursive: true, force: true });

async function benchOutbound(alice: Account): Promise<void> {
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
  const key = await signingKey(crypto.createPrivateKey(alicePem.privateKey!));
  const keyId = new URL(`http://127.0.0.1:${port}/users/alice#main-key`);
  const body = JSON.stringify({ '@context': 'https://www.w3.org/ns/activitystreams', type: 'Create', id: 'x' });
  const signedPost = (peer: Peer) =>
    signRequest(
      new Request(`http://127.0.0.1:${peer.port}/inbox`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/activity+json' },
      }),
      key,
      keyId,
      { spec: 'draft-cavage-http-signatures-12' },
    );
  const signStart = performance.now();
  for (let i = 0; i < 200; i++) await signedPost(peers[i % PEERS]);
  const signMs = (performance.now() - signStart) / 200;
  for (const p of peers) p.received = 0;
  const ceilingThreadsBefore = threadCpu();
  const ceilingStart = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < CEILING_REQUESTS) {
        await (await fetch(await signedPost(peers[next++ % PEERS]))).arrayBuffer();
      }
    }),
  );
  const ceilingPerSec = CEILING_REQUESTS / ((performance.now() - ceilingStart) / 1000);
  const ceilingThreads = threadCpuSince(ceilingThreadsBefore, CEILING_REQUESTS);
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
  for (const p of peers) p.server.close();
}
