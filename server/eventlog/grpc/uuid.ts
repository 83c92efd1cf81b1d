import { Errors } from './errors.ts';

/**
 * `event_store.client.UUID`: either `string` (canonical lower-case text; Node and Rust) or `structured`,
 * two signed int64s holding the canonical big-endian bytes 0-7 and 8-15 (Java style; .NET). Not the TCP
 * protocol's .NET Guid byte order.
 */
export interface WireUuid {
  value?: 'string' | 'structured';
  string?: string;
  structured?: { most_significant_bits: string; least_significant_bits: string };
}

const CANONICAL = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function hex64(signed: string): string {
  return BigInt.asUintN(64, BigInt(signed)).toString(16).padStart(16, '0');
}

function signed64(hex: string): string {
  return BigInt.asIntN(64, BigInt(`0x${hex}`)).toString();
}

/** Canonical lower-case text of a wire UUID; throws INVALID_ARGUMENT when it is none. */
export function uuidFromWire(id: WireUuid | null | undefined, what = 'id'): string {
  if (id?.value === 'string' && typeof id.string === 'string') {
    const text = id.string.toLowerCase();
    if (CANONICAL.test(text)) return text;
    // .NET's Guid.TryParse also takes the 32-digit form; keep to the canonical one on output.
    if (/^[0-9a-f]{32}$/.test(text))
      return `${text.slice(0, 8)}-${text.slice(8, 12)}-${text.slice(12, 16)}-${text.slice(16, 20)}-${text.slice(20)}`;
  } else if (id?.value === 'structured' && id.structured) {
    try {
      const hex = hex64(id.structured.most_significant_bits) + hex64(id.structured.least_significant_bits);
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    } catch {
      /* not integers: rejected below */
    }
  }
  throw Errors.invalidArgument(`${what} is not a UUID`);
}

export function uuidToWire(text: string, structured: boolean): WireUuid {
  if (!structured) return { string: text };
  const hex = text.replace(/-/g, '');
  return {
    structured: { most_significant_bits: signed64(hex.slice(0, 16)), least_significant_bits: signed64(hex.slice(16)) },
  };
}
