import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestCertificates } from '../../security/testing/certificates.ts';
import { until } from './testing/attacked-server.ts';
import { inboxPostWithKey, resolvingSearch } from './testing/attacks.ts';
import { HOSTILE_MODES, startHostilePeer, type HostileMode, type HostilePeer } from './testing/hostile-peer.ts';
import { sampleMemory, startServeProcess, type ServeProcess } from '../../testing/serve-process.ts';

/*
 * Issue 32, findings 1, 2 and 5 replayed on loopback: a `homeport serve` process (private addresses allowed
 * for the test, HOMEPORT_TEST_PRIVATE_NETWORK) and a hostile server on 127.0.0.1 over TLS (a test CA the
 * server trusts) answering with gzip and brotli bombs (512 MiB decompressed), an endless body, a 1 byte/s drip
 * and a 50 MB actor. Each attack must fail with a clear error while the server keeps answering, its memory
 * bounded. hostile-peers-netns.test.ts replays them with the private-address guard on, and DNS rebinding.
 */

/** Growth of the server's resident memory allowed during one attack (generous: the bodies are 50 MB to 1 GiB). */
const MEMORY_HEADROOM = 150 * 1024 * 1024;
/** The bounds' message: the size limits, or the deadline. */
const BOUNDS = /larger than \d+ bytes|did not answer in full within/;

describe('a hostile fediverse server (loopback)', () => {
  let dir: string;
  let peer: HostilePeer;
  let server: ServeProcess;
  let token: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-hostile-'));
    const { ca, certificates } = await makeTestCertificates(['127.0.0.1']);
    fs.writeFileSync(path.join(dir, 'ca.pem'), ca);
    peer = await startHostilePeer({ address: '127.0.0.1', tls: certificates['127.0.0.1'] });
  }, 60_000);

  afterAll(async () => {
    await peer?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Runs `attack` while checking that the server answers other requests and watching its memory; returns
   * what the attack returned, once the server is known to be alive and within bounds.
   */
  async function survives<T>(attack: () => Promise<T>): Promise<T> {
    const before = server.rss()!;
    const memory = sampleMemory(server);
    const pending = attack();
    let answered = false;
    pending.then(
      () => (answered = true),
      () => (answered = true),
    );
    try {
      // Other requests are answered while the attack is under way.
      do {
        const res = await fetch(`${server.httpUrl}/api/v1/instance`);
        expect(res.status).toBe(200);
        await res.arrayBuffer();
        // At most once a second (the general rate limit, 300 requests in 5 minutes, must not be what answers),
        // and no longer once the attack is over.
        await Promise.race([pending.catch(() => {}), new Promise((r) => setTimeout(r, 1000))]);
      } while (!answered);
      const result = await pending;
      expect(server.exitStatus).toBeNull();
      expect(memory.peak() - before).toBeLessThan(MEMORY_HEADROOM);
      return result;
    } finally {
      memory.stop();
    }
  }

  const bomb = (mode: HostileMode) => mode === 'gzip-bomb' || mode === 'brotli-bomb';

  /**
   * The peer was asked once for `mode` since `from`, and the server hung up before the answer's end (a bomb
   * is small as sent, so it may be read whole: what counts there is that it was not decompressed whole).
   */
  async function expectCutShort(mode: HostileMode, from: number) {
    const visits = () => peer.visits.slice(from).filter((v) => v.mode === mode);
    // The peer learns of the hang-up when its socket closes, which may come just after the server's answer.
    if (!bomb(mode)) await until(`the ${mode} answer cut short`, async () => visits()[0]?.cutShort);
    expect(visits()).toHaveLength(1);
    if (!bomb(mode)) expect(visits()[0].cutShort).toBe(true);
  }

  const signedPost = (keyId: string) => inboxPostWithKey(server.httpUrl, keyId);
  const search = (q: string) => resolvingSearch(server.httpUrl, token, q);

  describe.each(HOSTILE_MODES)('answering with %s', (mode) => {
    // A server of its own per kind of attack: memory an earlier attack left taken must not hide this one's.
    beforeAll(async () => {
      // The drip is cut by the deadline: 1.5 s instead of 10 (the same bound, sooner); the others by their sizes.
      const deadline: Record<string, string> = mode === 'drip' ? { HOMEPORT_TEST_FETCH_DEADLINE_MS: '1500' } : {};
      server = await startServeProcess({
        dataDir: path.join(dir, mode),
        publicUrl: true,
        env: { HOMEPORT_TEST_PRIVATE_NETWORK: '1', NODE_EXTRA_CA_CERTS: path.join(dir, 'ca.pem'), ...deadline },
      });
      token = server.createUser('alice');
    }, 60_000);
    afterAll(() => server?.stop());

    it('an inbox POST whose keyId points there is refused; the key fetch is cut short', async () => {
      const from = peer.visits.length;
      const res = await survives(() => signedPost(`${peer.origin}/${mode}#main-key`));
      expect(res.status).toBe(401);
      await expectCutShort(mode, from);
    }, 60_000);

    it.each([
      ['a handle whose WebFinger answer is that', () => `@${mode}@${peer.host}`],
      ['a handle whose actor document is that', () => `@actor-${mode}@${peer.host}`],
      ['the URL of an actor whose document is that', () => `${peer.origin}/${mode}`],
    ])(
      'a search for %s fails with the bounds named',
      async (_what, query) => {
        const from = peer.visits.length;
        const res = await survives(() => search(query()));
        expect(res.status).toBe(422);
        const named =
          mode === 'drip'
            ? /did not answer in full within 1.5 s/
            : bomb(mode)
              ? /larger than \d+ bytes once decompressed/
              : BOUNDS;
        expect(res.error).toMatch(named);
        await expectCutShort(mode, from);
      },
      60_000,
    );
  });
});
