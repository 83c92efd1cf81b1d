import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';

/*
 * A fediverse server that answers to kill: every path names how (issue 32), for actor documents, keys and
 * WebFinger alike. `/<mode>` answers that way; WebFinger for `acct:<mode>@host` answers that way itself, and
 * for `acct:actor-<mode>@host` answers properly with `/<mode>` as the actor. What a client read of each answer
 * is recorded (`visits`), so a test sees that a fetch was cut short and that nothing more was asked.
 */

export const HOSTILE_MODES = ['gzip-bomb', 'brotli-bomb', 'endless', 'drip', 'big-actor'] as const;
export type HostileMode = (typeof HOSTILE_MODES)[number];

/** Decompressed size of the bombs: far past any limit, small enough that the old code's test run survives it. */
export const BOMB_BYTES = 512 * 1024 * 1024;
/** The endless body stops here (the old code would read it all). */
const ENDLESS_CAP = 1024 * 1024 * 1024;
/** The 50 MB actor of the issue (a summary that long). */
const BIG_ACTOR_BYTES = 50 * 1024 * 1024;

export interface Visit {
  path: string;
  mode: HostileMode | null;
  /** Bytes of body written before the client hung up or the answer ended. */
  sent: number;
  /** The client closed the connection before the answer's end. */
  cutShort: boolean;
  done: boolean;
}

export interface HostilePeer {
  /** `https://host:port` (or http). */
  origin: string;
  host: string;
  visits: Visit[];
  close(): Promise<void>;
}

let bombs: Promise<{ gzip: Buffer; brotli: Buffer }> | null = null;

/** The two bombs, made once per process: gzip as 512 members of 1 MiB of zeros, brotli in one stream. */
function makeBombs(): Promise<{ gzip: Buffer; brotli: Buffer }> {
  bombs ??= (async () => {
    const mebibyte = Buffer.alloc(1024 * 1024);
    const member = zlib.gzipSync(mebibyte, { level: 9 });
    const gzip = Buffer.concat(Array.from({ length: BOMB_BYTES / mebibyte.length }, () => member));
    const encoder = zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } });
    const chunks: Buffer[] = [];
    encoder.on('data', (chunk: Buffer) => chunks.push(chunk));
    const ended = new Promise((resolve) => encoder.on('end', resolve));
    for (let i = 0; i < BOMB_BYTES / mebibyte.length; i++)
      if (!encoder.write(mebibyte)) await new Promise((resolve) => encoder.once('drain', resolve));
    encoder.end();
    await ended;
    return { gzip, brotli: Buffer.concat(chunks) };
  })();
  return bombs;
}

/** Starts the peer on `address` (port 0: any), over TLS when `tls` is given. */
export async function startHostilePeer(options: {
  address: string;
  port?: number;
  tls?: { key: string; cert: string };
  /** The name clients use (default: the address and port). */
  host?: string;
  /** Answers what no mode names (default: 404), e.g. the actors that sign deliveries (hostile-actors.ts). */
  fallback?: http.RequestListener;
}): Promise<HostilePeer> {
  const { gzip, brotli } = await makeBombs();
  const visits: Visit[] = [];
  const sockets = new Set<import('node:net').Socket>();
  let origin = '';
  let host = '';

  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://peer');
    let mode = modeOf(url.pathname.split('/')[1]);
    if (url.pathname === '/.well-known/webfinger') {
      const user = /^acct:([^@]+)@/.exec(url.searchParams.get('resource') ?? '')?.[1] ?? '';
      const actorMode = modeOf(user.replace(/^actor-/, ''));
      if (user.startsWith('actor-') && actorMode) {
        res.writeHead(200, { 'content-type': 'application/jrd+json' });
        res.end(
          JSON.stringify({
            subject: `acct:${user}@${host}`,
            links: [{ rel: 'self', type: 'application/activity+json', href: `${origin}/${actorMode}` }],
          }),
        );
        return;
      }
      mode = modeOf(user);
    }
    const visit: Visit = { path: url.pathname + url.search, mode, sent: 0, cutShort: false, done: false };
    visits.push(visit);
    res.on('close', () => {
      visit.cutShort = !res.writableFinished;
      visit.done = true;
    });
    const write = (chunk: Buffer | string) => {
      visit.sent += Buffer.byteLength(chunk);
      return res.write(chunk);
    };
    const json = 'application/activity+json';
    switch (mode) {
      case 'gzip-bomb':
      case 'brotli-bomb': {
        const body = mode === 'gzip-bomb' ? gzip : brotli;
        res.writeHead(200, { 'content-type': json, 'content-encoding': mode === 'gzip-bomb' ? 'gzip' : 'br' });
        // In pieces, so a client that stops reading stops the sending.
        let at = 0;
        const next = () => {
          while (at < body.length && !res.destroyed) {
            const piece = body.subarray(at, at + 64 * 1024);
            at += piece.length;
            if (!write(piece)) return void res.once('drain', next);
          }
          if (!res.destroyed) res.end();
        };
        next();
        return;
      }
      case 'endless': {
        res.writeHead(200, { 'content-type': json });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        const next = () => {
          while (visit.sent < ENDLESS_CAP && !res.destroyed) if (!write(chunk)) return void res.once('drain', next);
          if (!res.destroyed) res.end();
        };
        write('{"type":"Person","summary":"');
        next();
        return;
      }
      case 'drip': {
        res.writeHead(200, { 'content-type': json });
        write('{');
        const timer = setInterval(() => {
          if (res.destroyed || visit.sent > 600) {
            clearInterval(timer);
            if (!res.destroyed) res.end();
          } else write(' ');
        }, 1000);
        res.on('close', () => clearInterval(timer));
        return;
      }
      case 'big-actor': {
        // Chunked (no Content-Length): only reading it tells its size.
        res.writeHead(200, { 'content-type': json });
        write(
          `{"@context":["https://www.w3.org/ns/activitystreams","https://w3id.org/security/v1"],"id":"${origin}/big-actor","type":"Person","preferredUsername":"big","inbox":"${origin}/inbox","summary":"`,
        );
        const chunk = Buffer.alloc(1024 * 1024, 0x61);
        let left = BIG_ACTOR_BYTES / chunk.length;
        const next = () => {
          while (left > 0 && !res.destroyed) {
            left--;
            if (!write(chunk)) return void res.once('drain', next);
          }
          if (!res.destroyed) res.end('"}');
        };
        next();
        return;
      }
      default:
        if (options.fallback) return void options.fallback(req, res);
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not here');
    }
  };

  const server = options.tls ? https.createServer(options.tls, handler) : http.createServer(handler);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.address, resolve));
  const port = (server.address() as AddressInfo).port;
  const defaultPort = options.tls ? 443 : 80;
  host = options.host ?? (port === defaultPort ? options.address : `${options.address}:${port}`);
  origin = `${options.tls ? 'https' : 'http'}://${host}`;
  return {
    origin,
    host,
    visits,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function modeOf(name: string | undefined): HostileMode | null {
  return (HOSTILE_MODES as readonly string[]).includes(name ?? '') ? (name as HostileMode) : null;
}
