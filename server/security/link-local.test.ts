import { describe, expect, it } from 'vitest';
import { linkLocalRefusal } from './link-local.ts';

describe('linkLocalRefusal (addresses the owner may replicate with)', () => {
  it('lets this machine and the LAN through: the use case', async () => {
    for (const host of ['127.0.0.1', '[::1]', '10.0.0.5', '192.168.1.20', '172.16.4.4', '[fd12:3456::1]', 'localhost'])
      expect(await linkLocalRefusal(host), host).toBeNull();
  });

  it('refuses link-local, metadata, unspecified and multicast addresses, however written', async () => {
    for (const host of [
      '169.254.169.254',
      '[fe80::1]',
      '[::ffff:169.254.169.254]',
      '[::ffff:a9fe:a9fe]',
      '100.100.100.200',
      '[fd00:ec2::254]',
      '0.0.0.0',
      '[::]',
      '224.0.0.1',
      '255.255.255.255',
    ])
      expect(await linkLocalRefusal(host), host).toMatch(/link-local or metadata/);
  });

  it('refuses a name that does not resolve, saying so', async () => {
    expect(await linkLocalRefusal('no-such-host.invalid')).toMatch(/not found/);
  });
});
