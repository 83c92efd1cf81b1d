import type { FastifyInstance } from 'fastify';
import { requireOwner, type UiSessions } from '../../http/index.ts';
import {
  MAX_QUERY_BYTES,
  ProjectionCommandError,
  ProjectionConfigError,
  ProjectionConflictError,
  ProjectionNotFoundError,
  projectionStatistics,
  type ProjectionConfig,
  type ProjectionEntry,
  type ProjectionManager,
} from '../projections/index.ts';
import { UiApiError } from './ui-errors.ts';
import { type EventLogUiDeps } from './eventlog-context.ts';

/** A projection in the Projections list: EventStoreDB's statistics, as its admin UI shows them. */
export interface UiProjectionSummary {
  name: string;
  mode: string;
  /** `Running`, `Stopped (Enabled)`, `Faulted`… as the HTTP API reports it. */
  status: string;
  stateReason: string;
  enabled: boolean;
  /** A standard (`$…`) projection: cannot be deleted nor its query changed beyond its configuration. */
  system: boolean;
  position: string;
  lastCheckpoint: string;
  /** Percent done, -2 when unknown. */
  progress: number;
  eventsProcessedAfterRestart: number;
  partitionsCached: number;
}

export interface UiProjectionDetail extends UiProjectionSummary {
  query: string;
  handlerType: string;
  emitEnabled: boolean;
  trackEmittedStreams: boolean;
  checkpointsEnabled: boolean;
  epoch: number;
  version: number;
  /** Partitions holding a state (JavaScript projections; '' is the root). */
  partitions: string[];
  /** The stream of its results (JavaScript projections). */
  resultStream: string | null;
}

/**
 * A projection's configuration as EventStoreDB's Config dialog edits it: emit, tracking of emitted streams,
 * the checkpoint and write thresholds, the handler timeout (ms). Saved only while it is stopped or faulted.
 */
export type UiProjectionConfig = ProjectionConfig;

/** A partition's state and result as JSON text; null when there is none. */
export interface UiProjectionState {
  partition: string;
  state: string | null;
  result: string | null;
}

function summary(p: ProjectionEntry): UiProjectionSummary {
  const s = projectionStatistics(p, '');
  return {
    name: p.name,
    mode: p.definition.mode,
    status: s.status,
    stateReason: s.stateReason,
    enabled: p.definition.enabled,
    system: p.definition.handlerType !== 'JS',
    position: s.position,
    lastCheckpoint: s.lastCheckpoint,
    progress: s.progress,
    eventsProcessedAfterRestart: s.eventsProcessedAfterRestart,
    partitionsCached: s.partitionsCached,
  };
}

const name = { type: 'string', minLength: 1, maxLength: 200 };
const query = { type: 'string', maxLength: MAX_QUERY_BYTES };
const createSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'mode', 'query'],
  properties: {
    name,
    mode: { enum: ['Continuous', 'OneTime'] },
    query,
    enabled: { type: 'boolean' },
    emit: { type: 'boolean' },
    checkpoints: { type: 'boolean' },
    trackEmittedStreams: { type: 'boolean' },
  },
};
const updateSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['query'],
  properties: { query, emit: { type: 'boolean' } },
};
const deleteSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    deleteCheckpointStream: { type: 'boolean' },
    deleteStateStream: { type: 'boolean' },
    deleteEmittedStreams: { type: 'boolean' },
  },
};
const count = { type: 'integer', minimum: 0, maximum: 2_147_483_647 };
const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    emitEnabled: { type: 'boolean' },
    trackEmittedStreams: { type: 'boolean' },
    checkpointAfterMs: count,
    checkpointHandledThreshold: count,
    checkpointUnhandledBytesThreshold: count,
    pendingEventsThreshold: count,
    maxWriteBatchLength: count,
    maxAllowedWritesInFlight: count,
    projectionExecutionTimeout: { type: 'integer', minimum: 1, maximum: 2_147_483_647 },
  },
};
const COMMANDS = ['enable', 'disable', 'abort', 'reset'] as const;

/** The projections subsystem's errors as the UI API's: 404, 409, and 409 for a command refused in this state. */
async function guarded<T>(fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ProjectionNotFoundError) throw new UiApiError(404, err.message);
    if (err instanceof ProjectionConflictError) throw new UiApiError(409, err.message);
    if (err instanceof ProjectionCommandError) throw new UiApiError(409, err.message);
    if (err instanceof ProjectionConfigError) throw new UiApiError(400, err.message);
    throw err;
  }
}

