/**
 * The gRPC `event_store.client.projections.Projections` service (what `@kurrent/kurrentdb-client`'s
 * createProjection, getProjectionState, listProjections… call), over the same ProjectionManager as the
 * HTTP API. Errors as KurrentDB answers them: NOT_FOUND for an unknown name, ALREADY_EXISTS for a taken
 * one, FAILED_PRECONDITION for a refused command.
 */
import * as grpc from '@grpc/grpc-js';
import { serverStream, unary, type CallContext, Errors, grpcError, type GrpcServiceModule } from '../grpc/index.ts';
import type { Caller } from '../store/index.ts';
import { tagDisplay } from './checkpoint-tag.ts';
import { statusText } from './http/statistics.ts';
import {
  ProjectionCommandError,
  ProjectionConflictError,
  ProjectionNotFoundError,
  SubsystemRestartError,
  type ProjectionEntry,
} from './commands.ts';
import type { ProjectionManager } from './manager.ts';

type Value =
  | { nullValue: 'NULL_VALUE' }
  | { numberValue: number }
  | { stringValue: string }
  | { boolValue: boolean }
  | { structValue: { fields: Record<string, Value> } }
  | { listValue: { values: Value[] } };

/** JSON → google.protobuf.Value (numbers become doubles, as in KurrentDB); protobufjs' own struct.proto names its fields in camelCase. */
export function toValue(v: unknown): Value {
  if (v === null || v === undefined) return { nullValue: 'NULL_VALUE' };
  if (typeof v === 'number') return { numberValue: v };
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (Array.isArray(v)) return { listValue: { values: v.map(toValue) } };
  return {
    structValue: { fields: Object.fromEntries(Object.entries(v as object).map(([k, x]) => [k, toValue(x)])) },
  };
}

/** State and result text → Value; none is an empty Struct, as KurrentDB answers. */
function jsonValue(text: string): Value {
  return text === '' ? { structValue: { fields: {} } } : toValue(JSON.parse(text));
}

function requireSignedIn(caller: Caller): void {
  if (caller === null) throw Errors.accessDenied();
}

/** Delete and RestartSubsystem: operators and admins only. */
function requireOps(caller: Caller): void {
  if (caller === null || !(caller.groups.includes('$admins') || caller.groups.includes('$ops')))
    throw Errors.accessDenied();
}

function nameOf(options: { name?: string } | undefined): string {
  if (!options?.name) throw Errors.invalidArgument('name is required');
  return options.name;
}

async function command<T>(work: () => Promise<T> | T): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ProjectionNotFoundError) throw grpcError(grpc.status.NOT_FOUND, err.message);
    if (err instanceof ProjectionConflictError) throw grpcError(grpc.status.ALREADY_EXISTS, err.message);
    if (err instanceof ProjectionCommandError) throw grpcError(grpc.status.FAILED_PRECONDITION, err.message);
    if (err instanceof SubsystemRestartError) throw grpcError(grpc.status.FAILED_PRECONDITION, err.message);
    throw err;
  }
}

function details(p: ProjectionEntry) {
  return {
    coreprocessingtime: '0',
    version: String(p.definition.version),
    epoch: String(p.definition.epoch),
    effectivename: p.name,
    writesinprogress: 0,
    readsinprogress: 0,
    partitionscached: p.partitionsCached,
    status: statusText(p),
    statereason: p.progress.status === 'Faulted' ? p.progress.stateReason : '',
    name: p.name,
    mode: p.definition.mode,
    position: tagDisplay(p.progress.position),
    progress: p.progress.status === 'Completed' || p.progress.position ? 100 : -2,
    lastcheckpoint: tagDisplay(p.progress.lastCheckpoint),
    eventsprocessedafterrestart: String(p.progress.eventsProcessedAfterRestart),
    checkpointstatus: '',
    bufferedevents: '0',
    writependingeventsbeforecheckpoint: 0,
    writependingeventsaftercheckpoint: 0,
  };
}

interface CreateOptions {
  mode?: 'one_time' | 'transient' | 'continuous';
  transient?: { name?: string };
  continuous?: { name?: string; emit_enabled?: boolean; track_emitted_streams?: boolean };
  query?: string;
}

