import { snowflakeLowerBound } from '../ids.ts';
import { toCard, type PreviewCardRow } from './preview-cards.ts';
import { DAY_MS, weekOfUse, type DayCount, type TagDay, type TagRow } from './search.ts';
import type { StatusRow } from '../status-row.ts';
import { toStatus } from './statuses.ts';
import { int, intOrNull, jsonIds, str, type StoreCore } from './store.ts';

/** How far back trends look: what many people used or shared in the last two days. */
const TREND_WINDOW_MS = 2 * DAY_MS;

/** The author of status `a` is neither silenced, suspended nor deleted (their shares do not count). */
const AUTHOR_COUNTS = (a: string) =>
  `NOT EXISTS (SELECT 1 FROM accounts ${a}_acc WHERE ${a}_acc.id = ${a}.account_id AND (${a}_acc.silenced_at IS NOT NULL OR ${a}_acc.suspended_at IS NOT NULL OR ${a}_acc.deleted_at IS NOT NULL))`;

/** Status `a` may make its link trend (Mastodon's Trends::Links#register): public, without a warning, by an account in good standing. */
const SHARES_ITS_LINK = (a: string) =>
  `${a}.deleted_at IS NULL AND ${a}.visibility = 'public' AND ${a}.sensitive = 0 AND ${a}.spoiler_text = '' AND ${AUTHOR_COUNTS(a)}`;

/**
 * `shares(card_id, account_id, created_at)`: each public post since @since showing a card, and each public
 * boost of one, as one share by its account (`cards`: only those cards' shares, from the JSON ids @cards).
 */
function sharesSince(cards: 'all' | 'some'): string {
  const only = cards === 'some' ? 'AND sc.preview_card_id IN (SELECT value FROM json_each(@cards))' : '';
  return `shares(card_id, account_id, created_at) AS (
      SELECT sc.preview_card_id, s.account_id, s.created_at FROM statuses s JOIN preview_cards_statuses sc ON sc.status_id = s.id
      WHERE s.id >= @since_id AND s.created_at >= @since AND s.reblog_of_id IS NULL AND ${SHARES_ITS_LINK('s')} ${only}
      UNION ALL
      SELECT sc.preview_card_id, r.account_id, r.created_at FROM statuses r JOIN statuses s ON s.id = r.reblog_of_id JOIN preview_cards_statuses sc ON sc.status_id = s.id
      WHERE r.id >= @since_id AND r.created_at >= @since AND r.reblog_of_id IS NOT NULL AND r.deleted_at IS NULL AND r.visibility = 'public' AND ${AUTHOR_COUNTS('r')}
        AND ${SHARES_ITS_LINK('s')} ${only})`;
}

/** Card `c` can trend at all (Mastodon's PreviewCard#appropriate_for_trends?): an article with a title, description, image and site name. */
const APPROPRIATE_FOR_TRENDS = (c: string) =>
  `${c}.type = 'link' AND ${c}.link_type = 'article' AND ${c}.title <> '' AND ${c}.description <> '' AND ${c}.image_file IS NOT NULL AND ${c}.provider_name <> ''`;

/** The host of URL column `url`, lower case and without port (Mastodon's PreviewCardProvider#domain). */
const HOST = (url: string) => {
  const rest = `substr(${url}, instr(${url}, '://') + 3)`;
  const hostPort = `substr(${rest}, 1, instr(${rest} || '/', '/') - 1)`;
  return `lower(substr(${hostPort}, 1, instr(${hostPort} || ':', ':') - 1))`;
};

/** Card `c` may trend publicly: staff allowed it, or left it unreviewed and allowed its publisher (PreviewCard#trendable?). */
const LINK_ALLOWED = (c: string) =>
  `(${c}.trendable = 1 OR (${c}.trendable IS NULL AND EXISTS (SELECT 1 FROM preview_card_providers p WHERE p.domain = ${HOST(`${c}.url`)} AND p.trendable = 1)))`;

