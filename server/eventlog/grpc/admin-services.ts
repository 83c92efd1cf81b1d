import os from 'node:os';
import {
  type Caller,
  type EventLogUser,
  type EventLogUsers,
  type EventStore,
  EventLogUserError,
} from '../store/index.ts';
import { serverStream, unary, type CallContext } from './call-support.ts';
import { Errors } from './errors.ts';
import type { GrpcListener, GrpcServiceModule } from './listener.ts';

/**
 * What the .NET client's management clients call: Users (on the event log's accounts), Operations and
 * Monitoring.Stats. The operations a cluster node does are answered as a single node would (MergeIndexes,
 * ResignNode and SetNodePriority change nothing on one SQLite node; RestartPersistentSubscriptions restarts
 * them); Shutdown is refused: a client does not stop the owner's Homeport.
 */

const isAdmin = (caller: Caller) => caller !== null && caller.groups.includes('$admins');
const isOperator = (caller: Caller) => isAdmin(caller) || (caller !== null && caller.groups.includes('$ops'));

function requireAdmin(caller: Caller): void {
  if (!isAdmin(caller)) throw Errors.accessDenied();
}

function loginOf(options: { login_name?: string } | undefined): string {
  if (!options?.login_name) throw Errors.invalidArgument('login_name is required');
  return options.login_name;
}

function userError(err: unknown, login: string): unknown {
  if (!(err instanceof EventLogUserError)) return err;
  if (err.code === 'NOT_FOUND') return Errors.userNotFound(login);
  if (err.code === 'EXISTS') return Errors.userConflict(login, err.message);
  return Errors.invalidArgument(err.message);
}

async function asUserCall<T>(login: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw userError(err, login);
  }
}

function userDetails(user: EventLogUser) {
  return {
    user_details: {
      login_name: user.name,
      full_name: user.fullName,
      groups: user.groups,
      last_updated: { ticks_since_epoch: (BigInt(user.createdAt) * 10_000n).toString() },
      disabled: user.disabled,
    },
  };
}

export function usersService(ctx: CallContext, users: EventLogUsers): GrpcServiceModule {
  type Opts<T> = { options?: T & { login_name?: string } };
  return {
    service: 'event_store.client.users.Users',
    handlers: {
      Create: unary<Opts<{ password?: string; full_name?: string; groups?: string[] }>, unknown>(
        ctx,
        async (request, caller) => {
          requireAdmin(caller);
          const login = loginOf(request.options);
          await asUserCall(login, () =>
            users.add({
              name: login,
              password: request.options?.password ?? '',
              fullName: request.options?.full_name,
              groups: request.options?.groups ?? [],
            }),
          );
          return {};
        },
      ),
      Delete: unary<Opts<object>, unknown>(ctx, async (request, caller) => {
        requireAdmin(caller);
        const login = loginOf(request.options);
        await asUserCall(login, () => users.remove(login));
        return {};
      }),
      Details: serverStream<Opts<object>, unknown>(ctx, async (request, caller, out) => {
        const login = request.options?.login_name ?? '';
        if (caller === null || (!isAdmin(caller) && caller.name !== login)) throw Errors.accessDenied();
        const found = login ? [users.get(login)] : users.list();
        if (login && !found[0]) throw Errors.userNotFound(login);
        for (const user of found) if (user && !(await out.send(userDetails(user)))) return;
        out.end();
      }),
      ChangePassword: unary<Opts<{ current_password?: string; new_password?: string }>, unknown>(
        ctx,
        async (request, caller) => {
          const login = loginOf(request.options);
          if (caller === null || (!isAdmin(caller) && caller.name !== login)) throw Errors.accessDenied();
          if (!users.get(login)) throw Errors.userNotFound(login);
          if (!(await users.authenticate(login, request.options?.current_password ?? '')))
            throw Errors.accessDenied('The current password is wrong.');
          await asUserCall(login, () => users.changePassword(login, request.options?.new_password ?? ''));
          return {};
        },
      ),
      ResetPassword: unary<Opts<{ new_password?: string }>, unknown>(ctx, async (request, caller) => {
        requireAdmin(caller);
        const login = loginOf(request.options);
        await asUserCall(login, () => users.changePassword(login, request.options?.new_password ?? ''));
        return {};
      }),
      // As KurrentDB's, Update sets the full name and groups; the password field is left to the password calls.
      Update: unary<Opts<{ full_name?: string; groups?: string[] }>, unknown>(ctx, async (request, caller) => {
        requireAdmin(caller);
        const login = loginOf(request.options);
        const changes = { fullName: request.options?.full_name, groups: request.options?.groups ?? [] };
        await asUserCall(login, () => users.update(login, changes));
        return {};
      }),
      Disable: unary<Opts<object>, unknown>(ctx, async (request, caller) => {
        requireAdmin(caller);
        const login = loginOf(request.options);
        await asUserCall(login, () => users.setDisabled(login, true));
        return {};
      }),
      Enable: unary<Opts<object>, unknown>(ctx, async (request, caller) => {
        requireAdmin(caller);
        const login = loginOf(request.options);
        await asUserCall(login, () => users.setDisabled(login, false));
        return {};
      }),
    },
    methods: {
      Create: [],
      Update: [],
      Delete: [],
      Disable: [],
      Enable: [],
      Details: [],
      ChangePassword: [],
      ResetPassword: [],
    },
  };
}

