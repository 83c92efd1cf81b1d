import { StoreBadRequestError } from './types.ts';

const UUID_TEXT = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** Canonical UUID text to the 16 bytes stored in the event-id index (text order, not .NET order). */
export function uuidToBytes(id: string): Buffer {
  if (typeof id !== 'string' || !UUID_TEXT.test(id))
    throw new StoreBadRequestError(`Event id "${String(id)}" is not a UUID.`);
  return Buffer.from(id.slice(0, 8) + id.slice(9, 13) + id.slice(14, 18) + id.slice(19, 23) + id.slice(24), 'hex');
}

/** 16 stored bytes back to lower-case canonical UUID text. */
export function bytesToUuid(bytes: Uint8Array): string {
  return hexToUuid(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex'));
}

/** 32 lower-case hex digits to canonical UUID text. */
export function hexToUuid(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
