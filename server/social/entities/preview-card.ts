import type { StatusCard } from '../store/index.ts';
import type { SocialUrls } from '../urls.ts';
import { isoTimeOrNull } from './dates.ts';

/**
 * The PreviewCard entity of a status (Mastodon 4.5's REST::PreviewCardSerializer): `url` is the link as the
 * status wrote it (the card itself may be stored under the page's canonical address), `image` is our copy,
 * and `authors` always has the one author the page named (empty name and url when it named none), as
 * Mastodon's PreviewCard#authors.
 */
export function serializePreviewCard(urls: SocialUrls, { card, url }: StatusCard): Record<string, unknown> {
  return {
    url: url || card.url,
    title: card.title,
    description: card.description,
    language: card.language,
    type: card.type,
    author_name: card.authorName,
    author_url: card.authorUrl,
    provider_name: card.providerName,
    provider_url: card.providerUrl,
    html: card.html,
    width: card.width,
    height: card.height,
    image: card.imageFile ? urls.media(card.imageFile) : null,
    image_description: card.imageDescription,
    embed_url: card.embedUrl,
    blurhash: card.blurhash,
    published_at: isoTimeOrNull(card.publishedAt),
    authors: [{ name: card.authorName, url: card.authorUrl, account: null }],
  };
}
