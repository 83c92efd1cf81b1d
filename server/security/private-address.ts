import dns from 'node:dns';
import net from 'node:net';

/** Loopback, private, link-local, carrier-grade NAT, unique-local and unspecified ranges: never fetched from a remote URL. */
const PRIVATE = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const)
  PRIVATE.addSubnet(prefix, bits, 'ipv4');
for (const [prefix, bits] of [
  ['::', 128],
  ['::1', 128],
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  PRIVATE.addSubnet(prefix, bits, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return true;
  // An IPv4-mapped IPv6 address is judged by its IPv4 part.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return PRIVATE.check(mapped[1], 'ipv4');
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * A `lookup` for http(s) agents that refuses names resolving to private addresses, checked on the addresses
 * the connection will use (no gap between the check and the connect for DNS rebinding to use).
 */
export const publicOnlyLookup: net.LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return (callback as (e: Error | null, a: string, f: number) => void)(err, '', 0);
    const list = addresses as dns.LookupAddress[];
    const refused = list.find((a) => isPrivateAddress(a.address));
    if (refused || list.length === 0) {
      const error = Object.assign(
        new Error(
          `${hostname} resolves to a private address (${refused?.address ?? 'none'}); remote requests may not reach it`,
        ),
        { code: 'EPRIVATEADDRESS' },
      );
      return (callback as (e: Error | null, a: string, f: number) => void)(error, '', 0);
    }
    if ((options as dns.LookupOptions).all)
      return (callback as (e: Error | null, a: dns.LookupAddress[]) => void)(null, list);
    (callback as (e: Error | null, a: string, f: number) => void)(null, list[0].address, list[0].family);
  });
};
