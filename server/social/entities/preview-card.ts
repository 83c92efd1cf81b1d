import type { PreviewCardRow, PublisherRow, StatusCard, TagDay } from '../store/index.ts';
import type { SocialUrls } from '../urls.ts';
import { isoTimeOrNull } from './dates.ts';
import { serializeHistory } from './tag.ts';

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

/** Trends::Link (REST::Trends::LinkSerializer): the card under its own address, with its shares per day over the last week. */
export function serializeTrendsLink(
  urls: SocialUrls,
  card: PreviewCardRow,
  history: readonly TagDay[],
): Record<string, unknown> {
  return { ...serializePreviewCard(urls, { card, url: card.url }), history: serializeHistory(history) };
}

/** The admin API's Trends::Link (REST::Admin::Trends::LinkSerializer): also the card's id and whether staff have yet to review it. */
export function serializeAdminTrendsLink(
  urls: SocialUrls,
  card: PreviewCardRow,
  history: readonly TagDay[],
): Record<string, unknown> {
  return { ...serializeTrendsLink(urls, card, history), id: card.id, requires_review: card.trendable === null };
}

/** Admin::Trends::Links::PreviewCardProvider: a link publisher with staff's review. */
export function serializePublisher(p: PublisherRow): Record<string, unknown> {
  return {
    id: p.id,
    domain: p.domain,
    trendable: p.trendable === true,
    reviewed_at: isoTimeOrNull(p.reviewedAt),
    requested_review_at: isoTimeOrNull(p.requestedReviewAt),
    requires_review: p.trendable === null,
  };
}
