import sharp from 'sharp';
import { ValidationFailure } from '../errors.ts';

/** An uploaded file as the request parser hands it over. */
export interface UploadedFile {
  filename: string;
  mimetype: string;
  data: Buffer;
}

export function isUploadedFile(v: unknown): v is UploadedFile {
  return typeof v === 'object' && v !== null && Buffer.isBuffer((v as UploadedFile).data) && typeof (v as UploadedFile).mimetype === 'string';
}

export const PROFILE_IMAGE_LIMIT = 8 * 1024 * 1024;
export const IMAGE_MATRIX_LIMIT = 33_177_600;
export const PROFILE_IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;

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
export async function processProfileImage(field: 'avatar' | 'header', file: UploadedFile, width: number, height: number): Promise<{ data: Buffer; extension: string }> {
  if (file.data.length === 0) throw ValidationFailure.single(field, 'ERR_BLANK', "can't be blank");
  if (file.data.length > PROFILE_IMAGE_LIMIT) throw ValidationFailure.single(field, 'ERR_TOO_LARGE', `file size must be less than ${PROFILE_IMAGE_LIMIT / 1024 / 1024} MB`);
  let format: string | undefined;
  try {
    const meta = await sharp(file.data, { limitInputPixels: IMAGE_MATRIX_LIMIT }).metadata();
    format = meta.format;
  } catch {
    throw ValidationFailure.single(field, 'ERR_INVALID', 'is not a readable image (accepted: JPEG, PNG, GIF, WebP)');
  }
  const output = format ? OUTPUT[format] : undefined;
  if (!output) throw ValidationFailure.single(field, 'ERR_INVALID', `has an unsupported type ${format ?? 'unknown'} (accepted: JPEG, PNG, GIF, WebP)`);
  try {
    const data = await sharp(file.data, { limitInputPixels: IMAGE_MATRIX_LIMIT, animated: false })
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
    const avatar = await sharp({ create: { width: 400, height: 400, channels: 3, background: '#9baec8' } }).png().toBuffer();
    const header = await sharp({ create: { width: 1500, height: 500, channels: 3, background: '#606984' } }).png().toBuffer();
    return { avatar, header };
  })();
  return placeholders;
}
