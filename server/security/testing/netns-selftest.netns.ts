import dns from 'node:dns/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { namespaceContext, report } from './netns-child.ts';

// The harness's own check (netns.test.ts): a TLS site on a public-looking address under a test-CA
// certificate, the generated /etc/hosts, and the DNS server's successive answers.
const { certificates } = namespaceContext();
const site = https.createServer(certificates['site.example'], (_req, res) => res.end('hello from 1.2.3.4'));
const site6 = https.createServer(certificates['site6.example'], (_req, res) => res.end('hello from IPv6'));
await new Promise<void>((resolve) => site.listen(443, '1.2.3.4', resolve));
await new Promise<void>((resolve) => site6.listen(443, '2606:4700::1234', resolve));
const body = await (await fetch('https://site.example/')).text();
const body6 = await (await fetch('https://site6.example/')).text();
const hosts = await dns.lookup('site.example', { all: true });
const first = await dns.lookup('rebind.example', { family: 4 });
const second = await dns.lookup('rebind.example', { family: 4 });
const unknown = await dns.lookup('nowhere.example').catch((err: { code?: string }) => err.code);
site.close();
site6.close();
await report({
  body,
  body6,
  port: (site.address() as AddressInfo | null)?.port ?? 443,
  hosts: hosts.map((a) => a.address),
  rebind: [first.address, second.address],
  unknown,
});
