import type { CustomEmojiRow } from '../store/index.ts';
import type { SocialUrls } from '../urls.ts';

/** Mastodon's CustomEmoji: a local one served from media storage, a remote one from its server. */
export function serializeEmoji(
  urls: SocialUrls,
  e: CustomEmojiRow,
): { shortcode: string; url: string; static_url: string; visible_in_picker: boolean; category?: string | null } {
  const url = e.remoteUrl ?? urls.media(e.imagePath);
  const stillUrl = e.remoteUrl ?? urls.media(e.staticPath);
  return { shortcode: e.shortcode, url, static_url: stillUrl, visible_in_picker: e.visibleInPicker };
}
