import type { FastifyInstance } from 'fastify';
import { ExpectedVersion, type StreamSummary } from '../store/index.ts';
import { requireOwner, type UiSessions } from '../../http/index.ts';
import { callerOf } from './ui-principal.ts';
import { errorForResult, sendError, UiApiError } from './ui-errors.ts';
import { type EventLogUiDeps } from './eventlog-context.ts';

const MAX_LIST = 500;
const MAX_STREAM_NAME = 2048;

/** Only the summary's own fields go to the page, whatever else the store's object carries. */
function summary(s: StreamSummary): StreamSummary {
  return {
    streamId: s.streamId,
    lastEventNumber: s.lastEventNumber,
    eventCount: s.eventCount,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    deleted: s.deleted,
  };
}

/** The one summary for an exact name: among names with that prefix, ordered by name, the name itself sorts first. */
export function findStream(deps: EventLogUiDeps, streamId: string): StreamSummary | undefined {
  const [first] = deps.browser.listStreams({ prefix: streamId, orderBy: 'name', limit: 1, includeSystem: true });
  return first && first.streamId === streamId ? summary(first) : undefined;
}

/** Streams: search (exact, prefix, wildcard), recently created/changed, categories, delete. */
export function streamRoutes(app: FastifyInstance, sessions: UiSessions, deps: EventLogUiDeps): void {
  const auth = { onRequest: requireOwner(sessions) };

  app.get<{
    Querystring: {
      q?: string;
      mode?: 'exact' | 'prefix' | 'wildcard';
      order?: 'created' | 'updated' | 'name';
      limit?: number;
      system?: boolean;
    };
  }>(
    '/eventlog/streams',
    {
      ...auth,
      schema: {
        querystring: {
          type: 'object',
          properties: {
            q: { type: 'string', maxLength: MAX_STREAM_NAME },
            mode: { type: 'string', enum: ['exact', 'prefix', 'wildcard'], default: 'prefix' },
            order: { type: 'string', enum: ['created', 'updated', 'name'], default: 'updated' },
            limit: { type: 'integer', minimum: 1, maximum: MAX_LIST, default: 50 },
            system: { type: 'boolean', default: false },
          },
        },
      },
    },
    async (req) => {
      const { q = '', mode = 'prefix', order = 'updated', limit = 50, system = false } = req.query;
      if (mode === 'exact') {
        const found = q ? findStream(deps, q) : undefined;
        return { streams: found ? [found] : [] };
      }
      // A search that names a system stream shows system streams even with the toggle off.
      const includeSystem = system || q.startsWith('$');
      const streams = deps.browser.listStreams(
        mode === 'wildcard' && q
          ? { pattern: q, orderBy: order, limit, includeSystem }
          : { prefix: q || undefined, orderBy: order, limit, includeSystem },
      );
      return { streams: streams.map(summary) };
    },
  );

  app.get<{ Querystring: { limit?: number; system?: boolean } }>(
    '/eventlog/recent-streams',
    {
      ...auth,
      schema: {
        querystring: {
          type: 'object',
          properties: {
            limit: { type: 'integer', minimum: 1, maximum: 100, default: 15 },
            system: { type: 'boolean', default: false },
          },
        },
      },
    },
    async (req) => {
      const { limit = 15, system = false } = req.query;
      const created = deps.browser.listStreams({ orderBy: 'created', limit, includeSystem: system });
      const changed = deps.browser.listStreams({ orderBy: 'updated', limit, includeSystem: system });
      return { created: created.map(summary), changed: changed.map(summary) };
    },
  );

  app.get<{ Querystring: { limit?: number } }>(
    '/eventlog/categories',
    {
      ...auth,
      schema: {
        querystring: {
          type: 'object',
          properties: { limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
        },
      },
    },
    async (req) => ({ categories: deps.browser.streamCategories(req.query.limit ?? 100) }),
  );

  app.get<{ Params: { stream: string } }>('/eventlog/streams/:stream', auth, async (req, reply) => {
    const streamId = req.params.stream;
    const caller = callerOf(req, deps);
    if (!deps.store.checkReadAccess(streamId, caller))
      return sendError(reply, errorForResult('AccessDenied', streamId));
    const found = findStream(deps, streamId);
    return {
      stream: found ?? {
        streamId,
        lastEventNumber: deps.store.lastEventNumber(streamId),
        eventCount: 0,
        createdAt: 0,
        updatedAt: 0,
        deleted: 'no',
      },
      exists: Boolean(found),
    };
  });

  app.delete<{ Params: { stream: string }; Querystring: { hard?: boolean; expectedVersion?: number } }>(
    '/eventlog/streams/:stream',
    {
      ...auth,
      schema: {
        querystring: {
          type: 'object',
          properties: {
            hard: { type: 'boolean', default: false },
            expectedVersion: { type: 'integer', minimum: ExpectedVersion.StreamExists },
          },
        },
      },
    },
    async (req, reply) => {
      const streamId = req.params.stream;
      try {
        if (streamId === '$all') throw new UiApiError(400, '$all cannot be deleted');
        const result = await deps.store.deleteStream(
          streamId,
          req.query.expectedVersion ?? ExpectedVersion.Any,
          req.query.hard ?? false,
          callerOf(req, deps),
        );
        const error = errorForResult(result.result, streamId, result.message);
        if (error) throw error;
        return { deleted: true, hard: req.query.hard ?? false };
      } catch (err) {
        return sendError(reply, err);
      }
    },
  );
}