export function projectionsGrpcService(ctx: CallContext, manager: ProjectionManager): GrpcServiceModule {
  return {
    service: 'event_store.client.projections.Projections',
    methods: {
      Create: ['track_emitted_streams'],
      Update: [],
      Delete: [],
      Statistics: [],
      Disable: [],
      Enable: [],
      Reset: [],
      State: [],
      Result: [],
      RestartSubsystem: [],
    },
    handlers: {
      Create: unary<{ options?: CreateOptions }, object>(ctx, async (request, caller) => {
        requireSignedIn(caller);
        const o = request.options ?? {};
        const query = o.query ?? '';
        if (o.mode === 'continuous') {
          const c = o.continuous ?? {};
          if (c.track_emitted_streams && !c.emit_enabled)
            throw Errors.invalidArgument('trackEmittedStreams requires emit to be enabled');
          await command(() =>
            manager.create({
              name: c.name,
              query,
              mode: 'Continuous',
              emit: c.emit_enabled === true,
              trackEmittedStreams: c.track_emitted_streams === true,
            }),
          );
        } else if (o.mode === 'transient') {
          await command(() => manager.create({ name: o.transient?.name, query, mode: 'Transient' }));
        } else {
          await command(() => manager.create({ query, mode: 'OneTime' }));
        }
        return {};
      }),
      Update: unary<
        { options?: { name?: string; query?: string; emit_option?: string; emit_enabled?: boolean } },
        object
      >(ctx, async (request, caller) => {
        requireSignedIn(caller);
        const name = nameOf(request.options);
        const emit =
          request.options?.emit_option === 'emit_enabled' ? request.options.emit_enabled === true : undefined;
        await command(() => manager.updateQuery(name, request.options?.query ?? '', emit));
        return {};
      }),
      Delete: unary<
        {
          options?: {
            name?: string;
            delete_emitted_streams?: boolean;
            delete_state_stream?: boolean;
            delete_checkpoint_stream?: boolean;
          };
        },
        object
      >(ctx, async (request, caller) => {
        requireOps(caller);
        const o = request.options;
        const name = nameOf(o);
        await command(() =>
          manager.delete(name, {
            deleteEmittedStreams: o?.delete_emitted_streams === true,
            deleteStateStream: o?.delete_state_stream === true,
            deleteCheckpointStream: o?.delete_checkpoint_stream === true,
          }),
        );
        return {};
      }),
      Statistics: serverStream<{ options?: { mode?: string; name?: string } }, unknown>(
        ctx,
        async (request, caller, out) => {
          requireSignedIn(caller);
          const o = request.options ?? {};
          const entries = await command(() => {
            switch (o.mode) {
              case 'name':
                return [manager.get(o.name ?? '')];
              case 'transient':
                return manager.list('Transient');
              case 'continuous':
                return manager.list('Continuous');
              case 'one_time':
                return manager.list('OneTime');
              default:
                return manager.list();
            }
          });
          for (const p of entries) if (!(await out.send({ details: details(p) }))) return;
          out.end();
        },
      ),
      Disable: unary<{ options?: { name?: string; write_checkpoint?: boolean } }, object>(
        ctx,
        async (request, caller) => {
          requireSignedIn(caller);
          const name = nameOf(request.options);
          // write_checkpoint false is Abort, as KurrentDB maps it.
          await command(() => (request.options?.write_checkpoint ? manager.disable(name) : manager.abort(name)));
          return {};
        },
      ),
      Enable: unary<{ options?: { name?: string } }, object>(ctx, async (request, caller) => {
        requireSignedIn(caller);
        const name = nameOf(request.options);
        await command(() => manager.enable(name));
        return {};
      }),
      Reset: unary<{ options?: { name?: string } }, object>(ctx, async (request, caller) => {
        requireSignedIn(caller);
        const name = nameOf(request.options);
        await command(() => manager.reset(name));
        return {};
      }),
      State: unary<{ options?: { name?: string; partition?: string } }, object>(ctx, async (request, caller) => {
        requireSignedIn(caller);
        const name = nameOf(request.options);
        return { state: jsonValue(await command(() => manager.state(name, request.options?.partition ?? ''))) };
      }),
      Result: unary<{ options?: { name?: string; partition?: string } }, object>(ctx, async (request, caller) => {
        requireSignedIn(caller);
        const name = nameOf(request.options);
        return { result: jsonValue(await command(() => manager.result(name, request.options?.partition ?? ''))) };
      }),
      RestartSubsystem: unary<object, object>(ctx, async (_request, caller) => {
        requireOps(caller); // Operations.Projections.Restart
        await command(() => manager.restartSubsystem());
        return {};
      }),
    },
  };
}
