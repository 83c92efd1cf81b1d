import type { Logger } from '../../logger.ts';
import type { MediaStorage } from '../media/index.ts';
import type { SocialStore } from '../store/index.ts';
import { decodePage, extractLinkDetails, type LinkDetails } from './extract.ts';
import type { SafeFetcher } from './fetch.ts';
import { fetchCardImage, type CardImage } from './image.ts';

/** A card is fetched again after two weeks (Mastodon's FetchLinkCardForURLService). */
export const CARD_FRESH_MS = 14 * 24 * 3600 * 1000;
/** A link that gave no card (no title, not HTML, unreachable) is tried again after an hour, not at every post. */
export const MISS_FRESH_MS = 3600 * 1000;
/** Mastodon reads at most a megabyte of a page (Request#truncated_body): the metadata is in its head. */
export const PAGE_MAX_BYTES = 1024 * 1024;

export interface CrawlLimits {
  timeoutMs: number;
  maxRedirects: number;
}

/**
 * Links → preview cards: a link fetched within its freshness gives what it gave then; otherwise its page is
 * fetched (text/html answered with 200 only), read, and saved as the card of its canonical address with its
 * image. Concurrent asks for one link share one fetch. A page with neither a title nor a player is no card.
 */
export class CardCrawler {
  private readonly inFlight = new Map<string, Promise<string | null>>();
  private readonly store: SocialStore;
  private readonly media: MediaStorage;
  private readonly fetcher: SafeFetcher;
  private readonly limits: CrawlLimits;
  private readonly log: Logger;

  constructor(deps: {
    store: SocialStore;
    media: MediaStorage;
    fetcher: SafeFetcher;
    limits: CrawlLimits;
    log: Logger;
  }) {
    this.store = deps.store;
    this.media = deps.media;
    this.fetcher = deps.fetcher;
    this.limits = deps.limits;
    this.log = deps.log;
  }

  /** The id of the card for `link` (as posted, normalized), or null when it has none. Never throws. */
  cardFor(link: string, signal: AbortSignal): Promise<string | null> {
    const last = this.store.previewCards.lastFetch(link);
    if (last && this.store.now() - last.fetchedAt < (last.cardId ? CARD_FRESH_MS : MISS_FRESH_MS))
      return Promise.resolve(last.cardId);
    let pending = this.inFlight.get(link);
    if (!pending) {
      pending = this.crawl(link, signal)
        .catch((err: unknown) => {
          this.log.debug({ err, link }, 'no preview card: the link could not be fetched');
          return null;
        })
        .then((cardId) => {
          // A fetch the shutdown cut short says nothing about the link: not remembered.
          if (!signal.aborted) this.store.previewCards.recordFetch(link, cardId);
          return cardId;
        })
        .finally(() => this.inFlight.delete(link));
      this.inFlight.set(link, pending);
    }
    return pending;
  }

  private async crawl(link: string, signal: AbortSignal): Promise<string | null> {
    const page = await this.fetcher.get(link, {
      accept: 'text/html',
      maxBytes: PAGE_MAX_BYTES,
      overflow: 'truncate',
      signal,
      ...this.limits,
    });
    if (page.status !== 200 || page.mediaType !== 'text/html') return null;
    const details = extractLinkDetails(decodePage(page.body, page.charset), page.url);
    if (details.title === '' && details.html === '') return null;
    let image: CardImage | null = null;
    if (details.imageUrl) {
      try {
        image = await fetchCardImage(this.fetcher, this.media, details.imageUrl, { ...this.limits, signal });
      } catch (err) {
        // A card without its image is still a card (Mastodon's save_with_optional_image!).
        this.log.debug({ err, image: details.imageUrl }, 'preview card image not fetched');
      }
    }
    const previous = this.store.previewCards.byUrl(details.canonicalUrl);
    let id: string;
    try {
      id = this.save(details, image);
    } catch (err) {
      // A card not saved leaves no image behind.
      if (image) await this.media.remove(image.file).catch(() => undefined);
      throw err;
    }
    // The card's earlier image is replaced: its file goes.
    if (previous?.imageFile && previous.imageFile !== image?.file)
      await this.media.remove(previous.imageFile).catch(() => undefined);
    return id;
  }

  private save(details: LinkDetails, image: CardImage | null): string {
    return this.store.previewCards.save({
      url: details.canonicalUrl,
      title: details.title,
      description: details.description,
      type: details.type,
      linkType: details.linkType,
      authorName: details.authorName,
      authorUrl: details.authorUrl,
      providerName: details.providerName,
      providerUrl: details.providerUrl,
      html: details.html,
      // A link card has its image's size; a player card the player's.
      width: details.type === 'link' ? (image?.width ?? 0) : details.width,
      height: details.type === 'link' ? (image?.height ?? 0) : details.height,
      imageFile: image?.file ?? null,
      imageDescription: details.imageDescription,
      blurhash: image?.blurhash ?? null,
      embedUrl: details.embedUrl,
      language: details.language,
      publishedAt: details.publishedAt,
    });
  }
}
