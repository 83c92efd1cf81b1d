import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { resolveConfig, type HomeportConfig } from './config.ts';
import {
  DEFAULT_PASSWORD,
  openEventLog,
  startEventLogTcp,
  startEventLogGrpc,
  eventLogUiRoutes,
  eventLogUiDeps,
  type EventLog,
  type EventLogTcpServer,
  type EventLogGrpcServer,
} from './eventlog/index.ts';
import { startSubscriptions, subscriptionTcpHandlers, type Subscriptions } from './eventlog/index.ts';
import {
  mountProjectionsHttp,
  projectionsGrpcService,
  startProjections,
  type ProjectionManager,
} from './eventlog/index.ts';
import {
  createHttpServer,
  registerUiApi,
  type ServerInfo,
  SqliteUiSessionStore,
  UI_API_PREFIX,
  type UiPrincipal,
  UiSessions,
} from './http/index.ts';
import { checkIntegrityInBackground, DamagedDatabaseError } from './db/index.ts';
import { ensureDirectory, makePrivate } from './fs-util.ts';
import { acquireDataDirLock } from './lock.ts';
import { createLogger, LogRing, type Logger } from './logger.ts';
import { openSocial, socialUiRoutes, type Social } from './social/index.ts';
import { isLoopbackHost } from './security/index.ts';
import { HOMEPORT_VERSION } from './version.ts';

export interface Listener {
  name: 'http' | 'eventlog-tcp' | 'eventlog-tls' | 'eventlog-grpc';
  protocol: string;
  host: string;
  port: number;
  /** What a person pastes into a client. */
  url: string;
}

export interface Homeport {
  config: HomeportConfig;
  listeners: Listener[];
  /** Base URL of the HTTP server, e.g. http://127.0.0.1:3000 */
  httpUrl: string;
  tcpPort: number;
  tlsPort: number | null;
  /** The KurrentDB gRPC listener (null when turned off). */
  grpc: EventLogGrpcServer | null;
  /** An owner token for the UI API minted at start (12 hours; tests and the CLI use it). */
  uiToken: string;
  /** Mints a fresh owner token. */
  mintUiToken(): string;
  /**
   * The desktop window's automatic sign-in (it asks whenever it needs one): an owner token, or, while the
   * event-log admin keeps the public default password, a session that may only change it.
   */
  mintDesktopToken(): Promise<string>;
  eventLog: EventLog;
  /** Event-log subscriptions (volatile and persistent): the monitor and management API. */
  subscriptions: Subscriptions;
  /** Event-log projections; null when `runProjections` is `none`. */
  projections: ProjectionManager | null;
  social: Social;
  http: FastifyInstance;
  logger: Logger;
  logs: LogRing;
  close(): Promise<void>;
}

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

function fileSize(file: string): number {
  let total = 0;
  for (const f of [file, `${file}-wal`]) {
    try {
      total += fs.statSync(f).size;
    } catch {
      /* not there */
    }
  }
  return total;
}

/**
 * Starts everything Homeport runs: the event log (SQLite + TCP listeners), the social server and the
 * HTTP server with the UI. The CLI, the tests and the Electron main process all start Homeport here.
 */
