import http from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';
import tls from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from '../../logger.ts';
import type { ConnectionInfo } from '../tcp/index.ts';
import { serviceDefinition } from './protos.ts';

/**
 * One port, two protocols, as KurrentDB's 2113: gRPC (HTTP/2) for the clients and a small HTTP/1.1
 * surface (/health/live, /info, /gossip) for probes and tools. grpc-js cannot share its HTTP/2 server
 * with plain HTTP, so Homeport owns the socket and hands each connection to one side:
 * - TLS: by ALPN. gRPC clients (grpc-js, tonic/rustls, grpc-dotnet, grpcio) offer only `h2`; browsers,
 *   curl and Node's https offer `http/1.1` too (or nothing) and get HTTP/1.1.
 * - cleartext: by the first bytes; the HTTP/2 connection preface goes to gRPC, anything else to HTTP/1.1.
 * A service added later (projections) registers here like the others, and its routes on the HTTP side.
 */

/** A gRPC service and what ServerFeatures advertises for it; methods left out answer UNIMPLEMENTED. */
export interface GrpcServiceModule {
  /** Full name, e.g. `event_store.client.streams.Streams`. */
  service: string;
  handlers: grpc.UntypedServiceImplementation;
  /** Implemented methods (as in the .proto) and their feature strings. */
  methods: Record<string, readonly string[]>;
}

