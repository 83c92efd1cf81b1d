import http from 'node:http';
import https from 'node:https';
import { namespaceContext, report } from '../../security/testing/netns-child.ts';
import { startSocialTestServer } from '../testing/harness.ts';
import { checkInstance, type SelfCheckReport } from './self-check.ts';

/*
 * Run by self-check.netns.test.ts inside its namespace: for each public name the test gives, a Homeport as
 * served with that public URL (https), behind a TLS proxy on the address the name is meant to have (the
 * public-looking 1.2.3.4, or the private 10.1.2.3), checked by its own federation self-check. An impostor
 * answers on 127.0.0.1:443, where a name that resolves differently the second time would lead.
 */

export interface SelfCheckNetnsReport {
  reports: Record<string, SelfCheckReport>;
  /** Requests the impostor on 127.0.0.1:443 got. */
  impostorHits: number;
}

const { certificates, input } = namespaceContext<{ names: string[]; publicCert: string; privateCert: string }>();
let target = '';
const forward: http.RequestListener = (req, res) => {
  const upstream = http.request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => res.writeHead(502).end());
  req.pipe(upstream);
};
const proxies = [
  { server: https.createServer(certificates[input.publicCert], forward), address: '1.2.3.4' },
  { server: https.createServer(certificates[input.privateCert], forward), address: '10.1.2.3' },
];
let impostorHits = 0;
const impostor = https.createServer(certificates[input.publicCert], (_req, res) => {
  impostorHits++;
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"instance":"someone else"}');
});
await Promise.all(
  [...proxies, { server: impostor, address: '127.0.0.1' }].map(
    ({ server, address }) => new Promise<void>((resolve) => server.listen(443, address, resolve)),
  ),
);

const reports: Record<string, SelfCheckReport> = {};
try {
  for (const name of input.names) {
    const server = await startSocialTestServer({ publicUrl: `https://${name}` });
    try {
      target = server.url;
      await server.createUser('owner', { role: 'owner' });
      reports[name] = await checkInstance(server.social.context);
    } finally {
      await server.close();
    }
  }
} finally {
  for (const { server } of [...proxies, { server: impostor }]) server.close();
}
await report({ reports, impostorHits } satisfies SelfCheckNetnsReport);
