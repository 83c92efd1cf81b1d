import fs from 'node:fs';
import path from 'node:path';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import fastifyStatic from '@fastify/static';
import fastifyWebsocket from '@fastify/websocket';
import type { Logger } from '../logger.ts';
import { isAllowedHost } from '../security/index.ts';
import { allowsCrossOrigin, isOwnOrigin, isUiApiPath } from './cross-origin.ts';
import { lazySerializerBuilder, lazyValidatorBuilder } from './lazy-schema-compilers.ts';

export interface HttpServerOptions {
  logger: Logger;
  /** Built renderer (index.html + assets); null serves no UI. */
  rendererDir: string | null;
  /** Subsystem plugins, each encapsulated (fastify's plugin model). */
  plugins: { name: string; plugin: FastifyPluginAsync; prefix?: string }[];
  bodyLimit?: number;
  /** Behind a reverse proxy or tunnel: take the client address (rate limits, throttles, logs) from X-Forwarded-For. */
  trustProxy?: boolean;
  /**
   * Host names served besides loopback names and IP literals (the configured domain, the public URL). Every
   * other `Host` is refused with 421 before any route runs, WebSocket upgrades included (DNS rebinding).
   */
  allowedHostNames?: () => readonly string[];
}

/** One fastify instance serves the UI, the UI's own API and the social server. */
export async function createHttpServer(options: HttpServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    bodyLimit: options.bodyLimit ?? 16 * 1024 * 1024,
    trustProxy: options.trustProxy ?? false,
    // Rails-style clients send `a[b]=1`; subsystems parse brackets themselves, so keep raw keys here.
    routerOptions: { maxParamLength: 500, ignoreTrailingSlash: true },
    // Route schemas compile when a route first needs them (lazy-schema-compilers.ts), not at every start.
    schemaController: {
      compilersFactory: { buildValidator: lazyValidatorBuilder(), buildSerializer: lazySerializerBuilder() },
    },
  });
  const allowedHostNames = options.allowedHostNames ?? (() => []);
  // One synchronous hook for both refusals, before any body is read: every request runs it, and an async hook
  // would cost each of them a promise and a turn of the microtask queue.
  app.addHook('onRequest', (req, reply, done) => {
    if (!isAllowedHost(req.headers.host, allowedHostNames())) {
      req.log.warn(
        { host: req.headers.host ?? null, url: req.url.split('?')[0] },
        'request for a host this server does not serve refused',
      );
      return refuse(
        req,
        reply,
        421,
        'Misdirected Request',
        'This server does not serve that host name (Misdirected Request)',
      );
    }
    // The UI's API answers only its own pages (and clients that are not browsers): a page on another site could
    // otherwise post sign-in attempts (and lock its visitor out) or drive a session. The matched route as well as
    // the URL: whatever spelling reaches a UI API route is checked.
    if (
      (isUiApiPath(req.url) || isUiApiPath(req.routeOptions.url ?? '')) &&
      !isOwnOrigin(req.headers.origin, req.headers.host, allowedHostNames())
    ) {
      req.log.warn(
        { origin: req.headers.origin, method: req.method, url: req.url.split('?')[0] },
        'UI API request from another site refused',
      );
      return refuse(req, reply, 403, 'Forbidden', 'The UI API answers only pages of this server');
    }
    done();
  });
  await app.register(fastifyWebsocket, { options: { maxPayload: 1024 * 1024 } });

  for (const { plugin, prefix } of options.plugins) await app.register(plugin, prefix ? { prefix } : {});

  // The UI's pages get a strict policy: scripts only from this server, nothing framed, no plugins. Images and
  // media may come from other servers (remote avatars and attachments); the social client talks to other
  // Mastodon-compatible servers over https.
  app.addHook('onSend', (req, reply, payload, done) => {
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && type.startsWith('text/html') && !isApiPath(req.url.split('?')[0]))
      reply.header('Content-Security-Policy', UI_CONTENT_SECURITY_POLICY);
    done(null, payload);
  });

  const rendererDir = options.rendererDir;
  const hasRenderer = Boolean(rendererDir && fs.existsSync(path.join(rendererDir, 'index.html')));
  if (hasRenderer) {
    await app.register(fastifyStatic, { root: rendererDir!, prefix: '/', index: ['index.html'], wildcard: false });
  } else {
    app.get('/', async (_req, reply) =>
      reply
        .type('text/html')
        .send(
          '<!doctype html><title>Homeport</title><p>Homeport is running. The UI is not built: run <code>npm run build:renderer</code>.</p>',
        ),
    );
  }
  app.setNotFoundHandler((req, reply) => {
    const url = req.url.split('?')[0];
    // Client-side routes (e.g. /ui/streams/foo) get the app shell; API paths keep their 404s.
    if (hasRenderer && req.method === 'GET' && url.startsWith('/ui/'))
      return reply.type('text/html').sendFile('index.html');
    // Unrouted API paths (removed endpoints included) answer like every API response, CORS included where other
    // sites may call: a browser client then sees a 404 it can fall back from, not a network failure.
    if (isApiPath(url)) reply.header('Cache-Control', 'private, no-store');
    if (allowsCrossOrigin(url)) reply.header('Access-Control-Allow-Origin', '*');
    return reply.code(404).send({ error: 'Record not found' });
  });
  return app;
}

const API_PREFIXES = ['/api/', '/oauth/', '/.well-known/', '/nodeinfo/'];

// The social client is a general Mastodon client: it may reach any https server, and servers on this computer
// over plain http (another local instance), never plain http elsewhere.
const LOCAL_HTTP = 'http://127.0.0.1:* http://localhost:*';
const LOCAL_WS = 'ws://127.0.0.1:* ws://localhost:*';

export const UI_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  `img-src 'self' data: blob: https: ${LOCAL_HTTP}`,
  `media-src 'self' blob: https: ${LOCAL_HTTP}`,
  `connect-src 'self' https: wss: ${LOCAL_HTTP} ${LOCAL_WS}`,
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Answers `code` and ends the request (the hook's `done` is not called: no later hook, parser or handler runs); a
 * WebSocket upgrade owns its raw socket, so it is answered and closed there.
 */
function refuse(req: FastifyRequest, reply: FastifyReply, code: number, reason: string, error: string): void {
  if (req.headers.upgrade) {
    // Otherwise the socket would linger until shutdown.
    reply.hijack();
    req.raw.socket.end(`HTTP/1.1 ${code} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    return;
  }
  reply.code(code).header('Cache-Control', 'no-store').send({ error });
}

function isApiPath(url: string): boolean {
  return API_PREFIXES.some((prefix) => url.startsWith(prefix));
}
