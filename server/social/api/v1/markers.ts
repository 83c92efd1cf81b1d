// https://docs.joinmastodon.org/methods/markers/
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { SocialContext } from '../../context.ts';
import { isoTime } from '../../entities/index.ts';
import { ValidationFailure } from '../../errors.ts';
import { auth, currentUser, parseParams, requestParams, zId, zList } from '../../http/index.ts';
import type { MarkerRow, MarkerTimeline } from '../../store/index.ts';

const TIMELINES: MarkerTimeline[] = ['home', 'notifications'];

const getSchema = z.object({ timeline: zList(z.string(), 10).optional() });
const position = z.object({ last_read_id: zId }).optional();
const postSchema = z.object({ home: position, notifications: position });

function present(rows: readonly MarkerRow[]): Record<string, unknown> {
  return Object.fromEntries(
    rows.map((m) => [m.timeline, { last_read_id: m.lastReadId, version: m.version, updated_at: isoTime(m.updatedAt) }]),
  );
}

export function markerRoutes(app: FastifyInstance, ctx: SocialContext): void {
  app.get('/api/v1/markers', { config: { auth: auth.user('read:statuses') } }, async (req) => {
    const { account } = currentUser(req);
    const { timeline } = parseParams(getSchema, requestParams(req));
    const wanted = TIMELINES.filter((t) => timeline?.includes(t));
    return present(ctx.store.markers.get(account.id, wanted));
  });

  app.post('/api/v1/markers', { config: { auth: auth.user('write:statuses') } }, async (req) => {
    const { account } = currentUser(req);
    const p = parseParams(postSchema, requestParams(req));
    const moves = TIMELINES.flatMap((t) => (p[t] ? [{ timeline: t, lastReadId: p[t].last_read_id }] : []));
    if (moves.length === 0) throw ValidationFailure.single('home', 'ERR_BLANK', 'or notifications is required');
    return present(ctx.markers.move(account.id, moves));
  });
}
