import type { FilterService } from '../domain/index.ts';
import type { SocialStore, StatusRow } from '../store/index.ts';
import type { SocialUrls } from '../urls.ts';

/** The most the kept texts may weigh (2 bytes a UTF-16 unit plus each entry's upkeep): a status is about 2 KB. */
export const STATUS_TEXT_BYTES = 16 * 1024 * 1024;

/** Viewer and context pairs kept at once (each pair's texts count in the bytes). */
export const STATUS_TEXT_VIEWERS = 1_000;

interface Kept {
  text: string;
  /** The first moment the text changes with time alone (a shown poll closing, a filter or a mute running out). */
  until: number;
}

/** One viewer's texts in one filter context. */
export type ViewerTexts = Map<string, Kept>;

/**
 * Each status's finished JSON text as one viewer sees it in one context (counters, the viewer's flags, author,
 * poll, quote and `filtered` written in), kept while nothing at all has been written to the database (the
 * store's write stamp, as kept timeline answers), the server's public address and the compiled filters are the
 * ones it was written with, and the clock has not reached its `until`. A page at an address never asked
 * before (paging, another client's limit, the hashtag and home pages sharing statuses) is then joined from
 * the texts of the statuses it lists instead of presenting them again. Any write empties it, so a page read
 * after a write is presented as before. Bounded in bytes (emptied when full).
 */
export class StatusTexts {
  private readonly store: SocialStore;
  private readonly urls: SocialUrls;
  private readonly filters: FilterService;
  private stamp: string | null = null;
  private base = '';
  private generation = -1;
  private bytes = 0;
  private readonly viewers = new Map<string, ViewerTexts>();

  constructor(store: SocialStore, urls: SocialUrls, filters: FilterService) {
    this.store = store;
    this.urls = urls;
    this.filters = filters;
  }

  /** The texts kept for `viewerId` in `context`, or null when none may be (inside a write). */
  of(viewerId: string | null, context: string): ViewerTexts | null {
    const stamp = this.store.cacheStamp();
    if (stamp === null) return null;
    if (stamp !== this.stamp || this.urls.base !== this.base || this.filters.generation !== this.generation) {
      this.viewers.clear();
      this.bytes = 0;
      this.stamp = stamp;
      this.base = this.urls.base;
      this.generation = this.filters.generation;
    }
    const key = `${viewerId ?? ''} ${context}`;
    let texts = this.viewers.get(key);
    if (!texts) {
      if (this.viewers.size >= STATUS_TEXT_VIEWERS) {
        this.viewers.clear();
        this.bytes = 0;
      }
      this.viewers.set(key, (texts = new Map()));
    }
    return texts;
  }

  /** The kept text of `row`, if it still holds at `now`. */
  get(texts: ViewerTexts, row: StatusRow, now: number): Kept | undefined {
    const kept = texts.get(row.id);
    return kept && now < kept.until ? kept : undefined;
  }

  /**
   * Keeps each status's text as its slice of the page it was written in (`start`, `end`: its offsets there): a
   * slice holds the page, so the page's whole size is counted.
   */
  keepSlices(
    texts: ViewerTexts,
    page: string,
    made: readonly { status: StatusRow; start: number; end: number }[],
    until: number,
  ): void {
    const size = 2 * page.length + 200 * made.length;
    if (this.bytes + size > STATUS_TEXT_BYTES) {
      for (const other of this.viewers.values()) other.clear();
      this.bytes = 0;
    }
    this.bytes += size;
    for (const { status, start, end } of made) texts.set(status.id, { text: page.slice(start, end), until });
  }
}
