import net, { type AddressInfo, type Socket } from 'node:net';
import tls from 'node:tls';
import type { Logger } from '../../logger.ts';
import type { EventLog } from '../eventlog.ts';
import { LogThrottle } from '../../security/index.ts';
import { ClientConnection } from './connection.ts';
import {
  DEFAULT_CONNECTION_LIMITS,
  emptyStats,
  type ConnectionLimits,
  type TcpServerStats,
} from './connection-facts.ts';
import { ConnectionRegistry } from './connection-registry.ts';
import { CommandDispatcher, type CommandHandlerMap } from './dispatcher.ts';
import { adminHandlers } from './handlers/admin-handlers.ts';
import { connectionHandlers } from './handlers/connection-handlers.ts';
import { readHandlers } from './handlers/read-handlers.ts';
import { writeHandlers } from './handlers/write-handlers.ts';
import { loadTlsMaterial } from './tls.ts';

export interface EventLogTcpOptions {
  host: string;
  port: number;
  /** Secure listener port; null = no TLS listener. */
  tlsPort: number | null;
  /** Where the self-signed certificate is generated on first start (unless tlsCert/tlsKey are given). */
  dataDir: string;
  /** PEM text or path of a certificate (and its key) for the TLS listener. */
  tlsCert?: string;
  tlsKey?: string;
  logger: Logger;
  /** Heartbeats, send-queue bounds and the frame limit; defaults as EventStoreDB's (DEFAULT_CONNECTION_LIMITS). */
  limits?: Partial<ConnectionLimits>;
  /** More command handlers (e.g. subscriptions), registered next to the core ones. */
  handlers?: CommandHandlerMap[];
}

export interface EventLogTcpServer {
  tcp: AddressInfo;
  tls: AddressInfo | null;
  /** Open client connections (both listeners), for the UI's connection list. */
  connections: ConnectionRegistry;
  /** Running totals (connections, packages, BadRequests, dropped connections). */
  stats: TcpServerStats;
  /** Adds command handlers (subscriptions plug in here); a command can be registered only once. */
  registerHandlers(map: CommandHandlerMap): void;
  /** Stop accepting, let in-flight writes finish, close connections. */
  close(): Promise<void>;
}

function listen(server: net.Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    server.listen({ port, host }, () => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

function closeServer(server: net.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * Starts the EventStoreDB-compatible TCP listener (and the TLS one when tlsPort is set) in front of
 * an opened event log.
 */
export async function startEventLogTcp(eventLog: EventLog, options: EventLogTcpOptions): Promise<EventLogTcpServer> {
  const logger = options.logger;
  const limits: ConnectionLimits = { ...DEFAULT_CONNECTION_LIMITS, ...options.limits };
  const dispatcher = new CommandDispatcher(eventLog, logger);
  for (const map of [connectionHandlers, writeHandlers, readHandlers, adminHandlers, ...(options.handlers ?? [])]) {
    dispatcher.registerHandlers(map);
  }
  const connections = new ConnectionRegistry();
  const stats = emptyStats();
  let closing = false;

  let lastRefusalLog = 0;
  const protocolLog = new LogThrottle();
  const accept = (socket: Socket, secure: boolean) => {
    if (closing) {
      socket.destroy();
      return;
    }
    if (connections.size >= limits.maxConnections) {
      stats.connectionsRefused++;
      socket.destroy();
      // One line per minute at most: a flood must not push everything else out of the log.
      if (Date.now() - lastRefusalLog > 60_000) {
        lastRefusalLog = Date.now();
        logger.warn(
          { limit: limits.maxConnections, remote: socket.remoteAddress, refusedSoFar: stats.connectionsRefused },
          'connection limit reached; refusing new connections',
        );
      }
      return;
    }
    const connection = new ClientConnection(socket, { dispatcher, logger, limits, secure, stats, protocolLog });
    connections.add(connection);
    logger.debug(
      { connection: connection.id, remote: `${connection.remoteAddress}:${connection.remotePort}`, secure },
      'client connected',
    );
    connection.onClose((reason) => logger.debug({ connection: connection.id, reason }, 'client disconnected'));
  };

  const tcpServer = net.createServer({ noDelay: true }, (socket) => accept(socket, false));
  tcpServer.on('error', (err) => logger.error({ err }, 'event-log TCP listener error'));
  let tlsServer: tls.Server | null = null;
  const servers: net.Server[] = [];
  try {
    const tcpAddress = await listen(tcpServer, options.port, options.host);
    servers.push(tcpServer);
    let tlsAddress: AddressInfo | null = null;
    if (options.tlsPort !== null) {
      const material = await loadTlsMaterial({
        dataDir: options.dataDir,
        host: options.host,
        tlsCert: options.tlsCert,
        tlsKey: options.tlsKey,
        logger,
      });
      tlsServer = tls.createServer({ cert: material.cert, key: material.key }, (socket) => accept(socket, true));
      tlsServer.on('tlsClientError', (err) => logger.debug({ err }, 'TLS handshake failed'));
      tlsServer.on('error', (err) => logger.error({ err }, 'event-log TLS listener error'));
      tlsAddress = await listen(tlsServer, options.tlsPort, options.host);
      servers.push(tlsServer);
    }
    logger.info(
      {
        tcp: `${tcpAddress.address}:${tcpAddress.port}`,
        tls: tlsAddress ? `${tlsAddress.address}:${tlsAddress.port}` : null,
      },
      'event-log TCP listening',
    );

    let closed: Promise<void> | null = null;
    return {
      tcp: tcpAddress,
      tls: tlsAddress,
      connections,
      stats,
      registerHandlers: (map) => dispatcher.registerHandlers(map),
      close() {
        closed ??= (async () => {
          closing = true;
          const stopped = servers.map(closeServer);
          // Requests already running (writes waiting for their commit) finish and answer first.
          dispatcher.stopping = true;
          await dispatcher.drain();
          const open = connections.all();
          for (const connection of open) connection.close('server shutting down');
          await Promise.all(open.map((c) => c.whenClosed()));
          await Promise.all(stopped);
          logger.info('event-log TCP stopped');
        })();
        return closed;
      },
    };
  } catch (err) {
    for (const server of servers) server.close();
    throw err;
  }
}
