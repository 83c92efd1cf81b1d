import crypto from 'node:crypto';
import { hexByteAt, PAIR_OFFSETS } from '../store/index.ts';

/**
 * GUIDs on the wire use .NET `Guid.ToByteArray` order: the first three groups are little-endian.
 * `00112233-4455-6677-8899-aabbccddeeff` travels as `33 22 11 00 55 44 77 66 88 99 aa bb cc dd ee ff`.
 */
const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
/** Byte index (in wire order) of each canonical-text byte position. */
const TEXT_ORDER = [3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15] as const;

export const GUID_BYTES = 16;
export const ZERO_CORRELATION_ID: Buffer = Buffer.alloc(GUID_BYTES);

/** Canonical lower-case text of a GUID given in .NET byte order. */
export function guidBytesToString(bytes: Uint8Array): string {
  if (bytes.length !== GUID_BYTES) throw new RangeError(`a GUID is ${GUID_BYTES} bytes, got ${bytes.length}`);
  const h = (i: number) => HEX[bytes[TEXT_ORDER[i]]];
  return (
    h(0) +
    h(1) +
    h(2) +
    h(3) +
    '-' +
    h(4) +
    h(5) +
    '-' +
    h(6) +
    h(7) +
    '-' +
    h(8) +
    h(9) +
    '-' +
    h(10) +
    h(11) +
    h(12) +
    h(13) +
    h(14) +
    h(15)
  );
}

/** A GUID given in .NET byte order as the store keeps it: its 16 bytes in canonical text order. */
export function guidBytesToTextOrder(bytes: Uint8Array): Buffer {
  if (bytes.length !== GUID_BYTES) throw new RangeError(`a GUID is ${GUID_BYTES} bytes, got ${bytes.length}`);
  const out = Buffer.allocUnsafe(GUID_BYTES);
  for (let i = 0; i < GUID_BYTES; i++) out[i] = bytes[TEXT_ORDER[i]];
  return out;
}

/** .NET byte order of a canonical GUID text (with dashes). */
export function guidStringToBytes(text: string): Buffer {
  const out = Buffer.allocUnsafe(GUID_BYTES);
  writeGuidString(text, out, 0);
  return out;
}

/** Writes a canonical GUID text's 16 bytes in .NET order into `target` at `offset` (the read path: no copy). */
export function writeGuidString(text: string, target: Uint8Array, offset: number): void {
  if (text.length !== 36 || text[8] !== '-' || text[13] !== '-' || text[18] !== '-' || text[23] !== '-') {
    throw new RangeError(`not a GUID: ${JSON.stringify(text)}`);
  }
  for (let i = 0; i < GUID_BYTES; i++) {
    const byte = hexByteAt(text, PAIR_OFFSETS[i]);
    if (byte < 0) throw new RangeError(`not a GUID: ${JSON.stringify(text)}`);
    target[offset + TEXT_ORDER[i]] = byte;
  }
}

/** A fresh random correlation id (for packages the server starts, e.g. heartbeat requests). */
export function newCorrelationId(): Buffer {
  return crypto.randomBytes(GUID_BYTES);
}
