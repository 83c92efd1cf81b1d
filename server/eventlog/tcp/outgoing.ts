/**
 * Packages waiting to be written on one connection, framed only when the connection flushes: all frames
 * of a flush are written into one buffer (per 256 KiB), instead of allocating a frame per package and
 * concatenating them afterwards. Under fan-out a connection gets many small StreamEventAppeared packages
 * per commit whose bodies are shared with every other subscriber; this keeps that to one allocation and
 * one socket write per connection per flush. Hand-written: it is the framing of our own protocol.
 */
import { TcpFlags } from './commands.ts';
import { PACKAGE_HEADER_BYTES } from './package.ts';

const FRAME_OVERHEAD = 4 + PACKAGE_HEADER_BYTES;
/** Bodies longer than this are written as they are (after their header) rather than copied. */
const COPY_BODY_BYTES = 64 * 1024;
/** Upper bound of one framed chunk. */
export const CHUNK_BYTES = 256 * 1024;
const EMPTY = new Uint8Array(0);

export class OutgoingPackages {
  private commands: number[] = [];
  private correlationIds: Uint8Array[] = [];
  private bodies: Uint8Array[] = [];
  /** Bytes on the wire once framed. */
  bytes = 0;

  get count(): number {
    return this.commands.length;
  }

  push(command: number, correlationId: Uint8Array, body: Uint8Array | null): number {
    const frameBytes = FRAME_OVERHEAD + (body?.byteLength ?? 0);
    this.commands.push(command);
    this.correlationIds.push(correlationId);
    this.bodies.push(body ?? EMPTY);
    this.bytes += frameBytes;
    return frameBytes;
  }

  clear(): void {
    this.commands = [];
    this.correlationIds = [];
    this.bodies = [];
    this.bytes = 0;
  }

  /** Frames everything queued into write-ready chunks and empties the queue. */
  take(): Buffer[] {
    const out: Buffer[] = [];
    const n = this.commands.length;
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
      const chunk = Buffer.allocUnsafe(size);
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

  private writeHeader(target: Buffer, offset: number, index: number): void {
    target.writeInt32LE(PACKAGE_HEADER_BYTES + this.bodies[index].byteLength, offset);
    target[offset + 4] = this.commands[index];
    target[offset + 5] = TcpFlags.None;
    target.set(this.correlationIds[index], offset + 6);
  }
}
