import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/*
 * Which addresses a remote fetch may reach. Only global unicast is public (ipaddr.js's ranges after IANA's
 * special-purpose registries): loopback, private, link-local, carrier-grade NAT, unique-local, multicast,
 * documentation, benchmarking and reserved ranges are not. IPv6 forms that carry an IPv4 address (mapped,
 * IPv4-compatible, IPv4-translated, NAT64 64:ff9b::/96, 6to4) are judged by that IPv4 address, since a
 * connection to one can end at it. Each family is judged against its own ranges: net.BlockList, used before,
 * matched IPv4 addresses against the IPv6 rule ::ffff:0:0/96 and so called every IPv4 address private.
 */

/** The IPv4 address an IPv6 address stands for, if it is one of the forms that embed one. */
export function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const parts = address.parts;
  const v4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  // ::/96 (IPv4-compatible, deprecated) and ::ffff:0:0/96 (mapped): the last 32 bits.
  if (parts.slice(0, 5).every((p) => p === 0) && (parts[5] === 0 || parts[5] === 0xffff)) return v4(parts[6], parts[7]);
  // ::ffff:0:0:0/96 (IPv4-translated, RFC 6145) and 64:ff9b::/96 (NAT64, RFC 6052): the last 32 bits.
  if (parts.slice(0, 4).every((p) => p === 0) && parts[4] === 0xffff && parts[5] === 0) return v4(parts[6], parts[7]);
  if (parts[0] === 0x64 && parts[1] === 0xff9b && parts.slice(2, 6).every((p) => p === 0))
    return v4(parts[6], parts[7]);
  // 2002::/16 (6to4): bits 16 to 48.
  if (parts[0] === 0x2002) return v4(parts[1], parts[2]);
  return null;
}

/**
 * The WHATWG URL form of an IPv6 address (hexadecimal, zone dropped): ipaddr.js reads `::8.8.8.8` as if it
 * were `::ffff:8.8.8.8`, while a socket connects to `::808:808`.
 */
export function canonicalIPv6(address: string): string {
  return new URL(`http://[${address.replace(/%.*$/, '')}]/`).hostname.slice(1, -1);
}

/** True unless `address` is a global unicast IP address (anything that is not an IP address counts as private). */
export function isPrivateAddress(address: string): boolean {
  // net.isIP first: ipaddr.js also reads classful and hexadecimal forms a connect would not.
  if (net.isIP(address) === 0) return true;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(net.isIPv6(address) ? canonicalIPv6(address) : address);
  } catch {
    return true;
  }
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    // ::, ::1 and the IPv4-compatible range are never a remote server.
    if (v6.parts.slice(0, 6).every((p) => p === 0)) return true;
    const v4 = embeddedIPv4(v6);
    if (v4) return v4.range() !== 'unicast';
  }
  return parsed.range() !== 'unicast';
}

/** Error code of every refusal of a private address (EPRIVATEADDRESS). */
export const PRIVATE_ADDRESS_CODE = 'EPRIVATEADDRESS';

export class PrivateAddressError extends Error {
  readonly code = PRIVATE_ADDRESS_CODE;
  constructor(message: string) {
    super(message);
    this.name = 'PrivateAddressError';
  }
}

/**
 * The refusal of a URL host that is a private literal address (`127.0.0.1`, `[::ffff:7f00:1]`), or null: a
 * name is judged when it is resolved (publicOnlyLookup), a public literal passes. Brackets are allowed.
 */
export function privateLiteralRefusal(host: string): PrivateAddressError | null {
  const address = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (net.isIP(address) === 0 || !isPrivateAddress(address)) return null;
  return new PrivateAddressError(`${address} is a private address; remote requests may not reach it`);
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for http(s) agents and sockets that refuses a name when any of its addresses is private. The
 * connection is made to the addresses this one lookup checked (no second resolution for DNS rebinding to
 * use). Node does not call `lookup` for literal addresses: publicOnlyAgent checks those.
 */
export const publicOnlyLookup: net.LookupFunction = (hostname, options, callback) => {
  const done = callback as LookupCallback;
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return done(err, '', 0);
    const refused = addresses.find((a) => isPrivateAddress(a.address));
    if (refused || addresses.length === 0)
      return done(
        new PrivateAddressError(
          `${hostname} resolves to a private address (${refused?.address ?? 'none'}); remote requests may not reach it`,
        ),
        '',
        0,
      );
    if ((options as dns.LookupOptions).all) return done(null, addresses);
    done(null, addresses[0].address, addresses[0].family);
  });
};

/**
 * A `lookup` that answers `hostname` with addresses resolved (and judged) beforehand, so the connection goes
 * where the verdict was made; other names resolve as usual.
 */
export function pinnedLookup(hostname: string, addresses: readonly dns.LookupAddress[]): net.LookupFunction {
  return (name, options, callback) => {
    const done = callback as LookupCallback;
    const give = (list: dns.LookupAddress[]) =>
      (options as dns.LookupOptions).all ? done(null, list) : done(null, list[0].address, list[0].family);
    if (name.toLowerCase() !== hostname.toLowerCase())
      return dns.lookup(name, { ...options, all: true }, (err, list) => (err ? done(err, '', 0) : give(list)));
    const family = (options as dns.LookupOptions).family;
    const wanted = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : [...addresses];
    if (wanted.length === 0)
      return done(Object.assign(new Error(`no IPv${family} address for ${name}`), { code: 'ENOTFOUND' }), '', 0);
    give(wanted);
  };
}
