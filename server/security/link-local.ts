import dns from 'node:dns/promises';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { canonicalIPv6, embeddedIPv4 } from './private-address.ts';

/*
 * Connections the owner asks for to their own network (a KurrentDB on localhost or the LAN: replication) may go
 * to loopback and private addresses, but never to link-local ones (169.254.0.0/16, fe80::/10), where clouds
 * answer instance metadata with credentials, nor to the metadata services on other addresses, nor to addresses
 * that are no one host (unspecified, multicast, broadcast).
 */
const REFUSED_RANGES = new Set(['linkLocal', 'unspecified', 'multicast', 'broadcast']);
/** Instance metadata outside link-local: Alibaba Cloud's, AWS's over IPv6. */
const METADATA_ADDRESSES = ['100.100.100.200', 'fd00:ec2::254'].map((a) => ipaddr.parse(a).toNormalizedString());

/** Whether a literal IP address is link-local, a cloud metadata service's, or no single host's. */
export function isLinkLocalOrMetadata(address: string): boolean {
  if (net.isIP(address) === 0) return false;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6 = ipaddr.parse(net.isIPv6(address) ? canonicalIPv6(address) : address);
  // ::1 is this machine, though it also reads as the IPv4-compatible form of 0.0.0.1.
  if (parsed.kind() === 'ipv6' && parsed.range() !== 'loopback') parsed = embeddedIPv4(parsed as ipaddr.IPv6) ?? parsed;
  return REFUSED_RANGES.has(parsed.range()) || METADATA_ADDRESSES.includes(parsed.toNormalizedString());
}

/**
 * Why `host` (a name or a literal, brackets allowed) may not be connected to, or null when it may: a name is
 * judged on every address it resolves to now. A host that does not resolve is refused too (said so).
 */
export async function linkLocalRefusal(host: string): Promise<string | null> {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (net.isIP(bare) !== 0)
    return isLinkLocalOrMetadata(bare) ? `${bare} is a link-local or metadata address, which is not reached` : null;
  let addresses: { address: string }[];
  try {
    addresses = await dns.lookup(bare, { all: true });
  } catch {
    return `${bare} was not found (DNS)`;
  }
  const refused = addresses.find((a) => isLinkLocalOrMetadata(a.address));
  return refused
    ? `${bare} resolves to ${refused.address}, a link-local or metadata address, which is not reached`
    : null;
}
