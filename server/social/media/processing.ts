import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { encode as encodeBlurhash } from 'blurhash';
import { loadSharp } from './sharp.ts';
import type sharp from 'sharp';
import { LIMITS } from '../limits.ts';
import type { ImageSize, MediaMeta, MediaType } from '../store/index.ts';

/*
 * What an uploaded attachment is and what we make of it: images are re-encoded without metadata, scaled
 * into the pixel limit, given a small preview and a blurhash; audio keeps its file and gets its cover art
 * as the preview; video keeps its file and gets a preview frame only when an ffmpeg binary is available.
 */

const execFileAsync = promisify(execFile);

/** Originals are scaled down to this many pixels (Mastodon: 3840×2160). */
export const ORIGINAL_PIXELS = 8_294_400;
/** Previews are scaled to this many pixels (Mastodon's "small": 640×360). */
export const SMALL_PIXELS = 230_400;

export type SniffedKind =
  | { kind: 'image'; format: string }
  | { kind: 'video'; container: string }
  | { kind: 'audio'; container: string };

/** A problem with the file itself; the API answers it with 422 on `file`. */
export class MediaRejection extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'MediaRejection';
    this.code = code;
  }
}

const ACCEPTED =
  'images (JPEG, PNG, GIF, WebP, AVIF, HEIC), video (MP4, WebM, MOV) or audio (MP3, OGG, WAV, FLAC, AAC, M4A)';

