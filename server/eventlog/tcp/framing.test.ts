import { describe, expect, it } from 'vitest';
import { FrameReader, FramingError, MAX_FRAME_BYTES } from './framing.ts';

function frame(body: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header.writeInt32LE(body.length, 0);
  return Buffer.concat([header, body]);
}

function collect(reader: FrameReader, chunks: Buffer[]): string[] {
  const out: string[] = [];
  for (const chunk of chunks) reader.push(chunk, (f) => out.push(f.toString()));
  return out;
}

describe('FrameReader', () => {
  const bodies = ['first frame body', 'x', 'the third, somewhat longer, frame body '.repeat(20)].map((s) =>
    Buffer.from(s),
  );
  const stream = Buffer.concat(bodies.map(frame));

  it('reads several frames from one chunk', () => {
    expect(collect(new FrameReader(), [stream])).toEqual(bodies.map(String));
  });

  it('reassembles frames fed one byte at a time', () => {
    const bytes = [...stream].map((b) => Buffer.of(b));
    expect(collect(new FrameReader(), bytes)).toEqual(bodies.map(String));
  });

  it('reassembles frames split at every possible point', () => {
    for (let cut = 1; cut < stream.length; cut++) {
      expect(collect(new FrameReader(), [stream.subarray(0, cut), stream.subarray(cut)])).toEqual(bodies.map(String));
    }
  });

  it('reports buffered bytes of an incomplete frame', () => {
    const reader = new FrameReader();
    collect(reader, [stream.subarray(0, 7)]);
    expect(reader.bufferedBytes).toBe(7);
  });

  it.each([
    ['zero', 0],
    ['negative', -5],
    ['over the limit', MAX_FRAME_BYTES + 1],
  ])('rejects a %s length', (_name, length) => {
    const header = Buffer.alloc(4);
    header.writeInt32LE(length, 0);
    const reader = new FrameReader();
    expect(() => reader.push(header, () => {})).toThrow(FramingError);
    expect(() => reader.push(Buffer.of(1), () => {})).toThrow(FramingError);
  });

  it('rejects a frame shorter than the configured minimum even when the header arrives in pieces', () => {
    const reader = new FrameReader({ minFrameBytes: 18 });
    const header = Buffer.alloc(4);
    header.writeInt32LE(17, 0);
    reader.push(header.subarray(0, 2), () => {});
    expect(() => reader.push(header.subarray(2), () => {})).toThrow(/shorter/);
  });

  it('accepts a frame of exactly the limit', () => {
    const reader = new FrameReader({ maxFrameBytes: 100 });
    expect(collect(reader, [frame(Buffer.alloc(100, 65))])).toEqual(['A'.repeat(100)]);
  });
});
