import { StoreBadRequestError } from './types.ts';

/** Offsets of the 16 hex pairs inside the 36-character canonical text. */
export const PAIR_OFFSETS = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34] as const;
/** Hex digit values by character code; -1 for anything else. */
const HEX_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) HEX_VALUE[48 + i] = i;
for (let i = 0; i < 6; i++) {
  HEX_VALUE[65 + i] = 10 + i;
  HEX_VALUE[97 + i] = 10 + i;
}

function hexValue(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code < 128 ? HEX_VALUE[code] : -1;
}

/** The byte two hex digits of `text` at `index` spell (either case), or -1 when they are not hex digits. */
export function hexByteAt(text: string, index: number): number {
  const high = hexValue(text, index);
  const low = hexValue(text, index + 1);
  return high < 0 || low < 0 ? -1 : (high << 4) | low;
}

/**
 * Canonical UUID text to the 16 bytes stored in the event-id index (text order, not .NET order). Parsed
 * digit by digit (every append converts its ids: a regex test and a hex string cost several times more).
 */
export function uuidToBytes(id: string): Buffer {
  if (typeof id !== 'string' || id.length !== 36 || id[8] !== '-' || id[13] !== '-' || id[18] !== '-' || id[23] !== '-')
    throw notAUuid(id);
  const out = Buffer.allocUnsafe(16);
  for (let i = 0; i < 16; i++) {
    const byte = hexByteAt(id, PAIR_OFFSETS[i]);
    if (byte < 0) throw notAUuid(id);
    out[i] = byte;
  }
  return out;
}

function notAUuid(id: unknown): StoreBadRequestError {
  return new StoreBadRequestError(`Event id "${String(id)}" is not a UUID.`);
}

/** 16 stored bytes back to lower-case canonical UUID text. */
export function bytesToUuid(bytes: Uint8Array): string {
  return uuidAt(bytes, 0);
}

/** Where the two hex digits of each of the 16 bytes go in the 36-character text (the dashes stay in place). */
const HIGH_DIGIT_INDEX = PAIR_OFFSETS;
/** Lower-case hex digit character codes by value. */
const DIGIT_CODES = Uint8Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
const uuidText = Buffer.alloc(36, '-');

/**
 * The 16 bytes at `offset` as lower-case canonical UUID text. Every event a read returns goes through here (reads
 * take the id's bytes at the head of the row's one blob): one flat string made from a scratch buffer costs less
 * than SQLite's hex() and lower() per row, and less than slices joined by a template (a rope of nine strings the
 * wire encoder then flattens to parse it back).
 */
export function uuidAt(bytes: Uint8Array, offset: number): string {
  for (let i = 0; i < 16; i++) {
    const byte = bytes[offset + i];
    const at = HIGH_DIGIT_INDEX[i];
    uuidText[at] = DIGIT_CODES[byte >>> 4];
    uuidText[at + 1] = DIGIT_CODES[byte & 15];
  }
  return uuidText.toString('latin1', 0, 36);
}
