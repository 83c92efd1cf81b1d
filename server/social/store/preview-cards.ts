import { int, intOrNull, jsonIds, str, type StoreCore } from './store.ts';

export const PREVIEW_CARD_TYPES = ['link', 'photo', 'video', 'rich'] as const;
export type PreviewCardType = (typeof PREVIEW_CARD_TYPES)[number];
/** Mastodon's PreviewCard#link_type: whether the page says it is an article (only articles trend). */
export type PreviewCardLinkType = 'article' | 'unknown';

/** What a fetched page says about itself (Mastodon's PreviewCard attributes). */
export interface PreviewCardFields {
  url: string;
  title: string;
  description: string;
  type: PreviewCardType;
  linkType: PreviewCardLinkType;
  authorName: string;
  authorUrl: string;
  providerName: string;
  providerUrl: string;
  html: string;
  width: number;
  height: number;
  imageFile: string | null;
  imageDescription: string;
  blurhash: string | null;
  embedUrl: string;
  language: string | null;
  publishedAt: number | null;
}

export interface PreviewCardRow extends PreviewCardFields {
  id: string;
  /** Staff's review for trends: allowed (true), kept out (false), or not reviewed yet (null). */
  trendable: boolean | null;
  createdAt: number;
  updatedAt: number;
}

/** A card shown on a status: the card and the link as the status wrote it. */
export interface StatusCard {
  card: PreviewCardRow;
  url: string;
}

/** What fetching a posted link gave last time: a card, or nothing (`cardId` null), and when. */
export interface CardFetch {
  cardId: string | null;
  fetchedAt: number;
}

export function toCard(r: Record<string, unknown>): PreviewCardRow {
  return {
    id: str(r.id),
    url: r.url as string,
    title: r.title as string,
    description: r.description as string,
    type: r.type as PreviewCardType,
    linkType: r.link_type as PreviewCardLinkType,
    trendable: r.trendable === null || r.trendable === undefined ? null : int(r.trendable) === 1,
    authorName: r.author_name as string,
    authorUrl: r.author_url as string,
    providerName: r.provider_name as string,
    providerUrl: r.provider_url as string,
    html: r.html as string,
    width: int(r.width),
    height: int(r.height),
    imageFile: (r.image_file as string | null) ?? null,
    imageDescription: r.image_description as string,
    blurhash: (r.blurhash as string | null) ?? null,
    embedUrl: r.embed_url as string,
    language: (r.language as string | null) ?? null,
    publishedAt: intOrNull(r.published_at),
    createdAt: int(r.created_at),
    updatedAt: int(r.updated_at),
  };
}

