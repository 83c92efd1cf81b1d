import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTestCertificate } from '../../security/testing/certificates.ts';

/*
 * Two `homeport serve` processes with their own names over real TLS, following each other and exchanging
 * posts, mentions and replies through masto.js. They run in a network and mount namespace this test makes
 * (`unshare`): only loopback exists there, and an /etc/hosts of its own names alpha.test and beta.test.
 * A test CA signs their certificate; every process trusts it through NODE_EXTRA_CA_CERTS.
 */

const SCENARIO = path.join(import.meta.dirname, 'testing', 'two-servers.scenario.ts');

describe('two Homeport servers over TLS', () => {
  it('follow each other and exchange posts, mentions and replies', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-two-servers-'));
    try {
      const server = await makeTestCertificate(['alpha.test', 'beta.test']);
      const files = {
        ca: path.join(dir, 'ca.pem'),
        key: path.join(dir, 'server.key'),
        cert: path.join(dir, 'server.pem'),
        hosts: path.join(dir, 'hosts'),
      };
      fs.writeFileSync(files.ca, server.ca);
      fs.writeFileSync(files.key, server.key, { mode: 0o600 });
      fs.writeFileSync(files.cert, server.cert);
      fs.writeFileSync(files.hosts, '127.0.0.1 localhost\n127.0.0.2 alpha.test\n127.0.0.3 beta.test\n');
      const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
      const script = `mount --bind ${quote(files.hosts)} /etc/hosts && ip link set lo up && exec ${quote(process.execPath)} ${quote(SCENARIO)} ${quote(dir)} ${quote(files.key)} ${quote(files.cert)}`;
      const child = spawn('unshare', ['--user', '--map-root-user', '--net', '--mount', 'sh', '-c', script], {
        env: { ...process.env, NODE_EXTRA_CA_CERTS: files.ca },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      const line = out.trim().split('\n').pop() ?? '';
      const result = JSON.parse(line || '{}') as Record<string, unknown>;
      expect(result.error ?? null).toBeNull();
      expect(code).toBe(0);
      expect(result).toMatchObject({
        ok: true,
        bobAcct: 'bob@beta.test',
        aliceAcct: 'alice@alpha.test',
        bobFollowers: ['alice@alpha.test'],
        aliceFollowsBob: true,
        postArrived: true,
        mentionFrom: 'alice@alpha.test',
        replyThreaded: true,
        mentionOnAlpha: 'bob@beta.test',
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
