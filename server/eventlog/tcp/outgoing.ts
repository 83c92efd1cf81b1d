/**
 * Packages waiting to be written on one connection, framed only when the connection flushes: all frames
 * of a flush are written into one buffer (per 256 KiB), instead of allocating a frame per package and
 * concatenating them afterwards. Under fan-out a connection gets many small StreamEventAppeared packages
 * per commit whose bodies are shared with every other subscriber; this keeps that to one socket write per
 * connection per flush, and usually to no allocation at all: a flush that fits frames into the process's
 * spare buffer and hands it back (`recycle`) once the socket took every byte at once. In a profile of 100
 * `$all` subscribers the per-flush allocations (malloc, the ArrayBuffer, collecting it) and the copy of
 * each 16-byte correlation id by TypedArray#set cost a tenth of the server's CPU.
 * Hand-written: it is the framing of our own protocol.
 */
import { TcpFlags } from './commands.ts';
import { PACKAGE_HEADER_BYTES } from './package.ts';

const FRAME_OVERHEAD = 4 + PACKAGE_HEADER_BYTES;
/** Bodies longer than this are written as they are (after their header) rather than copied. */
const COPY_BODY_BYTES = 64 * 1024;
/** Upper bound of one framed chunk. */
export const CHUNK_BYTES = 256 * 1024;
const EMPTY = new Uint8Array(0);
/**
 * Size of the spare buffer. A commit's frames for one subscriber fit (20 events of 400 bytes are 8 KiB), and a
 * socket holding it (a slow reader) keeps at most this much alive beside what it queued: a connection is lent
 * the spare only while its socket holds nothing.
 */
export const SPARE_BYTES = 16 * 1024;
/**
 * The buffer flushes frame into when it is free, shared by every connection of the process (flushes run one at a
 * time). Null while lent, or after a socket kept it: the next flush whose socket took everything makes a new one.
 */
let spare: Buffer | null = null;

/** Past this many packages, clear() lets the queue's arrays go rather than keep them for the next flush. */
const KEPT_SLOTS = 256;

export class OutgoingPackages {
  // Kept from flush to flush (a subscriber's connection flushes once per commit): three fresh arrays grown per
  // flush were a steady stream of garbage under fan-out. Slots past `count` hold nothing (clear() empties them).
  private commands: number[] = [];
  private correlationIds: Uint8Array[] = [];
  private bodies: Uint8Array[] = [];
  private queued = 0;
  /** Bytes on the wire once framed. */
  bytes = 0;
  /** The spare buffer, while the chunk take() framed into it may still be in the socket's hands. */
  private lent: Buffer | null = null;

  get count(): number {
    return this.queued;
  }

  push(command: number, correlationId: Uint8Array, body: Uint8Array | null): number {
    const frameBytes = FRAME_OVERHEAD + (body?.byteLength ?? 0);
    const i = this.queued++;
    this.commands[i] = command;
    this.correlationIds[i] = correlationId;
    this.bodies[i] = body ?? EMPTY;
    this.bytes += frameBytes;
    return frameBytes;
  }

  clear(): void {
    if (this.commands.length > KEPT_SLOTS) {
      this.commands = [];
      this.correlationIds = [];
      this.bodies = [];
    } else {
      // Bodies may be large replies: nothing sent stays referenced.
      for (let i = 0; i < this.queued; i++) {
        this.correlationIds[i] = EMPTY;
        this.bodies[i] = EMPTY;
      }
    }
    this.queued = 0;
    this.bytes = 0;
  }

  /**
   * Frames everything queued into write-ready chunks and empties the queue. `mayLend`: the caller will tell
   * (`recycle`) whether the socket kept the chunks, so the first chunk may be framed into the spare buffer.
   */
  take(mayLend = false): Buffer[] {
    this.lent = null;
    const out: Buffer[] = [];
    const n = this.queued;
    let i = 0;
    while (i < n) {
      if (this.bodies[i].byteLength > COPY_BODY_BYTES) {
        const header = Buffer.allocUnsafe(FRAME_OVERHEAD);
        this.writeHeader(header, 0, i);
        const body = this.bodies[i];
        out.push(header, Buffer.from(body.buffer, body.byteOffset, body.byteLength));
        i++;
        continue;
      }
      let size = 0;
      let j = i;
      while (j < n && this.bodies[j].byteLength <= COPY_BODY_BYTES) {
        const frame = FRAME_OVERHEAD + this.bodies[j].byteLength;
        if (size > 0 && size + frame > CHUNK_BYTES) break;
        size += frame;
        j++;
      }
      let chunk: Buffer;
      if (mayLend && out.length === 0 && spare !== null && size <= SPARE_BYTES) {
        this.lent = spare;
        spare = null;
        chunk = this.lent.subarray(0, size);
      } else chunk = Buffer.allocUnsafe(size);
      let offset = 0;
      for (let k = i; k < j; k++) {
        this.writeHeader(chunk, offset, k);
        offset += FRAME_OVERHEAD;
        const body = this.bodies[k];
        if (body.byteLength > 0) {
          chunk.set(body, offset);
          offset += body.byteLength;
        }
      }
      out.push(chunk);
      i = j;
    }
    this.clear();
    return out;
  }

  /**
   * After the chunks of the last take() were written: `released` when the socket holds none of their bytes (it
   * wrote them all before returning), so the spare buffer is free again, or may be made when there was none.
   */
  recycle(released: boolean): void {
    if (!released) {
      this.lent = null;
      return;
    }
    spare ??= this.lent ?? Buffer.allocUnsafe(SPARE_BYTES);
    this.lent = null;
  }

  private writeHeader(target: Buffer, offset: number, index: number): void {
    // Byte by byte: writeInt32LE and TypedArray#set cost more in their checks than the 20 bytes they move.
    const length = PACKAGE_HEADER_BYTES + this.bodies[index].byteLength;
    target[offset] = length;
    target[offset + 1] = length >>> 8;
    target[offset + 2] = length >>> 16;
    target[offset + 3] = length >>> 24;
    target[offset + 4] = this.commands[index];
    target[offset + 5] = TcpFlags.None;
    const id = this.correlationIds[index];
    for (let i = 0; i < 16; i++) target[offset + 6 + i] = id[i];
  }
}
