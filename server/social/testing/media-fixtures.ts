import sharp from 'sharp';

/* Small media files built in memory for tests (no binary fixtures in the repository). */

export async function pngImage(width: number, height: number, background = '#336699'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background } })
    .png()
    .toBuffer();
}

/** A JPEG whose EXIF orientation says "rotate 90° clockwise", so the stored image comes out upright. */
export async function rotatedJpeg(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#aa3322' } })
    .jpeg()
    .withMetadata({ orientation: 6 })
    .toBuffer();
}

function syncsafe(n: number): Buffer {
  return Buffer.from([(n >> 21) & 0x7f, (n >> 14) & 0x7f, (n >> 7) & 0x7f, n & 0x7f]);
}

/**
 * An MP3: an ID3v2.3 tag with a PNG cover picture (APIC frame) followed by `frames` silent MPEG-1 Layer III
 * frames (128 kbit/s, 44.1 kHz, stereo: 417 bytes and 1152 samples each).
 */
export async function mp3WithCover(frames = 40): Promise<Buffer> {
  const cover = await pngImage(300, 300, '#22aa55');
  const apicBody = Buffer.concat([
    Buffer.from([0x00]),
    Buffer.from('image/png\u0000', 'latin1'),
    Buffer.from([0x03, 0x00]),
    cover,
  ]);
  const apicHeader = Buffer.alloc(10);
  apicHeader.write('APIC', 0, 'latin1');
  apicHeader.writeUInt32BE(apicBody.length, 4);
  const frame = Buffer.concat([apicHeader, apicBody]);
  const tag = Buffer.concat([
    Buffer.from('ID3', 'latin1'),
    Buffer.from([0x03, 0x00, 0x00]),
    syncsafe(frame.length),
    frame,
  ]);
  const audioFrame = Buffer.alloc(417);
  audioFrame.set([0xff, 0xfb, 0x90, 0x00]);
  return Buffer.concat([tag, ...Array.from({ length: frames }, () => audioFrame)]);
}

/** The start of an MP4 file (an ftyp box and an empty mdat): recognised as video, with nothing to decode. */
export function mp4Stub(): Buffer {
  const ftyp = Buffer.alloc(24);
  ftyp.writeUInt32BE(24, 0);
  ftyp.write('ftypisom', 4, 'latin1');
  ftyp.writeUInt32BE(0x200, 12);
  ftyp.write('isomiso2', 16, 'latin1');
  const mdat = Buffer.alloc(16);
  mdat.writeUInt32BE(16, 0);
  mdat.write('mdat', 4, 'latin1');
  return Buffer.concat([ftyp, mdat]);
}

export function blob(data: Buffer, type: string): Blob {
  return new Blob([new Uint8Array(data)], { type });
}
