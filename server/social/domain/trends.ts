import { notFound } from '../errors.ts';
import type { PreviewCardRow, PublisherRow, SocialStore } from '../store/index.ts';

/** Staff's review of trends: each tag, post, link and link publisher is let into the public trends or kept out. */
export class TrendService {
  private readonly store: SocialStore;
  constructor(store: SocialStore) {
    this.store = store;
  }

  reviewTag(tagId: string, allowed: boolean): void {
    if (!this.store.tags.byId(tagId)) throw notFound();
    this.store.trends.setTrendable(tagId, allowed);
  }

  /** A post that is gone cannot be reviewed. */
  reviewStatus(statusId: string, allowed: boolean): void {
    const status = this.store.statuses.byId(statusId);
    if (!status || status.deletedAt !== null) throw notFound();
    this.store.trends.setStatusTrendable(status.id, allowed);
  }

  /** A link, by its preview card; returns the card as reviewed. */
  reviewLink(cardId: string, allowed: boolean): PreviewCardRow {
    const card = this.store.previewCards.byId(cardId);
    if (!card) throw notFound();
    this.store.trends.setLinkTrendable(card.id, allowed);
    return { ...card, trendable: allowed };
  }

  reviewPublisher(id: string, allowed: boolean): PublisherRow {
    if (!this.store.trends.publisher(id)) throw notFound();
    this.store.trends.setPublisherTrendable(id, allowed);
    return this.store.trends.publisher(id)!;
  }

  /** The sites whose links were shared lately, each recorded as a publisher staff can review. */
  publishers(limit: number, offset: number): PublisherRow[] {
    return this.store.trends.publishers(limit, offset);
  }
}
