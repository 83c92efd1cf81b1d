import dns from 'node:dns/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { namespaceContext, report } from './netns-child.ts';

// The harness's own check (netns.test.ts): a TLS site on a public-looking address under a test-CA
// certificate, the generated /etc/hosts, and the DNS server's successive answers.
const { certificates } = namespaceContext();
const site = https.createServer(certificates['site.example'], (_req, res) => res.end('hello from 1.2.3.4'));
await new Promise<void>((resolve) => site.listen(443, '1.2.3.4', resolve));
const body = await (await fetch('https://site.example/')).text();
const hosts = await dns.lookup('site.example', { all: true });
const first = await dns.lookup('rebind.example', { family: 4 });
const second = await dns.lookup('rebind.example', { family: 4 });
const unknown = await dns.lookup('nowhere.example').catch((err: { code?: string }) => err.code);
site.close();
await report({
  body,
  port: (site.address() as AddressInfo | null)?.port ?? 443,
  hosts: hosts.map((a) => a.address),
  rebind: [first.address, second.address],
  unknown,
});
