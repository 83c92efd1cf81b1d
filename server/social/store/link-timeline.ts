import type { PageQuery } from './store.ts';
import { notHidden, type ViewerScope } from './readable-sql.ts';
import type { ListedStatus, TimelineRepository } from './timelines.ts';

/**
 * The link timeline (Mastodon 4.3's LinkFeed): public posts showing one preview card, newest first, by
 * discoverable accounts in good standing (not silenced, suspended or deleted), leaving out accounts the viewer
 * blocks, mutes or domain-blocks. Boosts show no card of their own, so they are not listed; replies are.
 */
export class LinkTimelineRepository {
  private readonly timelines: TimelineRepository;
  constructor(timelines: TimelineRepository) {
    this.timelines = timelines;
  }

  statuses(scope: ViewerScope, cardId: string, page: PageQuery): ListedStatus[] {
    // Walks the card's (preview_card_id, status_id) index from the newest status.
    return this.timelines.page(
      (where, order) => `SELECT s.id, s.updated_at AS version, sc.status_id AS cursor
        FROM preview_cards_statuses sc JOIN statuses s ON s.id = sc.status_id JOIN accounts a ON a.id = s.account_id
        WHERE sc.preview_card_id = @card AND ${where} AND s.deleted_at IS NULL AND s.visibility = 'public' AND s.reblog_of_id IS NULL
          AND a.discoverable = 1 AND a.silenced_at IS NULL AND a.suspended_at IS NULL AND a.deleted_at IS NULL AND ${notHidden('s.account_id', scope, 'h')}
        ORDER BY sc.status_id ${order} LIMIT @cursor_limit`,
      'sc.status_id',
      { card: cardId, viewer: scope.viewerId },
      page,
    );
  }
}