export interface TagReview {
  trendable: boolean | null;
  usable: boolean | null;
  listable: boolean | null;
}

export interface PublisherRow {
  id: string;
  domain: string;
  trendable: boolean | null;
  reviewedAt: number | null;
  requestedReviewAt: number | null;
}

export interface LinkUsage {
  card: PreviewCardRow;
  /** Distinct accounts that shared the link in the window, and their posts and boosts. */
  accounts: number;
  uses: number;
}

export interface TagUsage {
  tag: TagRow;
  accounts: number;
  uses: number;
  /** Whether staff allowed the tag to trend (null: not reviewed yet). */
  trendable: boolean | null;
}

/**
 * What is trending: hashtags many accounts used lately and links many accounts shared lately (only those
 * staff allowed, as Mastodon's review), and public posts many accounts favourited and reblogged lately,
 * newest interest first.
 */
export class TrendRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  /** Tags used in public posts in the window, by distinct accounts then uses; `allowedOnly` for the public list. */
  tags(options: { allowedOnly: boolean; limit: number; offset: number }): TagUsage[] {
    const since = this.core.now() - TREND_WINDOW_MS;
    const rows = this.core
      .sql(
        `SELECT t.id, t.name, coalesce(t.display_name, t.name) AS display, t.trendable, COUNT(DISTINCT s.account_id) AS accounts, COUNT(*) AS uses
         FROM statuses_tags st JOIN statuses s ON s.id = st.status_id JOIN tags t ON t.id = st.tag_id
         WHERE st.status_id >= @since_id AND s.created_at >= @since AND s.deleted_at IS NULL AND s.visibility = 'public' AND s.reblog_of_id IS NULL
           AND (t.usable IS NULL OR t.usable = 1) AND (@allowed = 0 OR t.trendable = 1)
           AND NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = s.account_id AND (a.suspended_at IS NOT NULL OR a.silenced_at IS NOT NULL OR a.deleted_at IS NOT NULL))
         GROUP BY t.id ORDER BY accounts DESC, uses DESC, t.id DESC LIMIT @limit OFFSET @offset`,
      )
      .all({
        since,
        since_id: snowflakeLowerBound(since),
        allowed: options.allowedOnly ? 1 : 0,
        limit: options.limit,
        offset: options.offset,
      }) as Record<string, unknown>[];
    return rows.map((r) => ({
      tag: { id: str(r.id), name: String(r.name), displayName: String(r.display) },
      accounts: int(r.accounts),
      uses: int(r.uses),
      trendable: r.trendable === null ? null : int(r.trendable) === 1,
    }));
  }

  /** Each tag's review (Mastodon's Admin::Tag): null where staff have not decided. */
  tagReviews(tagIds: readonly string[]): Map<string, TagReview> {
    const rows = this.core
      .sql('SELECT id, trendable, usable, listable FROM tags WHERE id IN (SELECT value FROM json_each(?))')
      .all(jsonIds(tagIds)) as Record<string, bigint | null>[];
    const flag = (v: bigint | null) => (v === null ? null : int(v) === 1);
    return new Map(
      rows.map((r) => [
        str(r.id),
        { trendable: flag(r.trendable), usable: flag(r.usable), listable: flag(r.listable) },
      ]),
    );
  }

  /** Staff's review of a tag: allowed to trend or not. */
  setTrendable(tagId: string, trendable: boolean): void {
    this.core
      .sql('UPDATE tags SET trendable = ?, updated_at = ? WHERE id = ?')
      .run(trendable ? 1 : 0, this.core.now(), tagId);
  }

  /**
   * Links shared in public posts and boosts in the window, by distinct accounts then shares; only articles
   * (Mastodon's rule), and with `allowedOnly` (the public list) only those staff allowed.
   */
  links(options: { allowedOnly: boolean; limit: number; offset: number }): LinkUsage[] {
    const since = this.core.now() - TREND_WINDOW_MS;
    const rows = this.core
      .sql(
        `WITH ${sharesSince('all')}
         SELECT c.*, COUNT(DISTINCT sh.account_id) AS share_accounts, COUNT(*) AS share_uses FROM shares sh JOIN preview_cards c ON c.id = sh.card_id
         WHERE ${APPROPRIATE_FOR_TRENDS('c')} AND (@allowed = 0 OR ${LINK_ALLOWED('c')})
         GROUP BY c.id ORDER BY share_accounts DESC, share_uses DESC, c.id DESC LIMIT @limit OFFSET @offset`,
      )
      .all({
        since,
        since_id: snowflakeLowerBound(since),
        allowed: options.allowedOnly ? 1 : 0,
        limit: options.limit,
        offset: options.offset,
      }) as Record<string, unknown>[];
    return rows.map((r) => ({ card: toCard(r), accounts: int(r.share_accounts), uses: int(r.share_uses) }));
  }

  /** The card at `url` if it trends now (allowed by staff and shared in the window), else null: the link timeline's condition. */
  trendingLink(url: string): PreviewCardRow | null {
    const card = this.core
      .sql(`SELECT * FROM preview_cards c WHERE c.url = ? AND ${LINK_ALLOWED('c')} AND ${APPROPRIATE_FOR_TRENDS('c')}`)
      .get(url) as Record<string, unknown> | undefined;
    if (!card) return null;
    const since = this.core.now() - TREND_WINDOW_MS;
    const shared = this.core
      .sql(`WITH ${sharesSince('some')} SELECT 1 FROM shares LIMIT 1`)
      .get({ since, since_id: snowflakeLowerBound(since), cards: jsonIds([str(card.id)]) });
    return shared ? toCard(card) : null;
  }

  /** Each card's shares per day over the last week, newest day first (Trends::History, as the tags' history). */
  linkHistory(cardIds: readonly string[]): Map<string, TagDay[]> {
    return weekOfUse(
      this.core.now(),
      cardIds,
      (since) =>
        this.core
          .sql(
            `WITH ${sharesSince('some')}
           SELECT card_id AS id, (created_at / ${DAY_MS}) * ${DAY_MS} AS day, COUNT(*) AS uses, COUNT(DISTINCT account_id) AS accounts FROM shares GROUP BY card_id, day`,
          )
          .all({ since, since_id: snowflakeLowerBound(since), cards: jsonIds(cardIds) }) as DayCount[],
    );
  }

  /** Staff's review of a link card: allowed to trend or not. */
  setLinkTrendable(cardId: string, trendable: boolean): void {
    this.core.sql('UPDATE preview_cards SET trendable = ? WHERE id = ?').run(trendable ? 1 : 0, cardId);
  }

  /**
   * The publishers (hosts) of the links that are trend candidates now, most shared first, each with its
   * review; a publisher seen for the first time is recorded (Mastodon records one with each card).
   */
  publishers(limit: number, offset: number): PublisherRow[] {
    const since = this.core.now() - TREND_WINDOW_MS;
    const domains = (
      this.core
        .sql(
          `WITH ${sharesSince('all')}
           SELECT ${HOST('c.url')} AS domain, COUNT(*) AS n FROM shares sh JOIN preview_cards c ON c.id = sh.card_id
           WHERE ${APPROPRIATE_FOR_TRENDS('c')} GROUP BY 1 HAVING domain <> '' ORDER BY n DESC, domain LIMIT @limit OFFSET @offset`,
        )
        .all({ since, since_id: snowflakeLowerBound(since), limit, offset }) as { domain: string }[]
    ).map((r) => r.domain);
    const insert = this.core.sql(
      'INSERT OR IGNORE INTO preview_card_providers (id, domain, created_at) VALUES (?, ?, ?)',
    );
    for (const domain of domains) insert.run(this.core.ids.next(), domain, this.core.now());
    const rows = new Map(
      (
        this.core
          .sql('SELECT * FROM preview_card_providers WHERE domain IN (SELECT value FROM json_each(?))')
          .all(JSON.stringify(domains)) as Record<string, unknown>[]
      ).map((r) => [String(r.domain), toPublisher(r)]),
    );
    return domains.map((d) => rows.get(d)!);
  }

  publisher(id: string): PublisherRow | null {
    const r = this.core.sql('SELECT * FROM preview_card_providers WHERE id = ?').get(id) as
      | Record<string, unknown>
      | undefined;
    return r ? toPublisher(r) : null;
  }

  /** Staff's review of a publisher: its links trend (unless refused one by one) or not. */
  setPublisherTrendable(id: string, trendable: boolean): void {
    this.core
      .sql('UPDATE preview_card_providers SET trendable = ?, reviewed_at = ? WHERE id = ?')
      .run(trendable ? 1 : 0, this.core.now(), id);
  }

  /** Staff's review of a post: it may trend or not (unreviewed posts trend). */
  setStatusTrendable(statusId: string, trendable: boolean): void {
    this.core.sql('UPDATE statuses SET trendable = ? WHERE id = ?').run(trendable ? 1 : 0, statusId);
  }

  /** Each status's review: true, false, or null when not reviewed. */
  statusReviews(statusIds: readonly string[]): Map<string, boolean | null> {
    const rows = this.core
      .sql('SELECT id, trendable FROM statuses WHERE id IN (SELECT value FROM json_each(?))')
      .all(jsonIds(statusIds)) as { id: bigint; trendable: bigint | null }[];
    return new Map(rows.map((r) => [str(r.id), r.trendable === null ? null : int(r.trendable) === 1]));
  }

  /**
   * Public, unsensitive posts of discoverable accounts from the window that several accounts favourited or
   * reblogged, by interest (a reblog counts twice a favourite) fading with age; with `allowedOnly` (the
   * public list) not those staff refused.
   */
  statuses(options: { allowedOnly: boolean; limit: number; offset: number }): StatusRow[] {
    const since = this.core.now() - TREND_WINDOW_MS;
    const rows = this.core
      .sql(
        `WITH interest(id, score) AS (
           SELECT status_id, SUM(w) FROM (
             SELECT f.status_id, 1 AS w FROM favourites f WHERE f.status_id >= @since_id AND f.created_at >= @since
             UNION ALL SELECT r.reblog_of_id, 2 FROM statuses r WHERE r.reblog_of_id >= @since_id AND r.created_at >= @since AND r.deleted_at IS NULL
           ) GROUP BY status_id HAVING SUM(w) >= 2)
         SELECT s.* FROM interest i JOIN statuses s ON s.id = i.id JOIN accounts a ON a.id = s.account_id
         WHERE s.deleted_at IS NULL AND s.visibility = 'public' AND s.sensitive = 0 AND s.spoiler_text = '' AND s.created_at >= @since
           AND a.discoverable = 1 AND a.suspended_at IS NULL AND a.silenced_at IS NULL AND a.deleted_at IS NULL
           AND (@allowed = 0 OR s.trendable IS NULL OR s.trendable = 1)
         ORDER BY i.score * 1.0 / (1 + (@now - s.created_at) / 3600000.0) DESC, s.id DESC LIMIT @limit OFFSET @offset`,
      )
      .all({
        since,
        since_id: snowflakeLowerBound(since),
        now: this.core.now(),
        allowed: options.allowedOnly ? 1 : 0,
        limit: options.limit,
        offset: options.offset,
      }) as Record<string, unknown>[];
    return rows.map(toStatus);
  }
}

function toPublisher(r: Record<string, unknown>): PublisherRow {
  return {
    id: str(r.id),
    domain: String(r.domain),
    trendable: r.trendable === null ? null : int(r.trendable) === 1,
    reviewedAt: intOrNull(r.reviewed_at),
    requestedReviewAt: intOrNull(r.requested_review_at),
  };
}
