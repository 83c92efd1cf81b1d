import type { FastifyInstance } from 'fastify';
import { CONSUMER_STRATEGIES, parkedStreamOf } from '../subscriptions/index.ts';
import { requireOwner, type UiSessions } from '../../http/index.ts';
import { readStreamPageRequest, STREAM_PAGE_QUERY, type StreamPageQuery } from './events.ts';
import { callerOf } from './ui-principal.ts';
import { sendError, UiApiError } from './ui-errors.ts';
import {
  type EventLogUiDeps,
  type UiGroupOperationResult,
  type UiGroupSettings,
  type UiSubscriptionsSource,
} from './eventlog-context.ts';

const count = (min = 0) => ({ type: 'integer', minimum: min, maximum: 2147483647 });
const settingsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    resolveLinkTos: { type: 'boolean' },
    startFrom: { type: 'integer', minimum: -1 },
    extraStatistics: { type: 'boolean' },
    messageTimeoutMs: count(),
    maxRetryCount: count(),
    liveBufferSize: count(1),
    readBatchSize: count(1),
    historyBufferSize: count(1),
    checkpointAfterMs: count(),
    minCheckpointCount: count(),
    maxCheckpointCount: count(),
    maxSubscriberCount: count(),
    consumerStrategy: { type: 'string', enum: CONSUMER_STRATEGIES },
  },
} as const;

function checkSettings(s: Partial<UiGroupSettings>): void {
  if (s.readBatchSize !== undefined && s.historyBufferSize !== undefined && s.readBatchSize >= s.historyBufferSize) {
    throw new UiApiError(
      400,
      `Read batch size (${s.readBatchSize}) must be smaller than the history buffer size (${s.historyBufferSize})`,
    );
  }
  if (
    s.minCheckpointCount !== undefined &&
    s.maxCheckpointCount !== undefined &&
    s.minCheckpointCount > s.maxCheckpointCount
  ) {
    throw new UiApiError(
      400,
      `Minimum checkpoint count (${s.minCheckpointCount}) is larger than the maximum (${s.maxCheckpointCount})`,
    );
  }
}

function statusFor(r: UiGroupOperationResult): number {
  switch (r.code) {
    case 'DoesNotExist':
      return 404;
    case 'AlreadyExists':
      return 409;
    case 'AccessDenied':
      return 403;
    default:
      return 400;
  }
}

function engine(deps: EventLogUiDeps): UiSubscriptionsSource {
  const subs = deps.subscriptions();
  if (!subs) throw new UiApiError(503, 'Persistent subscriptions are not running yet');
  return subs;
}

function check(r: UiGroupOperationResult, what: string): void {
  if (!r.ok) throw new UiApiError(statusFor(r), r.message ?? `${what} failed (${r.code ?? 'unknown reason'})`);
}

type GroupParams = { stream: string; group: string };

/** Persistent subscription groups: list with statistics, detail, create/edit/delete, parked messages and replay. */
export function persistentGroupRoutes(app: FastifyInstance, sessions: UiSessions, deps: EventLogUiDeps): void {
  const auth = { onRequest: requireOwner(sessions) };
  const base = '/eventlog/persistent-groups';

  app.get(base, auth, async () => {
    const subs = deps.subscriptions();
    return { sampledAt: Date.now(), available: subs !== null, groups: subs ? subs.listGroups() : [] };
  });

  app.get<{ Params: GroupParams }>(`${base}/:stream/:group`, auth, async (req, reply) => {
    try {
      const detail = engine(deps).getGroup(req.params.stream, req.params.group);
      if (!detail)
        throw new UiApiError(404, `There is no group "${req.params.group}" on stream "${req.params.stream}"`);
      return { sampledAt: Date.now(), group: detail };
    } catch (err) {
      return sendError(reply, err);
    }
  });

  app.post<{ Params: GroupParams; Body: Partial<UiGroupSettings> }>(
    `${base}/:stream/:group`,
    { ...auth, schema: { body: settingsSchema } },
    async (req, reply) => {
      const { stream, group } = req.params;
      try {
        if (!stream.trim() || !group.trim()) throw new UiApiError(400, 'A group needs a stream and a name');
        if (stream === '$all')
          throw new UiApiError(
            400,
            'Persistent subscriptions to $all are not available over the TCP protocol; pick a stream',
          );
        checkSettings(req.body ?? {});
        check(await engine(deps).createGroup(stream, group, req.body ?? {}, callerOf(req, deps)), 'Creating the group');
        return reply.code(201).send({ group: engine(deps).getGroup(stream, group) ?? null });
      } catch (err) {
        return sendError(reply, err);
      }
    },
  );

  app.put<{ Params: GroupParams; Body: Partial<UiGroupSettings> }>(
    `${base}/:stream/:group`,
    { ...auth, schema: { body: settingsSchema } },
    async (req, reply) => {
      const { stream, group } = req.params;
      try {
        checkSettings(req.body ?? {});
        check(await engine(deps).updateGroup(stream, group, req.body ?? {}, callerOf(req, deps)), 'Updating the group');
        return { group: engine(deps).getGroup(stream, group) ?? null };
      } catch (err) {
        return sendError(reply, err);
      }
    },
  );

  app.delete<{ Params: GroupParams }>(`${base}/:stream/:group`, auth, async (req, reply) => {
    try {
      check(
        await engine(deps).deleteGroup(req.params.stream, req.params.group, callerOf(req, deps)),
        'Deleting the group',
      );
      return { deleted: true };
    } catch (err) {
      return sendError(reply, err);
    }
  });

  app.get<{ Params: GroupParams; Querystring: StreamPageQuery }>(
    `${base}/:stream/:group/parked`,
    {
      ...auth,
      schema: { querystring: STREAM_PAGE_QUERY },
    },
    async (req, reply) => {
      try {
        return readStreamPageRequest(deps, parkedStreamOf(req.params.stream, req.params.group), req.query, req);
      } catch (err) {
        return sendError(reply, err);
      }
    },
  );

  app.post<{ Params: GroupParams; Body: { stopAt?: number } }>(
    `${base}/:stream/:group/parked/replay`,
    {
      ...auth,
      schema: {
        body: { type: 'object', additionalProperties: false, properties: { stopAt: { type: 'integer', minimum: 1 } } },
      },
    },
    async (req, reply) => {
      try {
        const r = await engine(deps).replayParked(
          req.params.stream,
          req.params.group,
          req.body?.stopAt ?? null,
          callerOf(req, deps),
        );
        check(r, 'Replaying parked messages');
        return { replayed: r.replayed ?? null };
      } catch (err) {
        return sendError(reply, err);
      }
    },
  );
}