/**
 * The Projections page: list, one projection (query, statistics, state and result per partition), the
 * commands, create, update the query or the configuration, delete. Thin: everything goes through the projections subsystem.
 */
export function projectionRoutes(app: FastifyInstance, sessions: UiSessions, deps: EventLogUiDeps): void {
  const auth = { onRequest: requireOwner(sessions), bodyLimit: MAX_QUERY_BYTES + 64 * 1024 };
  const manager = (): ProjectionManager => {
    const m = deps.projections?.() ?? null;
    if (!m) throw new UiApiError(503, 'Projections are off (--run-projections none)');
    return m;
  };

  app.get('/eventlog/projections', auth, async () => ({
    projections: manager()
      .list()
      .filter((p) => p.definition.mode !== 'Transient')
      .map(summary)
      .sort((a, b) => a.name.localeCompare(b.name)),
    mode: deps.projections?.()?.mode ?? 'none',
  }));

  app.get<{ Params: { name: string } }>('/eventlog/projections/:name', auth, async (req) =>
    guarded((): UiProjectionDetail => {
      const m = manager();
      const p = m.get(req.params.name);
      const js = p.definition.handlerType === 'JS';
      return {
        ...summary(p),
        query: p.definition.query,
        handlerType: p.definition.handlerType,
        emitEnabled: p.definition.emitEnabled === true,
        trackEmittedStreams: p.definition.trackEmittedStreams === true,
        checkpointsEnabled: p.definition.checkpointsDisabled !== true,
        epoch: p.definition.epoch,
        version: p.definition.version,
        partitions: js ? m.partitions(p.name) : [],
        resultStream: js ? `$projections-${p.name}-result` : null,
      };
    }),
  );

  app.get<{ Params: { name: string }; Querystring: { partition?: string } }>(
    '/eventlog/projections/:name/state',
    auth,
    async (req) =>
      guarded((): UiProjectionState => {
        const partition = req.query.partition ?? '';
        const m = manager();
        const state = m.state(req.params.name, partition);
        const result = m.result(req.params.name, partition);
        return { partition, state: state === '' ? null : state, result: result === '' ? null : result };
      }),
  );

  app.post<{
    Body: { name: string; mode: 'Continuous' | 'OneTime'; query: string } & Record<string, boolean | undefined>;
  }>('/eventlog/projections', { ...auth, schema: { body: createSchema } }, async (req, reply) => {
    const b = req.body;
    const created = await guarded(() =>
      manager().create({
        name: b.name,
        mode: b.mode,
        query: b.query,
        enabled: b.enabled,
        emit: b.emit,
        checkpoints: b.checkpoints,
        trackEmittedStreams: b.trackEmittedStreams,
      }),
    );
    return reply.code(201).send(summary(created));
  });

  app.put<{ Params: { name: string }; Body: { query: string; emit?: boolean } }>(
    '/eventlog/projections/:name/query',
    { ...auth, schema: { body: updateSchema } },
    async (req) => {
      await guarded(() => manager().updateQuery(req.params.name, req.body.query, req.body.emit));
      return { name: req.params.name };
    },
  );

  app.get<{ Params: { name: string } }>('/eventlog/projections/:name/config', auth, async (req) =>
    guarded((): UiProjectionConfig => manager().config(req.params.name)),
  );

  app.put<{ Params: { name: string }; Body: Partial<UiProjectionConfig> }>(
    '/eventlog/projections/:name/config',
    { ...auth, schema: { body: configSchema } },
    async (req) =>
      guarded(async (): Promise<UiProjectionConfig> => {
        await manager().updateConfig(req.params.name, req.body);
        return manager().config(req.params.name);
      }),
  );

  app.post<{ Params: { name: string; command: string } }>(
    '/eventlog/projections/:name/command/:command',
    auth,
    async (req) => {
      const command = COMMANDS.find((c) => c === req.params.command);
      if (!command) throw new UiApiError(404, `Unknown command "${req.params.command}"`);
      await guarded(() => manager()[command](req.params.name));
      return { name: req.params.name };
    },
  );

  app.delete<{ Params: { name: string }; Body: Record<string, boolean | undefined> | undefined }>(
    '/eventlog/projections/:name',
    { ...auth, schema: { body: deleteSchema } },
    async (req) => {
      await guarded(() => manager().delete(req.params.name, req.body ?? {}));
      return { name: req.params.name };
    },
  );
}
