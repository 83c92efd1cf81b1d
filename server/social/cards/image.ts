import { type MediaStorage, previewOf, sniff } from '../media/index.ts';
import { FetchRefused, type SafeFetcher } from './fetch.ts';

/** Mastodon's PreviewCard::LIMIT: larger images are not fetched. */
export const CARD_IMAGE_MAX_BYTES = 2 * 1024 * 1024;
const CARD_IMAGE_TYPES = 'image/jpeg, image/png, image/gif, image/webp';
const CARD_IMAGE_FORMATS = new Set(['jpeg', 'png', 'gif', 'webp']);
/** Folder of card images under the media directory. */
export const CARD_IMAGE_FOLDER = 'preview_cards';

export interface CardImage {
  /** Path under the media directory. */
  file: string;
  width: number;
  height: number;
  blurhash: string;
}

/**
 * A card's image, fetched under the same rules as its page (bounded bytes, public addresses), recognised by its
 * bytes (not its declared type), scaled as Mastodon scales card images (at most 640×360 worth of pixels, the
 * size media previews have; sharp refuses images of more than the media pixel limit) and stored with a blurhash.
 */
export async function fetchCardImage(
  fetcher: SafeFetcher,
  media: MediaStorage,
  url: string,
  limits: { timeoutMs: number; maxRedirects: number; signal?: AbortSignal },
): Promise<CardImage> {
  const res = await fetcher.get(url, {
    accept: CARD_IMAGE_TYPES,
    maxBytes: CARD_IMAGE_MAX_BYTES,
    overflow: 'refuse',
    ...limits,
  });
  if (res.status !== 200 || res.body.length === 0)
    throw new FetchRefused(`image answered ${res.status} ${res.mediaType}`);
  const kind = sniff(res.body);
  if (!kind || kind.kind !== 'image' || !CARD_IMAGE_FORMATS.has(kind.format))
    throw new FetchRefused('not a JPEG, PNG, GIF or WebP image');
  const { preview, small, blurhash } = await previewOf(res.body);
  const file = await media.write(CARD_IMAGE_FOLDER, preview.extension, preview.data);
  return { file, width: small.width, height: small.height, blurhash };
}
