import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';

const HOUR = 60 * 60 * 1000;

/**
 * Mastodon's limits on actions, per account (its RateLimiter families and rack-attack throttles): posting
 * (statuses, boosts and edits together), deleting and unboosting, media uploads, follows, reports.
 */
export const ACTION_LIMITS = {
  statuses: { max: 300, windowMs: 3 * HOUR },
  deletes: { max: 30, windowMs: HOUR / 2 },
  media: { max: 30, windowMs: HOUR / 2 },
  follows: { max: 400, windowMs: 24 * HOUR },
  reports: { max: 400, windowMs: 24 * HOUR },
} as const;
export type ActionFamily = keyof typeof ACTION_LIMITS;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The family of limited actions this route counts in (per authenticated account). */
    actionLimit?: ActionFamily;
  }
}

/** Windows kept before expired ones are swept (one per account and family that acted lately). */
const SWEEP_AT = 10_000;

/**
 * Fixed windows per account and family, opened by the first action (as Mastodon's counters): an action past
 * the limit is refused with 429 until the window ends. Keyed by the verified account, never by a token string.
 */
export class ActionLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private readonly now: () => number;
  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /** Counts one action; returns what the rate-limit headers say, and whether it is over the limit. */
  hit(
    family: ActionFamily,
    accountId: string,
  ): { limited: boolean; limit: number; remaining: number; resetAt: number } {
    const { max, windowMs } = ACTION_LIMITS[family];
    const now = this.now();
    if (this.windows.size >= SWEEP_AT)
      for (const [key, w] of this.windows) if (w.resetAt <= now) this.windows.delete(key);
    const key = `${family}:${accountId}`;
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      window = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, window);
    }
    window.count++;
    return {
      limited: window.count > max,
      limit: max,
      remaining: Math.max(0, max - window.count),
      resetAt: window.resetAt,
    };
  }

  /** For a preHandler: counts the route's action for the signed-in account, sets the headers, throws past the limit. */
  hook(enabled: boolean) {
    return (req: FastifyRequest, reply: FastifyReply): void => {
      const family = req.routeOptions.config?.actionLimit;
      const accountId = req.principal?.account?.id;
      if (!enabled || !family || !accountId) return;
      const r = this.hit(family, accountId);
      const headers = {
        'X-RateLimit-Limit': String(r.limit),
        'X-RateLimit-Remaining': String(r.remaining),
        'X-RateLimit-Reset': new Date(r.resetAt).toISOString(),
      };
      if (r.limited) throw new ApiError(429, 'Too many requests', {}, headers);
      reply.headers(headers);
    };
  }
}