export async function startHomeport(partial: Partial<HomeportConfig> & { dataDir: string }): Promise<Homeport> {
  const config = resolveConfig(partial);
  if (config.grpcInsecure && config.grpcPort !== null && !isLoopbackHost(config.host))
    throw new Error(
      `the gRPC listener without TLS has no authentication: it listens on loopback only, not on ${config.host}`,
    );
  ensureDirectory(config.dataDir);
  const tightened = makePrivate(config.dataDir);
  const lock = acquireDataDirLock(config.dataDir);

  const logs = new LogRing();
  const logger = createLogger({ level: config.logLevel, toConsole: config.logToConsole, ring: logs });
  const cleanups: (() => Promise<void> | void)[] = [() => lock.release()];
  const cleanup = async () => {
    for (const fn of cleanups.reverse()) {
      try {
        await fn();
      } catch (err) {
        logger.error({ err }, 'error while shutting down');
      }
    }
    cleanups.length = 0;
  };

  try {
    const eventLog = await openEventLog({ dataDir: config.dataDir, logger: logger.child({ subsystem: 'eventlog' }) });
    cleanups.push(() => eventLog.close());
    // Closed after the TCP listener and before the store: groups write their final checkpoints.
    const subscriptions = startSubscriptions(eventLog.store, { logger: logger.child({ subsystem: 'subscriptions' }) });
    cleanups.push(() => subscriptions.close());
    // Closed before the store: each running projection writes its last position.
    const projections = await startProjections(eventLog, {
      mode: config.runProjections,
      logger: logger.child({ subsystem: 'projections' }),
    });
    if (projections) cleanups.push(() => projections.close());
    const social = await openSocial({
      dataDir: config.dataDir,
      logger: logger.child({ subsystem: 'social' }),
      domain: config.domain,
      secure: config.publicUrl?.startsWith('https:') ?? false,
      streamingUrl: config.streamingUrl,
      ...(config.federationAllowPrivateAddress ? { federation: { allowPrivateAddress: true } } : {}),
      generalRateLimit: config.socialRateLimits,
    });
    cleanups.push(() => social.close());

    // A UI session lasts while its credentials do: removing, disabling or re-keying the account ends it. Sessions
    // people signed in to are kept in the data directory, so restarting the server does not sign them out.
    const sessions = new UiSessions({
      store: new SqliteUiSessionStore(config.dataDir, (err) =>
        logger.warn({ err }, 'the UI sessions file was damaged and is replaced by an empty one: sign in again'),
      ),
      credentialStamp: (principal) => {
        if (principal.via === 'app-token') return 'app';
        if (principal.via === 'social-owner') return social.ownerCredentialStamp(principal.name);
        const user = eventLog.users.get(principal.name);
        if (!user || user.disabled || !user.groups.includes('$admins')) return null;
        return eventLog.users.credentialStamp(principal.name);
      },
    });
    cleanups.push(() => sessions.close());
    const startedAt = new Date().toISOString();
    const listeners: Listener[] = [];
    const checkCredentials = async (username: string, password: string, from: string): Promise<UiPrincipal | null> => {
      const principal = await eventLog.users.authenticate(username, password, from);
      // Anyone can read the default password in the documentation: such a session may only change it.
      if (principal?.groups.includes('$admins'))
        return {
          name: principal.name,
          via: 'eventlog-admin',
          ...(password === DEFAULT_PASSWORD ? { mustChangePassword: true } : {}),
        };
      const owner = await social.checkOwnerCredentials(username, password);
      return owner ? { name: owner.name, via: 'social-owner' } : null;
    };
    const serverInfo = (): ServerInfo => ({
      version: HOMEPORT_VERSION,
      dataDir: config.dataDir,
      startedAt,
      listeners: listeners.map((l) => ({
        name: l.name,
        protocol: l.protocol,
        address: `${l.host}:${l.port}`,
        url: l.url,
      })),
      databases: [
        { name: 'eventlog', file: eventLog.file, bytes: fileSize(eventLog.file) },
        { name: 'social', file: social.file, bytes: fileSize(social.file) },
      ],
    });

    // The TCP listener starts after the HTTP server; the UI's connection list reads it once it runs.
    let tcpConnections: EventLogTcpServer['connections'] | null = null;
    let grpc: EventLogGrpcServer | null = null;
    const http = await createHttpServer({
      logger: logger.child({ subsystem: 'http' }),
      allowedHostNames: () => [
        config.domain,
        config.host,
        ...(config.streamingUrl ? [new URL(config.streamingUrl).host] : []),
      ],
      trustProxy: config.trustProxy,
      rendererDir: config.rendererDir,
      plugins: [
        {
          name: 'ui-api',
          prefix: UI_API_PREFIX,
          plugin: registerUiApi({
            sessions,
            checkCredentials,
            changePassword: async (principal, currentPassword, newPassword) => {
              if (principal.via !== 'eventlog-admin') return 'unsupported';
              if (newPassword === DEFAULT_PASSWORD) return 'invalid';
              if (!(await eventLog.users.authenticate(principal.name, currentPassword))) return 'wrong-password';
              try {
                await eventLog.users.changePassword(principal.name, newPassword);
              } catch {
                return 'invalid';
              }
              return 'changed';
            },
            serverInfo,
            logs,
            dataDir: config.dataDir,
            extraRoutes: [
              eventLogUiRoutes(
                eventLogUiDeps({
                  eventLog,
                  subscriptions,
                  connections: () => [...(tcpConnections?.list() ?? []), ...(grpc?.listener.connections() ?? [])],
                  projections,
                }),
              ),
              socialUiRoutes(social.context),
            ],
          }),
        },
        { name: 'social', plugin: social.plugin },
      ],
    });
    cleanups.push(() => http.close());
    await http.listen({ host: config.host, port: config.httpPort });
    const httpAddress = http.server.address() as AddressInfo;
    const httpUrl = `http://${formatHost(config.host)}:${httpAddress.port}`;
    // Started on port 0 without a domain (tests): the social server's URLs need the port it got.
    if (config.domain.endsWith(':0')) {
      config.domain = `${formatHost(config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host)}:${httpAddress.port}`;
      social.setDomain(config.domain);
    }

    const tcp: EventLogTcpServer = await startEventLogTcp(eventLog, {
      host: config.host,
      port: config.tcpPort,
      tlsPort: config.tcpTlsPort,
      dataDir: config.dataDir,
      logger: logger.child({ subsystem: 'eventlog-tcp' }),
      limits: config.tcpLimits,
      handlers: [subscriptionTcpHandlers(subscriptions, config.tcpSubscriptionLimits)],
    });
    // Close the TCP side first on shutdown: stop accepting, let in-flight writes finish.
    cleanups.push(() => tcp.close());
    tcpConnections = tcp.connections;

    listeners.push({
      name: 'eventlog-tcp',
      protocol: 'tcp',
      host: config.host,
      port: tcp.tcp.port,
      url: `tcp://${formatHost(config.host)}:${tcp.tcp.port}`,
    });
    if (tcp.tls) {
      listeners.push({
        name: 'eventlog-tls',
        protocol: 'tls',
        host: config.host,
        port: tcp.tls.port,
        url: `tcp://${formatHost(config.host)}:${tcp.tls.port}`,
      });
    }
    if (config.grpcPort !== null) {
      grpc = await startEventLogGrpc(eventLog, subscriptions, {
        host: config.host,
        port: config.grpcPort,
        insecure: config.grpcInsecure,
        dataDir: config.dataDir,
        logger: logger.child({ subsystem: 'eventlog-grpc' }),
        ...(projections ? { moreServices: (ctx) => [projectionsGrpcService(ctx, projections)] } : {}),
      });
      // EventStoreDB's HTTP projections API lives on the same port (node-eventstore-client's ProjectionsManager).
      if (projections)
        mountProjectionsHttp(grpc.listener, projections, {
          users: eventLog.users,
          tokens: eventLog.tokens,
          secure: grpc.caFile !== null,
        });
      // Closed before the subscriptions and the store, like the TCP side.
      const started = grpc;
      cleanups.push(() => started.close());
      listeners.push({
        name: 'eventlog-grpc',
        protocol: grpc.caFile ? 'grpc+tls' : 'grpc',
        host: config.host,
        port: grpc.port,
        url: grpc.connectionString,
      });
    }
    listeners.push({ name: 'http', protocol: 'http', host: config.host, port: httpAddress.port, url: httpUrl });

    // The desktop window's token is short-lived; the preload asks for a fresh one when it ends.
    const mintUiToken = () => sessions.mint({ name: 'owner', via: 'app-token' });
    const uiToken = mintUiToken();
    // Anyone can read the default password in the documentation, and the TCP listener takes it: the desktop
    // window signs in as that admin would with it, so the UI asks for a new password before anything else.
    const mintDesktopToken = async () => {
      const admin = eventLog.users.get('admin');
      const defaultAdmin =
        admin !== undefined &&
        !admin.disabled &&
        admin.groups.includes('$admins') &&
        (await eventLog.users.hasPassword('admin', DEFAULT_PASSWORD));
      return defaultAdmin
        ? sessions.mint({ name: 'admin', via: 'eventlog-admin', mustChangePassword: true })
        : mintUiToken();
    };
    logger.info({ dataDir: config.dataDir, listeners: listeners.map((l) => l.url) }, 'homeport started');
    // A full check reads every page: in the background, reported if anything is wrong.
    const files = [eventLog.file, social.file];
    const check = checkIntegrityInBackground(files);
    cleanups.push(() => check.stop());
    void check.result.then((found) =>
      found.forEach((problems, i) => {
        if (problems.length > 0)
          logger.error({ file: files[i], problems }, `${new DamagedDatabaseError(files[i], problems[0]).message}`);
      }),
    );
    if (config.federationAllowPrivateAddress)
      logger.warn('HOMEPORT_TEST_PRIVATE_NETWORK is set: federation reaches private addresses (for tests only)');
    if (!config.socialRateLimits)
      logger.warn('HOMEPORT_BENCH_NO_RATE_LIMIT is set: the social API has no rate limits (for benchmarks only)');
    if (tightened > 0)
      logger.warn(
        { dataDir: config.dataDir, entries: tightened },
        'the data directory was readable by other users; it is now private to you',
      );
    if (!isLoopbackHost(config.host))
      for (const name of ['admin', 'ops'])
        if (eventLog.users.get(name)?.disabled === false && (await eventLog.users.hasPassword(name, DEFAULT_PASSWORD)))
          logger.warn(
            { host: config.host, user: name },
            `the listeners are reachable from other machines and the event-log ${name} still has the default password "changeit": change it (homeport eventlog users passwd ${name}) or listen on 127.0.0.1`,
          );

    let closing: Promise<void> | null = null;
    return {
      config,
      listeners,
      httpUrl,
      tcpPort: tcp.tcp.port,
      tlsPort: tcp.tls?.port ?? null,
      grpc,
      uiToken,
      mintUiToken,
      mintDesktopToken,
      eventLog,
      subscriptions,
      projections,
      social,
      http,
      logger,
      logs,
      close() {
        closing ??= (async () => {
          logger.info('homeport stopping');
          await cleanup();
        })();
        return closing;
      },
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}