export function operationsService(
  ctx: CallContext,
  store: EventStore,
  restartPersistentSubscriptions: (caller: Caller) => Promise<void>,
): GrpcServiceModule {
  /** What a single node does for a cluster operation: nothing to change, but only for operators. */
  const singleNode = unary<unknown, unknown>(ctx, (_request, caller) => {
    if (!isOperator(caller)) throw Errors.accessDenied();
    return {};
  });
  return {
    service: 'event_store.client.operations.Operations',
    handlers: {
      StartScavenge: unary(ctx, (_request: unknown, caller) => {
        const result = store.scavenge(caller);
        if (result.result === 'Unauthorized') throw Errors.accessDenied();
        return {
          scavenge_id: result.scavengeId ?? '',
          scavenge_result: result.result === 'Started' ? 'STARTED' : 'INPROGRESS',
        };
      }),
      StopScavenge: unary<{ options?: { scavenge_id?: string } }, unknown>(ctx, async (request, caller) => {
        const id = request.options?.scavenge_id ?? '';
        if (!isOperator(caller)) throw Errors.accessDenied();
        const result = await store.stopScavenge(id, caller);
        if (result === 'Unauthorized') throw Errors.accessDenied();
        if (result === 'NotFound') throw Errors.scavengeNotFound(id);
        return { scavenge_id: id, scavenge_result: 'STOPPED' };
      }),
      MergeIndexes: singleNode,
      ResignNode: singleNode,
      SetNodePriority: singleNode,
      RestartPersistentSubscriptions: unary<unknown, unknown>(ctx, async (_request, caller) => {
        if (!isOperator(caller)) throw Errors.accessDenied();
        await restartPersistentSubscriptions(caller);
        return {};
      }),
      Shutdown: unary<unknown, unknown>(ctx, (_request, caller) => {
        if (!isOperator(caller)) throw Errors.accessDenied();
        throw Errors.unimplemented('Homeport stops from its window or by ending `homeport serve`, not from a client.');
      }),
    },
    methods: {
      StartScavenge: [],
      StopScavenge: [],
      MergeIndexes: [],
      ResignNode: [],
      SetNodePriority: [],
      RestartPersistentSubscriptions: [],
    },
  };
}

/** Shortest refresh period a Stats stream may ask for. */
const MIN_STATS_PERIOD_MS = 250;

export function monitoringService(
  ctx: CallContext,
  store: EventStore,
  listener: GrpcListener,
  startedAt: number,
): GrpcServiceModule {
  const stats = () => {
    const memory = process.memoryUsage();
    return {
      'proc-id': String(process.pid),
      'proc-startTime': new Date(startedAt).toISOString(),
      'proc-mem': String(memory.rss),
      'proc-heapUsed': String(memory.heapUsed),
      'proc-grpcConnections': String(listener.connectionCount()),
      'sys-freeMem': String(os.freemem()),
      'sys-totalMem': String(os.totalmem()),
      'es-lastCommitPosition': String(store.lastCommitPosition()),
      // Homeport's own: group commits so far (bench:eventlog divides a window's events by them).
      'es-writer-commits': String(store.commitsMade()),
    };
  };
  return {
    service: 'event_store.client.monitoring.Monitoring',
    handlers: {
      Stats: serverStream<{ refresh_time_period_in_ms?: string }, unknown>(ctx, async (request, caller, out) => {
        if (caller === null) throw Errors.accessDenied();
        const period = Number(request.refresh_time_period_in_ms ?? '0');
        if (!(await out.send({ stats: stats() }))) return;
        if (!(period > 0)) return out.end();
        const every = Math.max(period, MIN_STATS_PERIOD_MS);
        await new Promise<void>((resolve) => {
          const timer = setInterval(() => {
            if (!out.push({ stats: stats() }) || out.queued > 16) {
              clearInterval(timer);
              resolve();
            }
          }, every);
          out.onEnd(() => {
            clearInterval(timer);
            resolve();
          });
        });
        if (out.open) out.fail(Errors.timeout('The client stopped reading statistics.'));
      }),
    },
    methods: { Stats: [] },
  };
}
