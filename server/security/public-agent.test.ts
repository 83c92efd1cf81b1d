import https from 'node:https';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { publicOnlyAgent } from './index.ts';
import { makeTestCertificate } from './testing/certificates.ts';

/*
 * The https agent of server-made requests builds its TLS context (the trusted CAs) once, not per connection
 * (tls.connect's default): every posted link's preview-card fetch paid for one. Certificates are still checked.
 */

let server: https.Server;
let port: number;
let ca: string;

beforeAll(async () => {
  const pems = await makeTestCertificate(['127.0.0.1']);
  ca = pems.ca;
  // Connection: close, so every request opens a new TLS connection.
  server = https.createServer({ key: pems.key, cert: pems.cert }, (_req, res) =>
    res.writeHead(200, { Connection: 'close' }).end('ok'),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

const get = (agent: https.Agent) =>
  new Promise<string>((resolve, reject) => {
    https
      .get(`https://127.0.0.1:${port}/`, { agent }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve(body));
      })
      .on('error', reject);
  });

describe('publicOnlyAgent over https', () => {
  it('builds one TLS context for all its connections, and still checks certificates against it', async () => {
    const contexts = vi.spyOn(tls, 'createSecureContext');
    try {
      const agent = publicOnlyAgent('https:', { allowPrivateAddress: true, ca });
      for (let i = 0; i < 3; i++) expect(await get(agent)).toBe('ok');
      expect(contexts).toHaveBeenCalledTimes(1);
      agent.destroy();
      const untrusting = publicOnlyAgent('https:', { allowPrivateAddress: true });
      await expect(get(untrusting)).rejects.toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
      untrusting.destroy();
    } finally {
      contexts.mockRestore();
    }
  });
});