/** Link preview cards (Mastodon's PreviewCard), what fetching each posted link gave, and which status shows which card. */
export class PreviewCardRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  byId(id: string): PreviewCardRow | null {
    const r = this.core.sql('SELECT * FROM preview_cards WHERE id = ?').get(id) as Record<string, unknown> | undefined;
    return r ? toCard(r) : null;
  }

  byUrl(url: string): PreviewCardRow | null {
    const r = this.core.sql('SELECT * FROM preview_cards WHERE url = ?').get(url) as
      | Record<string, unknown>
      | undefined;
    return r ? toCard(r) : null;
  }

  /** Creates the card of `fields.url` or replaces what it said; returns its id. */
  save(fields: PreviewCardFields): string {
    const now = this.core.now();
    const values = {
      url: fields.url,
      title: fields.title,
      description: fields.description,
      type: fields.type,
      link_type: fields.linkType,
      author_name: fields.authorName,
      author_url: fields.authorUrl,
      provider_name: fields.providerName,
      provider_url: fields.providerUrl,
      html: fields.html,
      width: fields.width,
      height: fields.height,
      image_file: fields.imageFile,
      image_description: fields.imageDescription,
      blurhash: fields.blurhash,
      embed_url: fields.embedUrl,
      language: fields.language,
      published_at: fields.publishedAt,
      now,
      id: this.core.ids.next(),
    };
    // One write of the group commit (see recordFetch).
    const row = this.core.transaction(() =>
      this.core
        .sql(
          `INSERT INTO preview_cards (id, url, title, description, type, link_type, author_name, author_url, provider_name, provider_url, html, width, height,
           image_file, image_description, blurhash, embed_url, language, published_at, created_at, updated_at)
         VALUES (@id, @url, @title, @description, @type, @link_type, @author_name, @author_url, @provider_name, @provider_url, @html, @width, @height,
           @image_file, @image_description, @blurhash, @embed_url, @language, @published_at, @now, @now)
         ON CONFLICT (url) DO UPDATE SET title = excluded.title, description = excluded.description, type = excluded.type, link_type = excluded.link_type,
           author_name = excluded.author_name, author_url = excluded.author_url, provider_name = excluded.provider_name,
           provider_url = excluded.provider_url, html = excluded.html, width = excluded.width, height = excluded.height,
           image_file = excluded.image_file, image_description = excluded.image_description, blurhash = excluded.blurhash,
           embed_url = excluded.embed_url, language = excluded.language, published_at = excluded.published_at, updated_at = excluded.updated_at
         RETURNING id`,
        )
        .get(values),
    ) as { id: bigint };
    return str(row.id);
  }

  /** What fetching `url` (a link as posted) gave last time, or null if it was never fetched. */
  lastFetch(url: string): CardFetch | null {
    const r = this.core.sql('SELECT card_id, fetched_at FROM card_fetches WHERE url = ?').get(url) as
      | { card_id: bigint | null; fetched_at: bigint }
      | undefined;
    return r ? { cardId: r.card_id === null ? null : str(r.card_id), fetchedAt: int(r.fetched_at) } : null;
  }

  /**
   * Remembers what fetching `url` gave. A write of the server's group commit like any other: a lone statement
   * would commit (and fsync, on the main thread) by itself whenever no group is open, once per posted link.
   */
  recordFetch(url: string, cardId: string | null): void {
    this.core.transaction(() =>
      this.core
        .sql(
          'INSERT INTO card_fetches (url, card_id, fetched_at) VALUES (?, ?, ?) ON CONFLICT (url) DO UPDATE SET card_id = excluded.card_id, fetched_at = excluded.fetched_at',
        )
        .run(url, cardId, this.core.now()),
    );
  }

  /**
   * Removes at most `limit` cards no status shows any more (each status that showed one was deleted or
   * edited to another link) and unchanged since `before`, with what fetching links remembered of them (so a
   * later post fetches the page again); returns how many, and their image files for the caller to delete.
   */
  removeUnused(before: number, limit: number): { removed: number; files: string[] } {
    return this.core.transaction(() => {
      const rows = this.core
        .sql(
          `SELECT c.id, c.image_file FROM preview_cards c WHERE c.updated_at < @before
             AND NOT EXISTS (SELECT 1 FROM preview_cards_statuses sc JOIN statuses s ON s.id = sc.status_id WHERE sc.preview_card_id = c.id AND s.deleted_at IS NULL)
           LIMIT @limit`,
        )
        .all({ before, limit }) as { id: bigint; image_file: string | null }[];
      if (rows.length === 0) return { removed: 0, files: [] };
      const ids = jsonIds(rows.map((r) => str(r.id)));
      this.core.sql('DELETE FROM card_fetches WHERE card_id IN (SELECT value FROM json_each(?))').run(ids);
      // The statuses' own rows go with the cards (ON DELETE CASCADE): only deleted statuses still had them.
      this.core.sql('DELETE FROM preview_cards WHERE id IN (SELECT value FROM json_each(?))').run(ids);
      return { removed: rows.length, files: rows.flatMap((r) => (r.image_file ? [r.image_file] : [])) };
    });
  }

  /** Forgets at most `limit` fetches made before `before` (past every freshness, they decide nothing); returns how many. */
  forgetFetches(before: number, limit: number): number {
    return this.core
      .sql('DELETE FROM card_fetches WHERE rowid IN (SELECT rowid FROM card_fetches WHERE fetched_at < ? LIMIT ?)')
      .run(before, limit).changes;
  }

  /** Shows `cardId` on a status, for the link `url` it wrote (replacing a card it showed before). */
  attach(statusId: string, cardId: string, url: string): void {
    this.core
      .sql(
        'INSERT INTO preview_cards_statuses (status_id, preview_card_id, url) VALUES (?, ?, ?) ON CONFLICT (status_id) DO UPDATE SET preview_card_id = excluded.preview_card_id, url = excluded.url',
      )
      .run(statusId, cardId, url);
  }

  detach(statusId: string): void {
    this.core.sql('DELETE FROM preview_cards_statuses WHERE status_id = ?').run(statusId);
  }

  /** The link a status's card was made for, or null when it shows none. */
  linkOf(statusId: string): string | null {
    const r = this.core.sql('SELECT url FROM preview_cards_statuses WHERE status_id = ?').get(statusId) as
      | { url: string }
      | undefined;
    return r?.url ?? null;
  }

  /** The cards of a page of statuses (one query), by status id. */
  forStatuses(statusIds: readonly string[]): Map<string, StatusCard> {
    if (statusIds.length === 0) return new Map();
    const rows = this.core
      .sql(
        'SELECT sc.status_id AS status_id, sc.url AS link, c.* FROM preview_cards_statuses sc JOIN preview_cards c ON c.id = sc.preview_card_id WHERE sc.status_id IN (SELECT value FROM json_each(?))',
      )
      .all(jsonIds(statusIds)) as Record<string, unknown>[];
    return new Map(rows.map((r) => [str(r.status_id), { card: toCard(r), url: r.link as string }]));
  }
}
