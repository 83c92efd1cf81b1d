import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestCertificates } from '../../security/testing/certificates.ts';
import { HOSTILE_MODES, startHostilePeer, type HostilePeer } from './testing/hostile-peer.ts';
import { startServeProcess, type ServeProcess } from '../../testing/serve-process.ts';

/*
 * Issue 32, finding 3: a CSV import naming accounts on a hostile server killed the server, which resumed the
 * import at its next start and died again. Replayed on loopback against `homeport serve` processes (private
 * addresses allowed for the test): rows past the fetch bounds fail with why, and a row whose lookup the server
 * did not survive (killed here with SIGKILL while the lookup is under way) is not looked up forever.
 */

const FOLLOWS_HEADER = 'Account address,Show boosts,Notify on new posts,Languages';
const BOUNDS = /larger than \d+ bytes|did not answer in full within/;

interface ImportView {
  state: string;
  total_items: number;
  processed_items: number;
  failed_items: number;
  failures: { row: number; data: { acct: string }; error: string }[];
}

/** Polls until `check` gives a value; fails after `attempts` tries 200 ms apart. */
async function until<T>(what: string, check: () => Promise<T | null | undefined | false>, attempts = 600): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const value = await check().catch(() => null);
    if (value) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`never happened: ${what}`);
}

describe('an import naming accounts on a hostile server', () => {
  let dir: string;
  let caFile: string;
  let peer: HostilePeer;
  const servers: ServeProcess[] = [];

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-hostile-imports-'));
    const { ca, certificates } = await makeTestCertificates(['127.0.0.1']);
    caFile = path.join(dir, 'ca.pem');
    fs.writeFileSync(caFile, ca);
    peer = await startHostilePeer({ address: '127.0.0.1', tls: certificates['127.0.0.1'] });
  }, 60_000);

  afterAll(async () => {
    for (const server of servers) await server.stop();
    await peer?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const start = async (dataDir: string, port?: number, env: Record<string, string> = {}) => {
    const server = await startServeProcess({
      dataDir,
      httpPort: port,
      publicUrl: true,
      env: { HOMEPORT_TEST_PRIVATE_NETWORK: '1', NODE_EXTRA_CA_CERTS: caFile, ...env },
    });
    servers.push(server);
    return server;
  };

  const api = async (server: ServeProcess, token: string, method: string, route: string, body?: object) => {
    const res = await fetch(`${server.httpUrl}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, json: (await res.json()) as ImportView & { id: string } };
  };

  const finished = (server: ServeProcess, token: string, id: string) =>
    until('the import finished', async () => {
      const view = (await api(server, token, 'GET', `/api/v1/homeport/imports/${id}`)).json;
      return view.state === 'finished' && view;
    });

  it('fails each row past the fetch bounds with why, and finishes, the server still up', async () => {
    // The drip rows meet a 3 s deadline instead of 10 (the same bound, sooner).
    const server = await start(path.join(dir, 'bounds'), undefined, { HOMEPORT_TEST_FETCH_DEADLINE_MS: '3000' });
    const token = server.createUser('alice');
    const accts = HOSTILE_MODES.flatMap((mode) => [`${mode}@${peer.host}`, `actor-${mode}@${peer.host}`]);
    const csv = [FOLLOWS_HEADER, ...accts.map((acct) => `${acct},true,false,`)].join('\n');
    const res = await api(server, token, 'POST', '/api/v1/homeport/imports', { type: 'following_accounts', data: csv });
    expect(res.status).toBe(202);
    const done = await finished(server, token, res.json.id);
    expect(done).toMatchObject({
      total_items: accts.length,
      processed_items: accts.length,
      failed_items: accts.length,
    });
    for (const failure of done.failures) expect(failure.error, failure.data.acct).toMatch(BOUNDS);
    expect(server.exitStatus).toBeNull();
    expect((await fetch(`${server.httpUrl}/api/v1/instance`)).status).toBe(200);
  }, 180_000);

  it('looks a row up again after the server died during its lookup, once: then the row fails for good', async () => {
    const dataDir = path.join(dir, 'restarts');
    let server = await start(dataDir);
    const port = server.httpPort;
    const token = server.createUser('alice');
    const drips = () => peer.visits.filter((v) => v.mode === 'drip').length;
    const before = drips();
    const res = await api(server, token, 'POST', '/api/v1/homeport/imports', {
      type: 'following_accounts',
      data: `${FOLLOWS_HEADER}\ndrip@${peer.host},true,false,`,
    });
    expect(res.status).toBe(202);
    // Twice: the lookup under way (the drip holds it), the server killed as the bomb of the issue killed it.
    for (const round of [1, 2]) {
      await until(`lookup ${round} under way`, async () => drips() === before + round);
      await server.stop('SIGKILL');
      server = await start(dataDir, port);
    }
    const done = await finished(server, token, res.json.id);
    expect(done.failures).toEqual([
      expect.objectContaining({ row: 1, error: expect.stringMatching(/cut short 2 times by the server stopping/) }),
    ]);
    expect(drips()).toBe(before + 2);
  }, 180_000);
});
