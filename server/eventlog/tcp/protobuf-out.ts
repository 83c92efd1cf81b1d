/**
 * The protobuf writing the hand-written encoders share (event-encoder.ts, row-encoder.ts): varints of 64-bit values
 * as two 32-bit words, field sizes, and Out, one buffer written front to back.
 */
import { EVENT_NUMBER_DELETED } from '../store/index.ts';
import { writeGuidString } from './guid.ts';

const TWO_POW_32 = 4294967296;
export const CONTENT_TYPE_JSON = 1;
/** Wire (.NET) position of each byte of a GUID given in text order. */
const WIRE_INDEX = [3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15] as const;

/** A 64-bit two's-complement value as protobuf varint words. */
interface Words {
  lo: number;
  hi: number;
}
const scratch: Words = { lo: 0, hi: 0 };

function wordsOf(n: number, out: Words): Words {
  if (n >= EVENT_NUMBER_DELETED) {
    // long.MaxValue, as the codec sends a deleted stream's number.
    out.lo = 0xffffffff;
    out.hi = 0x7fffffff;
    return out;
  }
  const negative = n < 0;
  if (negative) n = -n;
  let lo = n >>> 0;
  let hi = Math.floor(n / TWO_POW_32) >>> 0;
  if (negative) {
    hi = ~hi >>> 0;
    lo = ~lo >>> 0;
    if (++lo > 0xffffffff) {
      lo = 0;
      if (++hi > 0xffffffff) hi = 0;
    }
  }
  out.lo = lo;
  out.hi = hi;
  return out;
}

export function varint64Size(w: Words): number {
  let { lo, hi } = w;
  let size = 1;
  while (hi) {
    size++;
    lo = ((lo >>> 7) | (hi << 25)) >>> 0;
    hi >>>= 7;
  }
  while (lo > 127) {
    size++;
    lo >>>= 7;
  }
  return size;
}

export function varint32Size(n: number): number {
  return n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5;
}

export class Out {
  readonly buf: Buffer;
  pos = 0;
  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }
  byte(b: number): void {
    this.buf[this.pos++] = b;
  }
  varint32(n: number): void {
    while (n > 127) {
      this.buf[this.pos++] = (n & 127) | 128;
      n >>>= 7;
    }
    this.buf[this.pos++] = n;
  }
  varint64(w: Words): void {
    let { lo, hi } = w;
    while (hi) {
      this.buf[this.pos++] = (lo & 127) | 128;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    while (lo > 127) {
      this.buf[this.pos++] = (lo & 127) | 128;
      lo >>>= 7;
    }
    this.buf[this.pos++] = lo;
  }
  int64(tag: number, n: number): void {
    this.byte(tag);
    this.varint64(wordsOf(n, scratch));
  }
  bytes(tag: number, bytes: Uint8Array): void {
    this.byte(tag);
    this.varint32(bytes.byteLength);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.byteLength;
  }
  /** A bytes field from `source[start, end)`, copied straight in (no view object). */
  bytesOf(tag: number, source: Buffer, start: number, end: number): void {
    this.byte(tag);
    this.varint32(end - start);
    this.pos += source.copy(this.buf, this.pos, start, end);
  }
  /** A GUID field from its 16 bytes in text order (the wire wants .NET order). */
  guid(tag: number, textOrder: Uint8Array): void {
    this.byte(tag);
    this.byte(16);
    for (let i = 0; i < 16; i++) this.buf[this.pos + WIRE_INDEX[i]] = textOrder[i];
    this.pos += 16;
  }
  /** A GUID field from its canonical text (reads give the id as text: no bytes object per event). */
  guidText(tag: number, text: string): void {
    this.byte(tag);
    this.byte(16);
    writeGuidString(text, this.buf, this.pos);
    this.pos += 16;
  }
  string(tag: number, text: string, byteLength: number): void {
    this.byte(tag);
    this.varint32(byteLength);
    this.pos += this.buf.write(text, this.pos, byteLength, 'utf8');
  }
}

export function int64FieldSize(n: number): number {
  return 1 + varint64Size(wordsOf(n, scratch));
}

export function lengthDelimitedSize(length: number): number {
  return 1 + varint32Size(length) + length;
}

/** UTF-8 length of a string, remembering the last stream id and event type asked for (pages repeat them). */
export const utf8Length = (() => {
  let lastA = '';
  let lastALength = 0;
  let lastB = '';
  let lastBLength = 0;
  return (text: string, slot: 0 | 1): number => {
    if (slot === 0) {
      if (text !== lastA) {
        lastA = text;
        lastALength = Buffer.byteLength(text, 'utf8');
      }
      return lastALength;
    }
    if (text !== lastB) {
      lastB = text;
      lastBLength = Buffer.byteLength(text, 'utf8');
    }
    return lastBLength;
  };
})();

type Int64Value = number | { low: number; high: number };

export function int64Words(value: Int64Value): Words {
  if (typeof value === 'number') return wordsOf(value, scratch);
  scratch.lo = value.low >>> 0;
  scratch.hi = value.high >>> 0;
  return scratch;
}
