import { Emoji, Image, Link } from '@fedify/vocab';
import { shortcodesIn } from '../store/index.ts';
import { isPublicMediaUrl, isSvg, STRICT_REMOTE_MEDIA } from '../entities/index.ts';
import type { FedDeps } from './deps.ts';
import { refuseToFetch } from './inbound-limits.ts';

/** Custom emojis in ActivityPub: Emoji tags (`:name:` with an image) on posts and profiles, both ways. */

export interface RemoteEmoji {
  shortcode: string;
  uri: string | null;
  url: string;
}

/** An Emoji tag, as Mastodon, Misskey and Akkoma send them; null when unusable. */
export async function emojiOf(tag: Emoji): Promise<RemoteEmoji | null> {
  const shortcode = tag.name?.toString().replace(/^:|:$/g, '') ?? '';
  if (!/^[a-zA-Z0-9_]{2,64}$/.test(shortcode)) return null;
  const icon = await tag.getIcon({ documentLoader: refuseToFetch }).catch(() => null);
  const url =
    icon?.url instanceof URL ? icon.url.href : icon?.url instanceof Link ? (icon.url.href?.href ?? null) : null;
  // Clients load it as an image: https on a public host, and no SVG (see remote-media.ts).
  if (!url || !isPublicMediaUrl(url, STRICT_REMOTE_MEDIA) || isSvg(url, icon?.mediaType ?? null)) return null;
  return { shortcode, uri: tag.id?.href ?? null, url };
}

/** Emoji tags for the server's custom emojis the texts use, as Mastodon sends them. */
export function emojiTags(deps: FedDeps, ...texts: string[]): Emoji[] {
  return deps.social.store.emojis.forShortcodes(null, shortcodesIn(...texts)).map(
    (e) =>
      new Emoji({
        name: `:${e.shortcode}:`,
        icon: new Image({ url: new URL(deps.social.urls.media(e.imagePath)), mediaType: imageTypeOf(e.imagePath) }),
      }),
  );
}

function imageTypeOf(path: string): string {
  const ext = path.split('.').pop()?.toLowerCase();
  return ext === 'gif'
    ? 'image/gif'
    : ext === 'webp'
      ? 'image/webp'
      : ext === 'jpg' || ext === 'jpeg'
        ? 'image/jpeg'
        : 'image/png';
}
