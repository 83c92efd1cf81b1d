import { LRUCache } from 'lru-cache';
import type { SocialContext } from '../../context.ts';

/** A timeline answer as sent: the body's bytes (UTF-8 JSON) and its Link header. */
export interface TimelineAnswer {
  body: Buffer;
  link: string | null;
}

/** What `make` returns: the page's text and Link header. */
export interface MadeAnswer {
  text: string;
  link: string | null;
}

interface Kept extends TimelineAnswer {
  /** The store's write stamp the answer was read under. */
  stamp: string;
  /** The server's public address its URLs were written with. */
  base: string;
  /** The first moment the answer changes with time alone (a mute or filter ending, a poll closing). */
  until: number;
}

/** The most the kept answers may weigh (bytes of their bodies and keys): a home page is about 40 KB. */
export const TIMELINE_ANSWER_BYTES = 16 * 1024 * 1024;

/**
 * Whole timeline answers kept per viewer and request address while nothing has been written to the database
 * (the store's write stamp: this connection's changes, another connection's commits, a lost write group) and
 * nothing in them has changed with time (`until`): a client reading the same page again, or two of the owner's
 * clients reading it, get the bytes the first read made without listing or presenting it again. Anything else
 * a page depends on is in the database or in its key (the viewer, the address with its query, the server's
 * public address). Kept as bytes: the socket writes them without transcoding a string each time. Bounded in
 * bytes and entries.
 */
export class TimelineAnswers {
  private readonly ctx: SocialContext;
  private readonly kept = new LRUCache<string, Kept>({
    max: 2_000,
    maxSize: TIMELINE_ANSWER_BYTES,
    sizeCalculation: (a, key) => a.body.length + 2 * (key.length + a.stamp.length + (a.link?.length ?? 0)) + 200,
  });

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
    return store.read(() => {
      const stamp = keep ? store.cacheStamp() : null;
      const key = `${viewerId ?? ''} ${url}`;
      const now = store.now();
      if (stamp !== null) {
        const hit = this.kept.get(key);
        if (hit && hit.stamp === stamp && hit.base === urls.base && now < hit.until) return hit;
      }
      const horizon = { until: Number.POSITIVE_INFINITY };
      const made = make(horizon);
      const answer = { body: Buffer.from(made.text), link: made.link };
      if (stamp === null) return answer;
      if (viewerId !== null) {
        // A mute running out shows its account's statuses again; a filter running out stops matching.
        for (const t of [store.timelines.nextMuteExpiry(viewerId), filters.nextExpiry(viewerId)])
          if (t !== null) horizon.until = Math.min(horizon.until, t);
      }
      if (now < horizon.until) this.kept.set(key, { ...answer, stamp, base: urls.base, until: horizon.until });
      return answer;
    });
  }
}