/** Recognises a file by its first bytes (the declared content type is not trusted). */
export function sniff(data: Buffer): SniffedKind | null {
  const ascii = (start: number, end: number) => data.subarray(start, end).toString('latin1');
  if (data.length < 12) return null;
  if (data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return { kind: 'image', format: 'jpeg' };
  if (data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return { kind: 'image', format: 'png' };
  if (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a') return { kind: 'image', format: 'gif' };
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return { kind: 'image', format: 'webp' };
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WAVE') return { kind: 'audio', container: 'wav' };
  if (ascii(4, 8) === 'ftyp') {
    const brand = ascii(8, 12);
    if (['avif', 'avis'].includes(brand)) return { kind: 'image', format: 'avif' };
    if (['heic', 'heix', 'mif1', 'msf1', 'hevc'].includes(brand)) return { kind: 'image', format: 'heif' };
    if (['M4A ', 'M4B ', 'M4P '].includes(brand)) return { kind: 'audio', container: 'm4a' };
    if (brand === 'qt  ') return { kind: 'video', container: 'quicktime' };
    return { kind: 'video', container: 'mp4' };
  }
  if (data[0] === 0x1a && data[1] === 0x45 && data[2] === 0xdf && data[3] === 0xa3)
    return { kind: 'video', container: 'webm' };
  if (ascii(0, 4) === 'OggS') return { kind: 'audio', container: 'ogg' };
  if (ascii(0, 4) === 'fLaC') return { kind: 'audio', container: 'flac' };
  if (ascii(0, 3) === 'ID3') return { kind: 'audio', container: 'mp3' };
  if (data[0] === 0xff && (data[1] & 0xe0) === 0xe0) {
    // MPEG audio frame sync; ADTS AAC has layer bits 00.
    return { kind: 'audio', container: (data[1] & 0x06) === 0 ? 'aac' : 'mp3' };
  }
  return null;
}

/** Checks kind and size; throws a MediaRejection with the reason. */
/** `head`: the first bytes of the file (its type is told by them); `size`: its whole length. */
export function checkUpload(head: Buffer, size: number): SniffedKind {
  if (size === 0) throw new MediaRejection('ERR_BLANK', "can't be blank");
  const kind = sniff(head);
  if (!kind) throw new MediaRejection('ERR_INVALID', `has an unsupported type (accepted: ${ACCEPTED})`);
  const limit =
    kind.kind === 'image' ? LIMITS.media_attachments.image_size_limit : LIMITS.media_attachments.video_size_limit;
  if (size > limit)
    throw new MediaRejection(
      'ERR_TOO_LARGE',
      `is too large: ${kind.kind} files must be less than ${Math.round(limit / 1024 / 1024)} MB`,
    );
  return kind;
}

export const CONTENT_TYPES: Record<string, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  heif: 'image/heic',
  mp4: 'video/mp4',
  quicktime: 'video/quicktime',
  webm: 'video/webm',
  ogg: 'audio/ogg',
  flac: 'audio/flac',
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  aac: 'audio/aac',
  m4a: 'audio/mp4',
};

const EXTENSIONS: Record<string, string> = {
  jpeg: 'jpg',
  png: 'png',
  gif: 'gif',
  webp: 'webp',
  mp4: 'mp4',
  quicktime: 'mov',
  webm: 'webm',
  ogg: 'ogg',
  flac: 'flac',
  wav: 'wav',
  mp3: 'mp3',
  aac: 'aac',
  m4a: 'm4a',
};

export function extensionOf(kind: SniffedKind): string {
  return EXTENSIONS[kind.kind === 'image' ? kind.format : kind.container] ?? 'bin';
}

/** One output file of processing (written by the caller). */
export interface ProcessedFile {
  data: Buffer;
  extension: string;
  contentType: string;
}

export interface Processed {
  type: MediaType;
  /** Replaces the uploaded file (images are re-encoded); null keeps the upload. */
  file: ProcessedFile | null;
  preview: ProcessedFile | null;
  blurhash: string | null;
  meta: MediaMeta;
}

function scaledTo(width: number, height: number, pixels: number): ImageSize {
  if (width * height <= pixels) return { width, height };
  const scale = Math.sqrt(pixels / (width * height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

async function blurhashOf(image: Buffer): Promise<string> {
  const { data, info } = await (await loadSharp())(image)
    .resize(32, 32, { fit: 'inside' })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return encodeBlurhash(
    new Uint8ClampedArray(data.buffer, data.byteOffset, data.length),
    info.width,
    info.height,
    4,
    4,
  );
}

/** A preview image (small, same aspect) with its size and blurhash, from any image sharp reads. */
export async function previewOf(
  image: Buffer,
): Promise<{ preview: ProcessedFile; small: ImageSize; original: ImageSize; blurhash: string }> {
  const base = (await loadSharp())(image, {
    limitInputPixels: LIMITS.media_attachments.image_matrix_limit,
    animated: false,
  }).rotate();
  const meta = await base.metadata();
  const rotated = (meta.orientation ?? 1) >= 5;
  const width = (rotated ? meta.height : meta.width) ?? 1;
  const height = (rotated ? meta.width : meta.height) ?? 1;
  const small = scaledTo(width, height, SMALL_PIXELS);
  const alpha = meta.hasAlpha === true;
  const data = await base
    .clone()
    .resize(small.width, small.height, { fit: 'fill' })
    .toFormat(alpha ? 'png' : 'jpeg')
    .toBuffer();
  return {
    preview: { data, extension: alpha ? 'png' : 'jpg', contentType: alpha ? 'image/png' : 'image/jpeg' },
    small,
    original: { width, height },
    blurhash: await blurhashOf(data),
  };
}

async function processImage(data: Buffer, format: string): Promise<Processed> {
  let meta: Awaited<ReturnType<ReturnType<typeof sharp>['metadata']>>;
  try {
    meta = await (await loadSharp())(data, { limitInputPixels: false }).metadata();
  } catch {
    throw new MediaRejection('ERR_INVALID', 'is not a readable image');
  }
  if ((meta.width ?? 0) * (meta.height ?? 0) > LIMITS.media_attachments.image_matrix_limit) {
    throw new MediaRejection(
      'ERR_TOO_LARGE',
      `has too many pixels (at most ${LIMITS.media_attachments.image_matrix_limit})`,
    );
  }
  try {
    const { preview, small, original, blurhash } = await previewOf(data);
    let file: ProcessedFile | null;
    let stored = original;
    if (format === 'gif') {
      // Animated GIFs stay as they are (no video transcoder); the preview shows the first frame.
      file = null;
    } else {
      stored = scaledTo(original.width, original.height, ORIGINAL_PIXELS);
      const outFormat = format === 'png' ? 'png' : format === 'webp' ? 'webp' : 'jpeg';
      const out = await (await loadSharp())(data, {
        limitInputPixels: LIMITS.media_attachments.image_matrix_limit,
        animated: false,
      })
        .rotate()
        .resize(stored.width, stored.height, { fit: 'fill' })
        .toFormat(outFormat)
        .toBuffer();
      file = { data: out, extension: outFormat === 'jpeg' ? 'jpg' : outFormat, contentType: `image/${outFormat}` };
    }
    return { type: 'image', file, preview, blurhash, meta: { original: stored, small } };
  } catch (err) {
    if (err instanceof MediaRejection) throw err;
    throw new MediaRejection('ERR_INVALID', `could not be processed as an image (${format})`);
  }
}

/** music-metadata (about 40 modules) loads with the first audio or video upload, not with every start of the server. */
const loadMusicMetadata = () => import('music-metadata');

async function processAudio(data: Buffer, container: string): Promise<Processed> {
  let parsed;
  try {
    const { parseBuffer } = await loadMusicMetadata();
    parsed = await parseBuffer(
      new Uint8Array(data.buffer, data.byteOffset, data.length),
      { mimeType: CONTENT_TYPES[container] },
      { duration: true },
    );
  } catch {
    throw new MediaRejection('ERR_INVALID', 'is not a readable audio file');
  }
  const f = parsed.format;
  const meta: MediaMeta = {
    duration: f.duration !== undefined ? Math.round(f.duration * 100) / 100 : undefined,
    audioEncode: f.codec ?? f.container,
    audioBitrate: f.sampleRate ? `${f.sampleRate} Hz` : undefined,
    audioChannels:
      f.numberOfChannels === 1
        ? 'mono'
        : f.numberOfChannels === 2
          ? 'stereo'
          : f.numberOfChannels
            ? `${f.numberOfChannels} channels`
            : undefined,
    original: { width: 0, height: 0, duration: f.duration, bitrate: f.bitrate },
  };
  const cover = parsed.common.picture?.[0];
  if (cover) {
    try {
      const { preview, small, blurhash } = await previewOf(Buffer.from(cover.data));
      return { type: 'audio', file: null, preview, blurhash, meta: { ...meta, small } };
    } catch {
      // A cover that is not a readable image is ignored: the audio itself is fine.
    }
  }
  return { type: 'audio', file: null, preview: null, blurhash: null, meta };
}

let ffmpegLookup: Promise<string | null> | null = null;

/**
 * An ffmpeg binary if one is available: HOMEPORT_FFMPEG, a bundled npm binary (ffmpeg-static or
 * @ffmpeg-installer/ffmpeg, when installed) or `ffmpeg` on the PATH. Without one, videos get no preview.
 */
export function findFfmpeg(): Promise<string | null> {
  ffmpegLookup ??= (async () => {
    const candidates: string[] = [];
    if (process.env.HOMEPORT_FFMPEG) candidates.push(process.env.HOMEPORT_FFMPEG);
    for (const name of ['ffmpeg-static', '@ffmpeg-installer/ffmpeg']) {
      try {
        const mod = (await import(name)) as { default?: unknown; path?: unknown };
        const found =
          typeof mod.default === 'string'
            ? mod.default
            : typeof (mod.default as { path?: unknown })?.path === 'string'
              ? (mod.default as { path: string }).path
              : typeof mod.path === 'string'
                ? mod.path
                : null;
        if (found) candidates.push(found);
      } catch {
        // not installed
      }
    }
    for (const dir of (process.env.PATH ?? '').split(path.delimiter))
      if (dir) candidates.push(path.join(dir, process.platform === 'win32' ? 'ffmpeg.exe' : 'ffmpeg'));
    for (const candidate of candidates) {
      try {
        await fs.promises.access(candidate, fs.constants.X_OK);
        return candidate;
      } catch {
        // try the next one
      }
    }
    return null;
  })();
  return ffmpegLookup;
}

async function videoFrame(ffmpeg: string, data: Buffer, extension: string): Promise<Buffer | null> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'homeport-video-'));
  try {
    const input = path.join(dir, `input.${extension}`);
    const output = path.join(dir, 'frame.png');
    await fs.promises.writeFile(input, data);
    await execFileAsync(ffmpeg, ['-hide_banner', '-loglevel', 'error', '-i', input, '-frames:v', '1', '-y', output], {
      timeout: 60_000,
    });
    return await fs.promises.readFile(output);
  } catch {
    return null;
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

async function processVideo(data: Buffer, container: string): Promise<Processed> {
  const meta: MediaMeta = {};
  try {
    const { parseBuffer } = await loadMusicMetadata();
    const parsed = await parseBuffer(
      new Uint8Array(data.buffer, data.byteOffset, data.length),
      { mimeType: CONTENT_TYPES[container] },
      { duration: true, skipCovers: true },
    );
    if (parsed.format.duration !== undefined) meta.duration = Math.round(parsed.format.duration * 100) / 100;
    const video = parsed.format.trackInfo?.find((t) => t.video);
    const width = video?.video?.pixelWidth ?? video?.video?.displayWidth;
    const height = video?.video?.pixelHeight ?? video?.video?.displayHeight;
    if (width && height)
      meta.original = { width, height, duration: parsed.format.duration, bitrate: parsed.format.bitrate };
  } catch {
    // Container details are optional; the file itself passed the type check.
  }
  const ffmpeg = await findFfmpeg();
  const frame = ffmpeg ? await videoFrame(ffmpeg, data, EXTENSIONS[container] ?? 'mp4') : null;
  if (frame) {
    try {
      const { preview, small, original, blurhash } = await previewOf(frame);
      return {
        type: 'video',
        file: null,
        preview,
        blurhash,
        meta: { ...meta, original: { ...meta.original, ...original }, small },
      };
    } catch {
      // fall through: no preview
    }
  }
  return { type: 'video', file: null, preview: null, blurhash: null, meta };
}

/** Turns an upload into the stored attachment's files and meta. Throws MediaRejection for bad files. */
export async function processUpload(data: Buffer, kind: SniffedKind): Promise<Processed> {
  if (kind.kind === 'image') return processImage(data, kind.format);
  if (kind.kind === 'audio') return processAudio(data, kind.container);
  return processVideo(data, kind.container);
}

/** A custom thumbnail for an attachment: any readable image, stored as a preview with its blurhash. */
export async function processThumbnail(
  data: Buffer,
): Promise<{ preview: ProcessedFile; small: ImageSize; blurhash: string }> {
  const kind = sniff(data);
  if (kind?.kind !== 'image') throw new MediaRejection('ERR_INVALID', 'must be an image (JPEG, PNG, GIF, WebP)');
  if (data.length > LIMITS.media_attachments.image_size_limit)
    throw new MediaRejection('ERR_TOO_LARGE', 'is too large');
  try {
    const { preview, small, blurhash } = await previewOf(data);
    return { preview, small, blurhash };
  } catch {
    throw new MediaRejection('ERR_INVALID', 'is not a readable image');
  }
}
