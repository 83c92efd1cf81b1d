/**
 * bench:federation's inbound phase: signed Create activities from a followed remote actor POSTed to the shared
 * inbox until they are in the follower's home timeline, while one client reads that timeline back to back.
 * Prints how many per second are accepted and land, the server's CPU per activity by thread (the inbox's
 * verifier worker shows as a thread started meanwhile), the clients' own CPU per activity (they share the
 * machine's cores with the server), activities per commit, the reads' latency and the event-loop delay.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { signJsonLd, signRequest } from '@fedify/fedify';
import { mastodonCreate } from '../server/social/federation/testing/index.ts';
import type { Account, openSocial } from '../server/social/index.ts';
import {
  startPeer,
  startProfile,
  threadCpu,
  threadCpuSince,
  signingKey,
  waitFor,
  type Peer,
} from './federation-support.ts';

type Social = Awaited<ReturnType<typeof openSocial>>;

export interface InboundOptions {
  activities: number;
  connections: number;
  /**
   * 'mastodon': each Create as Mastodon sends it (its inline context, followers in cc, a hashtag and a mention);
   * 'mastodon-signed': with the Linked Data signature Mastodon adds to public posts (signed before the clock starts).
   */
  shape: 'plain' | 'mastodon' | 'mastodon-signed';
  profile: string | undefined;
}

/** What the inbound client prints (bench/federation-inbound-client.ts). */
interface ClientAnswers {
  statuses: Record<string, number>;
  sentMs: number;
  readLatencies: number[];
  /** The client process's CPU while it sent, µs. */
  cpuMicros: number;
}

/** The Create of note `n` by `actor`, shaped as `shape` says. */
function createActivity(actor: string, n: number, shape: InboundOptions['shape'], mentioned: string): object {
  const id = `${actor}/statuses/${n}`;
  const published = new Date().toISOString();
  if (shape === 'plain') {
    const note = {
      id,
      type: 'Note',
      attributedTo: actor,
      content: `<p>note ${n}</p>`,
      to: ['https://www.w3.org/ns/activitystreams#Public'],
      published,
    };
    return {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${id}/activity`,
      type: 'Create',
      actor,
      to: note.to,
      object: note,
    };
  }
  return mastodonCreate(actor, n, mentioned, published);
}

export async function benchInbound(social: Social, port: number, alice: Account, options: InboundOptions) {
  const ctx = social.context;
  const bobKeys = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const bobPem = bobKeys.publicKey.export({ type: 'spki', format: 'pem' }) as string;
  const bobPeer: Peer = await startPeer(
    () => bobKeys.publicKey,
    (p) => ({
      '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
      id: `http://127.0.0.1:${p}/users/bob`,
      type: 'Person',
      preferredUsername: 'bob',
      inbox: `http://127.0.0.1:${p}/users/bob/inbox`,
      followers: `http://127.0.0.1:${p}/users/bob/followers`,
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
  const bobKey = await signingKey(bobKeys.privateKey);
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
  const aliceUri = `http://127.0.0.1:${port}/users/alice`;
  // Signed before the clock starts (a signature stays valid for an hour): the timed part is the server's work.
  const deliveries = await Promise.all(
    Array.from({ length: options.activities }, async (_, n) => {
      const activity = createActivity(`${bobBase}/users/bob`, n, options.shape, aliceUri);
      const body = JSON.stringify(
        options.shape === 'mastodon-signed'
          ? await signJsonLd(activity, bobKey, new URL(`${bobBase}/users/bob#main-key`), {})
          : activity,
      );
      const signed = await signRequest(
        new Request(`http://127.0.0.1:${port}/inbox`, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/activity+json' },
        }),
        bobKey,
        new URL(`${bobBase}/users/bob#main-key`),
        { spec: 'draft-cavage-http-signatures-12' },
      );
      return { headers: Object.fromEntries(signed.headers), body };
    }),
  );
  const { token } = social.admin.createToken('alice', 'read');
  const stopProfile = await startProfile(options.profile);
  const commitsBefore = ctx.store.groupsCommitted;
  const dataVersionsBefore = ctx.store.dataVersionReads;
  const cpuBefore = process.cpuUsage();
  const threadsBefore = threadCpu();
  // How long the main thread stayed busy between turns of its loop: what an API read waits behind.
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  loopDelay.enable();
  const started = performance.now();
  // The senders and one API reader (alice's home timeline, back to back) run in a child process: this process's
  // CPU is the server's.
  const client = spawn(process.execPath, [path.join(import.meta.dirname, 'federation-inbound-client.ts')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  client.stdin.end(JSON.stringify({ port, token, connections: options.connections, deliveries }));
  const clientOut: Buffer[] = [];
  client.stdout.on('data', (c: Buffer) => clientOut.push(c));
  const clientCode = await new Promise<number | null>((resolve) => client.on('close', resolve));
  if (clientCode !== 0) throw new Error(`the inbound client exited with ${clientCode}`);
  const answers = JSON.parse(Buffer.concat(clientOut).toString('utf8')) as ClientAnswers;
  const accepted = answers.statuses['202'] ?? 0;
  await waitFor(() => homeCount() >= accepted);
  const landedMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const threads = threadCpuSince(threadsBefore, accepted);
  const commits = ctx.store.groupsCommitted - commitsBefore;
  const dataVersions = ctx.store.dataVersionReads - dataVersionsBefore;
  loopDelay.disable();
  await stopProfile();
  bobPeer.server.close();
  const reads = answers.readLatencies.sort((a, b) => a - b);
  const readP = (q: number) => reads[Math.min(reads.length - 1, Math.floor(q * reads.length))];
  const perSecond = (ms: number) => (accepted / (ms / 1000)).toFixed(0);
  console.log(
    `inbound: ${options.activities} signed Creates (${options.shape}) to the shared inbox, ${options.connections} connections: answers ${JSON.stringify(answers.statuses)}, ${accepted} accepted in ${answers.sentMs.toFixed(0)} ms (${perSecond(answers.sentMs)}/s), all in the home timeline after ${landedMs.toFixed(0)} ms (${perSecond(landedMs)}/s)`,
  );
  console.log(
    `  server CPU per activity ${((cpu.user + cpu.system) / accepted).toFixed(0)} µs (${(cpu.user / accepted).toFixed(0)} user, ${(cpu.system / accepted).toFixed(0)} system), ${commits} write-group commits (${(accepted / Math.max(1, commits)).toFixed(1)} activities per commit)`,
  );
  console.log(`  by thread, µs per activity: ${threads}`);
  console.log(
    `  PRAGMA data_version: ${dataVersions} (${(dataVersions / accepted).toFixed(2)} per activity, the API reads meanwhile included)`,
  );
  console.log(
    `  the clients' own process (senders and reader, same cores): ${(answers.cpuMicros / accepted).toFixed(0)} µs CPU per activity`,
  );
  console.log(
    `  API reads meanwhile (home timeline, 1 client): ${reads.length} reads, p50 ${readP(0.5).toFixed(1)} ms, p99 ${readP(0.99).toFixed(1)} ms (target < 50 ms)`,
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
}
