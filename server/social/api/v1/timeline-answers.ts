import { LRUCache } from 'lru-cache';
import type { SocialContext } from '../../context.ts';

/** A timeline answer as sent: the body (JSON; a kept one as its UTF-8 bytes) and its Link header. */
export interface TimelineAnswer {
  body: string | Buffer;
  link: string | null;
}

/** What `make` returns: the page's text and Link header. */
export interface MadeAnswer {
  text: string;
  link: string | null;
}

interface Kept extends TimelineAnswer {
  body: Buffer;
  /** The store's write stamp the answer was read under. */
  stamp: string;
  /** The server's public address its URLs were written with. */
  base: string;
  /** The first moment the answer changes with time alone (a mute or filter ending, a poll closing). */
  until: number;
  /** The filters' compiled generation it was rendered with (FilterService.generation). */
  filters: number;
}

/** The most the kept answers may weigh (bytes of their bodies and keys): a home page is about 40 KB. */
export const TIMELINE_ANSWER_BYTES = 16 * 1024 * 1024;

/**
 * Whole timeline answers kept per viewer and request address while nothing has been written to the database
 * (the store's write stamp: this connection's changes, another connection's commits, a lost write group),
 * nothing in them has changed with time (`until`) and the filters compiled then are still the ones in use (a
 * filter's rows can be read before its change event drops what was compiled): a client reading the same page
 * again, or two of the owner's clients reading it, get the bytes an earlier read made without listing or
 * presenting it again. Anything else a page depends on is in the database or in its key (the viewer, the
 * address with its query, the server's public address). Kept as bytes: the socket writes them without
 * transcoding a string each time. Bounded in bytes and entries.
 */
export class TimelineAnswers {
  private readonly ctx: SocialContext;
  private readonly kept = new LRUCache<string, Kept>({
    max: 2_000,
    maxSize: TIMELINE_ANSWER_BYTES,
    sizeCalculation: (a, key) => a.body.length + 2 * (key.length + a.stamp.length + (a.link?.length ?? 0)) + 200,
  });
  /**
   * Addresses asked once under a stamp: an answer is kept when asked a second time. Keeping every first answer
   * of a stream of addresses never asked again (paging down, a write between reads) cost more than it saved:
   * 37 KB a request promoted to the old generation and collected there.
   */
  private readonly askedOnce = new LRUCache<string, string>({ max: 2_000 });

  constructor(ctx: SocialContext) {
    this.ctx = ctx;
  }

  /**
   * The answer for `viewerId` at `url` (path and query): the kept one when it still holds, else `make`'s, read
   * in the same read transaction as the stamp it is kept under. `make` lowers `horizon.until` to when its
   * answer changes with time alone; `keep` false (a body that carries parameters, a token in the address, a
   * listing that moves with time) neither uses nor keeps one.
   */
  answer(
    viewerId: string | null,
    url: string,
    keep: boolean,
    make: (horizon: { until: number }) => MadeAnswer,
  ): TimelineAnswer {
    const { store, urls, filters } = this.ctx;
    const key = `${viewerId ?? ''} ${url}`;
    if (keep) {
      // Asked outside a read transaction (two statements fewer): the stamp is the kept one only if nothing has
      // been written since the kept answer's snapshot.
      const hit = this.kept.get(key);
      if (
        hit &&
        hit.base === urls.base &&
        hit.filters === filters.generation &&
        store.now() < hit.until &&
        hit.stamp === store.cacheStamp()
      )
        return hit;
    }
    return store.read(() => {
      const stamp = keep ? store.cacheStamp() : null;
      const now = store.now();
      const generation = filters.generation;
      const horizon = { until: Number.POSITIVE_INFINITY };
      const made = make(horizon);
      if (stamp === null) return { body: made.text, link: made.link };
      if (this.askedOnce.get(key) !== stamp) {
        this.askedOnce.set(key, stamp);
        return { body: made.text, link: made.link };
      }
      if (viewerId !== null) {
        // A mute running out shows its account's statuses again; a filter running out stops matching.
        for (const t of [store.timelines.nextMuteExpiry(viewerId), filters.nextExpiry(viewerId)])
          if (t !== null) horizon.until = Math.min(horizon.until, t);
      }
      const answer = { body: Buffer.from(made.text), link: made.link };
      if (now < horizon.until)
        this.kept.set(key, { ...answer, stamp, base: urls.base, until: horizon.until, filters: generation });
      return answer;
    });
  }
}
