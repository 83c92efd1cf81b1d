import fs from 'node:fs';
import { loadSharp } from './sharp.ts';
import { ValidationFailure } from '../errors.ts';

/**
 * An uploaded file as the request parser hands it over: streamed to a temporary file on disk, never held whole
 * in memory by the HTTP layer. The file is removed when the request ends unless it was moved into storage.
 */
export interface UploadedFile {
  filename: string;
  mimetype: string;
  /** Absolute path of the temporary file. */
  path: string;
  size: number;
}

export function isUploadedFile(v: unknown): v is UploadedFile {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as UploadedFile).path === 'string' &&
    typeof (v as UploadedFile).size === 'number' &&
    typeof (v as UploadedFile).mimetype === 'string'
  );
}

/** The first `bytes` of an upload (enough to tell its type). */
export async function uploadHead(file: UploadedFile, bytes = 4096): Promise<Buffer> {
  const handle = await fs.promises.open(file.path, 'r');
  try {
    const buffer = Buffer.alloc(Math.min(bytes, file.size));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

export const PROFILE_IMAGE_LIMIT = 8 * 1024 * 1024;
export const IMAGE_MATRIX_LIMIT = 33_177_600;

const OUTPUT: Record<string, { format: 'jpeg' | 'png' | 'webp'; extension: string }> = {
  jpeg: { format: 'jpeg', extension: 'jpg' },
  png: { format: 'png', extension: 'png' },
  gif: { format: 'png', extension: 'png' },
  webp: { format: 'webp', extension: 'webp' },
};

/**
 * Validates an avatar or header upload and scales it to cover `width`×`height` (Mastodon: avatars 400×400,
 * headers 1500×500), honouring EXIF rotation and dropping metadata. Bad files are a 422 on `field`.
 */
export async function processProfileImage(
  field: 'avatar' | 'header',
  file: Pick<UploadedFile, 'path' | 'size'> | { data: Buffer; size: number },
  width: number,
  height: number,
): Promise<{ data: Buffer; extension: string }> {
  // An upload on disk (multipart) or one already in memory (a body bounded by its route).
  const input = 'data' in file ? file.data : file.path;
  if (file.size === 0) throw ValidationFailure.single(field, 'ERR_BLANK', "can't be blank");
  if (file.size > PROFILE_IMAGE_LIMIT)
    throw ValidationFailure.single(
      field,
      'ERR_TOO_LARGE',
      `file size must be less than ${PROFILE_IMAGE_LIMIT / 1024 / 1024} MB`,
    );
  let format: string | undefined;
  try {
    const meta = await (await loadSharp())(input, { limitInputPixels: IMAGE_MATRIX_LIMIT }).metadata();
    format = meta.format;
  } catch {
    throw ValidationFailure.single(field, 'ERR_INVALID', 'is not a readable image (accepted: JPEG, PNG, GIF, WebP)');
  }
  const output = format ? OUTPUT[format] : undefined;
  if (!output)
    throw ValidationFailure.single(
      field,
      'ERR_INVALID',
      `has an unsupported type ${format ?? 'unknown'} (accepted: JPEG, PNG, GIF, WebP)`,
    );
  try {
    const data = await (await loadSharp())(input, { limitInputPixels: IMAGE_MATRIX_LIMIT, animated: false })
      .rotate()
      .resize(width, height, { fit: 'cover', withoutEnlargement: false })
      .toFormat(output.format)
      .toBuffer();
    return { data, extension: output.extension };
  } catch {
    throw ValidationFailure.single(field, 'ERR_INVALID', 'could not be processed as an image');
  }
}

let placeholders: Promise<{ avatar: Buffer; header: Buffer }> | null = null;

/** The images shown for accounts without an avatar or header (generated once per process). */
export function placeholderImages(): Promise<{ avatar: Buffer; header: Buffer }> {
  placeholders ??= (async () => {
    const avatar = await (await loadSharp())({
      create: { width: 400, height: 400, channels: 3, background: '#9baec8' },
    })
      .png()
      .toBuffer();
    const header = await (await loadSharp())({
      create: { width: 1500, height: 500, channels: 3, background: '#606984' },
    })
      .png()
      .toBuffer();
    return { avatar, header };
  })();
  return placeholders;
}