export type HttpHandler = (req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void>;

export interface GrpcListenerLimits {
  /** Open connections (both protocols) allowed at once. */
  maxConnections: number;
  /** Largest message a client may send (bytes). */
  maxReceiveMessageBytes: number;
  /** Largest message the server sends (the Node client accepts 17 MiB). */
  maxSendMessageBytes: number;
  /** Concurrent calls per HTTP/2 connection (the client queues more). */
  maxConcurrentStreams: number;
  /** Long-lived calls (subscriptions, consumers, BatchAppend) per connection; more get RESOURCE_EXHAUSTED. */
  maxStreamingCallsPerConnection: number;
  /** A connection that sends nothing this long after connecting is closed. */
  firstBytesTimeoutMs: number;
}

export const DEFAULT_GRPC_LIMITS: GrpcListenerLimits = {
  maxConnections: 1000,
  // KurrentDB's Streams limit (16 MiB less 10,000 bytes); the Node client accepts 17 MiB responses.
  maxReceiveMessageBytes: 16 * 1024 * 1024,
  maxSendMessageBytes: 17 * 1024 * 1024,
  maxConcurrentStreams: 4000,
  maxStreamingCallsPerConnection: 1000,
  firstBytesTimeoutMs: 10_000,
};

export interface GrpcListenerOptions {
  host: string;
  port: number;
  /** null = cleartext HTTP/2 (prior knowledge). */
  tls: { cert: string; key: string } | null;
  logger: Logger;
  limits?: Partial<GrpcListenerLimits>;
}

export interface GrpcListener {
  address: AddressInfo;
  secure: boolean;
  limits: GrpcListenerLimits;
  /** Registers a service; call before clients connect (ServerFeatures reads the list on every call). */
  addService(module: GrpcServiceModule): void;
  /** The implemented methods, as ServerFeatures reports them. */
  supportedMethods(): { service: string; method: string; features: readonly string[] }[];
  /** `path` ending in `/*` serves every path under it (the projections API names projections in its paths). */
  addHttpRoute(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, handler: HttpHandler): void;
  /** Open connections, both protocols. */
  connectionCount(): number;
  /** Open connections for the UI's list, beside the TCP ones (ids as the subscription monitor shows them). */
  connections(): ConnectionInfo[];
  close(): Promise<void>;
}

const HTTP2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
/** How long close() lets calls under way finish before cutting connections. */
const CLOSE_GRACE_MS = 2000;

export async function startGrpcListener(options: GrpcListenerOptions): Promise<GrpcListener> {
  const logger = options.logger;
  const limits: GrpcListenerLimits = { ...DEFAULT_GRPC_LIMITS, ...options.limits };
  const server = new grpc.Server({
    'grpc.max_receive_message_length': limits.maxReceiveMessageBytes,
    'grpc.max_send_message_length': limits.maxSendMessageBytes,
    'grpc.max_concurrent_streams': limits.maxConcurrentStreams,
    'grpc.keepalive_time_ms': 10_000,
    'grpc.keepalive_timeout_ms': 10_000,
  });
  const injector = server.createConnectionInjector(grpc.ServerCredentials.createInsecure());
  const modules: GrpcServiceModule[] = [];
  const routes = new Map<string, HttpHandler>();
  const prefixRoutes: [string, HttpHandler][] = [];
  const prefixRouteOf = (key: string) => prefixRoutes.find(([prefix]) => key.startsWith(prefix))?.[1];

  const httpSide = http.createServer({ maxHeaderSize: 16 * 1024, requestTimeout: 30_000 }, (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const handler = routes.get(`${req.method} ${path}`) ?? prefixRouteOf(`${req.method} ${path}`);
    if (!handler) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    Promise.resolve(handler(req, res)).catch((err) => {
      logger.warn({ err, path }, 'HTTP request on the gRPC port failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('internal error\n');
    });
  });

  /** Open sockets and when they connected. */
  const open = new Map<Socket, number>();
  let closing = false;
  /** Set while close() waits for the last connection. */
  let allClosed: (() => void) | null = null;
  const track = (socket: Socket): boolean => {
    if (closing || open.size >= limits.maxConnections) {
      socket.destroy();
      return false;
    }
    open.set(socket, Date.now());
    socket.once('close', () => {
      open.delete(socket);
      if (open.size === 0) allClosed?.();
    });
    socket.on('error', (err) => logger.debug({ err }, 'gRPC port connection error'));
    return true;
  };

  // Parsing the .proto files for the service definitions costs a few hundred ms: done when the first gRPC
  // connection comes, not at every start (the HTTP/1.1 side and the other listeners do not need them).
  let grpcInUse = false;
  let registered = 0;
  const registerServices = () => {
    for (; registered < modules.length; registered++)
      server.addService(serviceDefinition(modules[registered].service), modules[registered].handlers);
  };
  const toGrpc = (socket: Socket) => {
    grpcInUse = true;
    try {
      registerServices();
    } catch (err) {
      logger.error({ err }, 'gRPC services could not be registered');
      socket.destroy();
      return;
    }
    injector.injectConnection(socket);
  };
  const toHttp = (socket: Socket) => httpSide.emit('connection', socket);

  /** Cleartext: reads until the bytes decide the protocol, puts them back and hands the socket over. */
  const sniff = (socket: Socket) => {
    let seen = Buffer.alloc(0);
    const timer = setTimeout(() => socket.destroy(), limits.firstBytesTimeoutMs);
    const onData = (chunk: Buffer) => {
      seen = Buffer.concat([seen, chunk]);
      const n = Math.min(seen.length, HTTP2_PREFACE.length);
      const isH2 = seen.subarray(0, n).equals(HTTP2_PREFACE.subarray(0, n));
      if (isH2 && n < HTTP2_PREFACE.length) return;
      clearTimeout(timer);
      socket.off('data', onData);
      socket.pause();
      socket.unshift(seen);
      if (isH2) toGrpc(socket);
      else {
        toHttp(socket);
        // pause() above made the socket explicitly paused; the HTTP server's data listener does not undo that
        socket.resume();
      }
    };
    socket.on('data', onData);
    socket.once('close', () => clearTimeout(timer));
  };

  let netServer: net.Server;
  if (options.tls) {
    netServer = tls.createServer({
      cert: options.tls.cert,
      key: options.tls.key,
      // biome-ignore lint/correctness/noComponentHookFactories: a TLS option whose name starts with a capital, not a React component
      ALPNCallback: ({ protocols }) =>
        protocols.includes('http/1.1') ? 'http/1.1' : protocols.includes('h2') ? 'h2' : undefined,
    });
    netServer.on('connection', (socket: Socket) => {
      if (!track(socket)) return;
    });
    netServer.on('secureConnection', (socket: tls.TLSSocket) => {
      if (closing) return socket.destroy();
      socket.on('error', (err) => logger.debug({ err }, 'gRPC TLS connection error'));
      if (socket.alpnProtocol === 'h2') toGrpc(socket);
      else toHttp(socket);
    });
    netServer.on('tlsClientError', (err) => logger.debug({ err }, 'gRPC port TLS handshake failed'));
  } else {
    netServer = net.createServer({ noDelay: true }, (socket) => {
      if (track(socket)) sniff(socket);
    });
  }
  netServer.on('error', (err) => logger.error({ err }, 'event-log gRPC listener error'));
  const address = await new Promise<AddressInfo>((resolve, reject) => {
    netServer.once('error', reject);
    netServer.listen({ port: options.port, host: options.host }, () => {
      netServer.off('error', reject);
      resolve(netServer.address() as AddressInfo);
    });
  });

  let closed: Promise<void> | null = null;
  return {
    address,
    secure: options.tls !== null,
    limits,
    addService(module) {
      modules.push(module);
      if (grpcInUse) registerServices();
    },
    supportedMethods: () =>
      modules.flatMap((m) =>
        Object.entries(m.methods).map(([method, features]) => ({ service: m.service, method, features })),
      ),
    addHttpRoute(method, path, handler) {
      if (path.endsWith('/*')) prefixRoutes.push([`${method} ${path.slice(0, -1)}`, handler]);
      else routes.set(`${method} ${path}`, handler);
    },
    connectionCount: () => open.size,
    connections: () =>
      [...open].map(([socket, connectedAt]) => {
        const host = socket.remoteAddress ?? 'unknown';
        const address = host.includes(':') ? `[${host}]` : host;
        return {
          id: `grpc:${address}:${socket.remotePort ?? 0}`,
          connectionName: '',
          clientVersion: null,
          remoteAddress: host,
          remotePort: socket.remotePort ?? 0,
          tls: options.tls !== null,
          user: null,
          connectedAt,
          bytesReceived: socket.bytesRead,
          bytesSent: socket.bytesWritten,
          packagesReceived: 0,
          packagesSent: 0,
          pendingSendPackages: 0,
          pendingSendBytes: socket.writableLength,
        };
      }),
    close() {
      closed ??= (async () => {
        closing = true;
        const stopped = new Promise<void>((resolve) => netServer.close(() => resolve()));
        // GOAWAY: calls under way (answers being sent) finish, then each connection closes; whatever is
        // still open after the grace period is cut.
        injector.drain(CLOSE_GRACE_MS);
        httpSide.closeIdleConnections();
        if (open.size > 0) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, CLOSE_GRACE_MS);
            timer.unref();
            allClosed = () => {
              clearTimeout(timer);
              resolve();
            };
          });
        }
        server.forceShutdown();
        injector.destroy();
        httpSide.closeAllConnections();
        for (const socket of open.keys()) socket.destroy();
        await stopped;
      })();
      return closed;
    },
  };
}
