/**
 * Length-prefix framing: every frame is a 4-byte little-endian int32 length L followed by L bytes.
 * TCP splits and coalesces frames arbitrarily; FrameReader reassembles them without copying small
 * frames out of larger chunks and with one copy for frames that arrive in pieces.
 */

export const FRAME_HEADER_BYTES = 4;
/** The largest package either side accepts (both official clients use the same limit). */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;

export class FramingError extends Error {
  readonly code = 'HOMEPORT_TCP_FRAMING';
}

export class FrameReader {
  private readonly maxFrameBytes: number;
  private readonly minFrameBytes: number;
  /** Chunks of the frame being assembled (header included) and their total length. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Length of the frame being assembled once its header is known, else -1. */
  private expected = -1;
  private failed = false;

  constructor(options: { maxFrameBytes?: number; minFrameBytes?: number } = {}) {
    this.maxFrameBytes = options.maxFrameBytes ?? MAX_FRAME_BYTES;
    this.minFrameBytes = options.minFrameBytes ?? 1;
  }

  /** Bytes received but not yet handed out as a frame. */
  get bufferedBytes(): number {
    return this.pendingBytes;
  }

  /**
   * Feeds received bytes; calls `onFrame` with each complete frame body (without the length prefix).
   * Throws FramingError on an impossible length; the reader is unusable afterwards.
   */
  push(chunk: Buffer, onFrame: (frame: Buffer) => void): void {
    if (this.failed) throw new FramingError('framing already failed');
    let offset = 0;
    while (offset < chunk.length) {
      if (this.pendingBytes === 0) {
        // Fast path: whole frames directly inside the chunk.
        const left = chunk.length - offset;
        if (left >= FRAME_HEADER_BYTES) {
          const length = this.checkLength(chunk.readInt32LE(offset));
          if (left >= FRAME_HEADER_BYTES + length) {
            const start = offset + FRAME_HEADER_BYTES;
            offset = start + length;
            onFrame(chunk.subarray(start, offset));
            continue;
          }
          this.expected = length;
        }
        this.pending.push(chunk.subarray(offset));
        this.pendingBytes = left;
        return;
      }

      if (this.expected < 0) {
        // Still collecting the 4 header bytes.
        const need = FRAME_HEADER_BYTES - this.pendingBytes;
        const take = Math.min(need, chunk.length - offset);
        this.pending.push(chunk.subarray(offset, offset + take));
        this.pendingBytes += take;
        offset += take;
        if (this.pendingBytes < FRAME_HEADER_BYTES) return;
        const header = Buffer.concat(this.pending, this.pendingBytes);
        this.pending = [header];
        this.expected = this.checkLength(header.readInt32LE(0));
        continue;
      }

      const total = FRAME_HEADER_BYTES + this.expected;
      const take = Math.min(total - this.pendingBytes, chunk.length - offset);
      this.pending.push(chunk.subarray(offset, offset + take));
      this.pendingBytes += take;
      offset += take;
      if (this.pendingBytes < total) return;
      const whole = Buffer.concat(this.pending, total);
      this.pending = [];
      this.pendingBytes = 0;
      this.expected = -1;
      onFrame(whole.subarray(FRAME_HEADER_BYTES));
    }
  }

  private checkLength(length: number): number {
    if (length < this.minFrameBytes || length > this.maxFrameBytes) {
      this.failed = true;
      this.pending = [];
      this.pendingBytes = 0;
      throw new FramingError(
        length <= 0
          ? `invalid frame length ${length}`
          : length > this.maxFrameBytes
            ? `frame of ${length} bytes is over the ${this.maxFrameBytes}-byte limit`
            : `frame of ${length} bytes is shorter than a package header (${this.minFrameBytes} bytes)`,
      );
    }
    return length;
  }
}
