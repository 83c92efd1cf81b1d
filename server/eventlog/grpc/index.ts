/**
 * The KurrentDB gRPC client protocol (what `@kurrent/kurrentdb-client`, KurrentDB.Client and the other
 * gRPC clients speak), served beside the TCP protocol on the same store, users and subscriptions.
 * Start it with startEventLogGrpc; a later subsystem (projections) adds its service through
 * `listener.addService` and its HTTP routes through `listener.addHttpRoute`.
 */
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from '../../logger.ts';
import type { EventLog } from '../eventlog.ts';
import type { Subscriptions } from '../subscriptions/index.ts';
import { loadTlsMaterial, TLS_CERT_FILE, TLS_DIR } from '../tcp/index.ts';
import { monitoringService, operationsService, usersService } from './admin-services.ts';
import { createAuthenticator } from './auth.ts';
import { grpcError } from './errors.ts';
import { StreamCounter, WriteTracker, type CallContext } from './call-support.ts';
import { startGrpcListener, type GrpcListener, type GrpcListenerLimits, type GrpcServiceModule } from './listener.ts';
import { nodeServices } from './node-services.ts';
import { persistentSubscriptionsService, restartPersistentSubscriptions } from './persistent/index.ts';
import { streamsService } from './streams/index.ts';

export { type GrpcListener, type GrpcListenerLimits, type GrpcServiceModule } from './listener.ts';
export { serviceDefinition } from './protos.ts';

/** Largest Append (all its events' data, metadata and types), as one TCP package may carry. */
export const DEFAULT_MAX_APPEND_BYTES = 16 * 1024 * 1024;

export interface EventLogGrpcOptions {
  host: string;
  port: number;
  /** Cleartext HTTP/2 without authentication or authorization (as KurrentDB's --insecure). */
  insecure: boolean;
  /** Holds the TLS certificate (the same self-signed one as the TCP TLS listener). */
  dataDir: string;
  logger: Logger;
  limits?: Partial<GrpcListenerLimits>;
  maxAppendBytes?: number;
  /** Services of other subsystems (projections), built with the listener's call context. */
  moreServices?: (ctx: CallContext) => GrpcServiceModule[];
}

export interface EventLogGrpcServer {
  listener: GrpcListener;
  host: string;
  port: number;
  /** The certificate clients trust (tlsCAFile); null in cleartext mode. */
  caFile: string | null;
  /** A connection string for the official clients, without credentials. */
  connectionString: string;
  /** Appends and deletes handed to the store and not answered yet. */
  writesInFlight(): number;
  close(): Promise<void>;
}

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

export async function startEventLogGrpc(
  eventLog: EventLog,
  subscriptions: Subscriptions,
  options: EventLogGrpcOptions,
): Promise<EventLogGrpcServer> {
  const logger = options.logger;
  const tls = options.insecure ? null : await loadTlsMaterial({ dataDir: options.dataDir, host: options.host, logger });
  const listener = await startGrpcListener({
    host: options.host,
    port: options.port,
    tls: tls ? { cert: tls.cert, key: tls.key } : null,
    logger,
    limits: options.limits,
  });
  const ctx: CallContext = {
    authenticate: createAuthenticator(eventLog, !options.insecure),
    logger,
    streams: new StreamCounter(listener.limits.maxStreamingCallsPerConnection),
    writes: new WriteTracker(),
  };
  const port = listener.address.port;
  for (const module of nodeServices(ctx, listener, { host: options.host, port })) listener.addService(module);
  listener.addService(
    streamsService(ctx, {
      store: eventLog.store,
      volatile: subscriptions.volatile,
      maxAppendBytes: options.maxAppendBytes ?? DEFAULT_MAX_APPEND_BYTES,
    }),
  );
  listener.addService(persistentSubscriptionsService(ctx, subscriptions));
  listener.addService(usersService(ctx, eventLog.users));
  listener.addService(
    operationsService(ctx, eventLog.store, (caller) => restartPersistentSubscriptions(subscriptions, caller)),
  );
  listener.addService(monitoringService(ctx, eventLog.store, listener, Date.now()));
  for (const module of options.moreServices?.(ctx) ?? []) listener.addService(module);
  const caFile = tls ? path.join(options.dataDir, TLS_DIR, TLS_CERT_FILE) : null;
  const connectionString = `kurrentdb://${formatHost(options.host)}:${port}?${caFile ? `tlsCAFile=${caFile}` : 'tls=false'}`;
  logger.info({ address: `${options.host}:${port}`, secure: !options.insecure }, 'event-log gRPC listening');
  return {
    listener,
    host: options.host,
    port,
    caFile,
    connectionString,
    writesInFlight: () => ctx.writes.inFlight,
    close: async () => {
      // Writes already handed to the store answer first (new ones are refused meanwhile); subscriptions are
      // ended with UNAVAILABLE, which tells clients to reconnect; then the connections close.
      await ctx.writes.drain();
      ctx.streams.endAll(grpcError(grpc.status.UNAVAILABLE, 'Server is shutting down.'));
      await listener.close();
      logger.info('event-log gRPC stopped');
    },
  };
}
export { serverStream, unary } from './call-support.ts';
export type { CallContext } from './call-support.ts';
export { Errors, grpcError } from './errors.ts';
