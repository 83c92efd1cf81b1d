import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPrivateAddress, pinnedLookup, privateLiteralRefusal, publicOnlyAgent, publicOnlyLookup } from './index.ts';

describe('isPrivateAddress', () => {
  it('calls global unicast IPv4 addresses public', () => {
    for (const address of ['8.8.8.8', '1.2.3.4', '93.184.216.34', '151.101.1.140', '100.63.255.255', '172.32.0.1'])
      expect(isPrivateAddress(address), address).toBe(false);
  });

  it('calls loopback, private, link-local, CGNAT, reserved and multicast IPv4 addresses private', () => {
    for (const address of [
      '127.0.0.1',
      '127.255.255.254',
      '0.0.0.0',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '192.0.0.8',
      '192.0.2.1',
      '198.18.0.1',
      '198.51.100.7',
      '203.0.113.9',
      '224.0.0.1',
      '240.0.0.1',
      '255.255.255.255',
    ])
      expect(isPrivateAddress(address), address).toBe(true);
  });

  it('calls global unicast IPv6 addresses public and the special ranges private', () => {
    for (const address of ['2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '2001:4860:4860::8888'])
      expect(isPrivateAddress(address), address).toBe(false);
    for (const address of ['::', '::1', 'fe80::1', 'fe80::1%lo', 'fc00::1', 'fd12:3456::1', 'ff02::1', '2001:db8::1'])
      expect(isPrivateAddress(address), address).toBe(true);
  });

  it('judges IPv6 forms that carry an IPv4 address by that address', () => {
    // mapped, dotted and hexadecimal
    expect(isPrivateAddress('::ffff:127.0.0.1')).toBe(true);
    expect(isPrivateAddress('::ffff:7f00:1')).toBe(true);
    expect(isPrivateAddress('::ffff:10.0.0.1')).toBe(true);
    expect(isPrivateAddress('::ffff:8.8.8.8')).toBe(false);
    // IPv4-compatible (deprecated): never a remote server
    expect(isPrivateAddress('::127.0.0.1')).toBe(true);
    expect(isPrivateAddress('::8.8.8.8')).toBe(true);
    // IPv4-translated
    expect(isPrivateAddress('::ffff:0:127.0.0.1')).toBe(true);
    // NAT64: the well-known prefix reaches the IPv4 address it carries; the local-use prefix stays local
    expect(isPrivateAddress('64:ff9b::127.0.0.1')).toBe(true);
    expect(isPrivateAddress('64:ff9b::a9fe:a9fe')).toBe(true);
    expect(isPrivateAddress('64:ff9b::8.8.8.8')).toBe(false);
    expect(isPrivateAddress('64:ff9b:1::8.8.8.8')).toBe(true);
    // 6to4
    expect(isPrivateAddress('2002:7f00:1::1')).toBe(true);
    expect(isPrivateAddress('2002:c0a8:101::1')).toBe(true);
    expect(isPrivateAddress('2002:808:808::1')).toBe(false);
  });

  it('calls anything that is not an IP address private', () => {
    for (const value of ['', 'localhost', 'example.com', '0x7f.1', '2130706433', '127.1', '1.2.3.4.5'])
      expect(isPrivateAddress(value), value).toBe(true);
  });
});

describe('privateLiteralRefusal', () => {
  it('refuses private literal hosts as a URL spells them, and lets names and public literals through', () => {
    for (const url of [
      'https://127.0.0.1:8443/x',
      'https://[::1]/x',
      'https://[::ffff:127.0.0.1]:8443/x',
      'https://[::ffff:7f00:1]/x',
      'https://2130706433/x',
      'https://0x7f.1/x',
      'https://[64:ff9b::10.0.0.1]/x',
      'https://169.254.169.254/latest/meta-data',
    ])
      expect(privateLiteralRefusal(new URL(url).hostname)?.code, url).toBe('EPRIVATEADDRESS');
    for (const url of ['https://push.example/x', 'https://8.8.8.8/x', 'https://[2606:4700:4700::1111]/x'])
      expect(privateLiteralRefusal(new URL(url).hostname), url).toBeNull();
  });
});

describe('publicOnlyLookup', () => {
  it('refuses a name that resolves to loopback', async () => {
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      publicOnlyLookup('localhost', {}, (err) => resolve(err)),
    );
    expect(error?.code).toBe('EPRIVATEADDRESS');
  });
});

describe('pinnedLookup', () => {
  it('answers its name with the addresses given, by family, and resolves other names as usual', async () => {
    const lookup = pinnedLookup('Pinned.Example', [
      { address: '1.2.3.4', family: 4 },
      { address: '2606:4700::1', family: 6 },
    ]);
    const ask = (name: string, options: object) =>
      new Promise<unknown>((resolve, reject) =>
        lookup(name, options, (err, address, family) =>
          err ? reject(err) : resolve(family ? [address, family] : address),
        ),
      );
    expect(await ask('pinned.example', { all: true })).toEqual([
      { address: '1.2.3.4', family: 4 },
      { address: '2606:4700::1', family: 6 },
    ]);
    expect(await ask('pinned.example', { family: 6 })).toEqual(['2606:4700::1', 6]);
    expect(await ask('localhost', { family: 4 })).toEqual(['127.0.0.1', 4]);
  });
});

describe('publicOnlyAgent', () => {
  let server: http.Server;
  let port: number;
  let hits = 0;
  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      hits++;
      res.end('reached');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const get = (url: string, agent: http.Agent) =>
    new Promise<string>((resolve, reject) => {
      http
        .get(url, { agent }, (res) => {
          res.setEncoding('utf8');
          let body = '';
          res.on('data', (c: string) => (body += c));
          res.on('end', () => resolve(body));
        })
        .on('error', reject);
    });

  it('refuses loopback literals and names before connecting, and reaches them only when told to (tests)', async () => {
    const agent = publicOnlyAgent('http:');
    for (const host of ['127.0.0.1', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '2130706433', 'localhost'])
      await expect(get(`http://${host}:${port}/`, agent), host).rejects.toMatchObject({ code: 'EPRIVATEADDRESS' });
    expect(hits).toBe(0);
    agent.destroy();
    const open = publicOnlyAgent('http:', { allowPrivateAddress: true });
    expect(await get(`http://127.0.0.1:${port}/`, open)).toBe('reached');
    open.destroy();
  });
});
