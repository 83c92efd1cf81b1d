// https://docs.joinmastodon.org/methods/admin/measures/, /dimensions/ and /retention/: the dashboard's figures.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../../context.ts';
import { AdminMetrics, daySpan, MAX_DAILY_RETENTION_DAYS } from '../../../domain/index.ts';
import { PERMISSION } from '../../../entities/index.ts';
import { auth, currentStaff, parseParams, requestParams, zInt, zList, zString } from '../../../http/index.ts';

/** `tag_uses[id]=…`, `instance_statuses[domain]=…`: the one value each keyed measure or dimension is about. */
const keyed = z.record(z.string(), z.unknown()).optional();
const span = { start_at: zString, end_at: zString };
const measuresSchema = z.looseObject({ keys: zList(zString, 50), ...span });
const dimensionsSchema = z.looseObject({
  keys: zList(zString, 50),
  start_at: zString.optional(),
  end_at: zString.optional(),
  limit: zInt.optional(),
});
/** The first day a dimension counts from when no `start_at` is given. */
const BEGINNING = '1970-01-01';
const retentionSchema = z.object({ ...span, frequency: zString.optional() });

/** The value of each `<key>[id]` or `<key>[domain]` parameter sent. */
function keyedParams(params: Record<string, unknown>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(params)) {
    const parsed = keyed.safeParse(value);
    if (!parsed.success || !parsed.data) continue;
    const inner = parsed.data.id ?? parsed.data.domain;
    if (typeof inner === 'string' || typeof inner === 'number') out[key] = String(inner).trim().toLowerCase();
  }
  return out;
}

export function adminMetricRoutes(app: FastifyInstance, ctx: SocialContext): void {
  const metrics = new AdminMetrics(ctx.store);
  const config = { config: { auth: auth.user('admin:read') } };

  app.post('/api/v1/admin/measures', config, async (req) => {
    currentStaff(req, PERMISSION.viewDashboard);
    const raw = requestParams(req);
    const p = parseParams(measuresSchema, raw);
    return metrics.measures(p.keys, daySpan(p.start_at, p.end_at), keyedParams(raw));
  });

  app.post('/api/v1/admin/dimensions', config, async (req) => {
    currentStaff(req, PERMISSION.viewDashboard);
    const raw = requestParams(req);
    const p = parseParams(dimensionsSchema, raw);
    const limit = Math.min(Math.max(p.limit ?? 10, 1), 100);
    // Unlike measures and retention, Mastodon takes the span of dimensions as optional: a missing bound is open
    // (here: from the beginning, up to today), and an open span is not held to the days one may ask at once.
    const open = p.start_at === undefined || p.end_at === undefined;
    const span = daySpan(
      p.start_at ?? BEGINNING,
      p.end_at ?? new Date(ctx.store.now()).toISOString(),
      open ? Number.POSITIVE_INFINITY : undefined,
    );
    return metrics.dimensions(p.keys, span, limit, keyedParams(raw));
  });

  // Any frequency but month is day, as Mastodon does.
  app.post('/api/v1/admin/retention', config, async (req) => {
    currentStaff(req, PERMISSION.viewDashboard);
    const p = parseParams(retentionSchema, requestParams(req));
    const frequency = p.frequency === 'month' ? 'month' : 'day';
    const days = frequency === 'day' ? MAX_DAILY_RETENTION_DAYS : undefined;
    return metrics.retention(daySpan(p.start_at, p.end_at, days), frequency);
  });
}
