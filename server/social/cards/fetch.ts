import http from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';
import type { Readable } from 'node:stream';
import { privateLiteralRefusal, publicOnlyAgent } from '../../security/index.ts';

/*
 * GET requests to addresses people posted, made by the server on its own behalf: only http and https, never
 * to loopback or private addresses (publicOnlyAgent checks every connection: a name in the connection's own
 * DNS lookup, so it cannot resolve differently between check and connect; a literal address before the
 * socket opens; here literals are also refused before any request, with a clearer reason), redirects followed
 * a few times and each hop checked again, one deadline for the whole exchange, and never more than a set
 * number of bytes read (also after decompression).
 */

export interface SafeFetchOptions {
  /** Tests only: loopback and private addresses may be reached. */
  allowPrivateAddress?: boolean;
  userAgent: string;
}

export interface GetLimits {
  /** `Accept` header. */
  accept: string;
  /** Most bytes of body read (after decompression). */
  maxBytes: number;
  /** Past `maxBytes`: keep what was read (HTML, whose head is what matters) or give up (an image cut short is useless). */
  overflow: 'truncate' | 'refuse';
  /** Deadline for everything, redirects included. */
  timeoutMs: number;
  maxRedirects: number;
  /** Ends the request early (the server shutting down). */
  signal?: AbortSignal;
}

export interface Fetched {
  /** The address of the last response (after redirects). */
  url: string;
  status: number;
  /** Media type without parameters, lower case ("" when absent). */
  mediaType: string;
  charset: string | null;
  body: Buffer;
}

/** Why a fetch was not made or gave nothing usable; callers treat every case as "no card". */
export class FetchRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FetchRefused';
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export class SafeFetcher {
  private readonly allowPrivateAddress: boolean;
  private readonly userAgent: string;
  private readonly agents: { http: http.Agent; https: https.Agent };

  constructor(options: SafeFetchOptions) {
    this.allowPrivateAddress = options.allowPrivateAddress ?? false;
    this.userAgent = options.userAgent;
    const guard = { allowPrivateAddress: this.allowPrivateAddress };
    this.agents = { http: publicOnlyAgent('http:', guard), https: publicOnlyAgent('https:', guard) };
  }

  /** GETs `url`, following redirects; throws FetchRefused (or a network error) when nothing was read. */
  async get(url: string, limits: GetLimits): Promise<Fetched> {
    const signal = limits.signal
      ? AbortSignal.any([limits.signal, AbortSignal.timeout(limits.timeoutMs)])
      : AbortSignal.timeout(limits.timeoutMs);
    let current = this.checked(url);
    for (let hop = 0; ; hop++) {
      const res = await this.request(current, limits.accept, signal);
      const location = res.headers.location;
      if (REDIRECTS.has(res.statusCode ?? 0) && location) {
        res.destroy();
        if (hop >= limits.maxRedirects) throw new FetchRefused(`more than ${limits.maxRedirects} redirects`);
        current = this.checked(new URL(location, current).href);
        continue;
      }
      const contentType = res.headers['content-type'] ?? '';
      const [mediaType, ...params] = contentType.split(';').map((p) => p.trim());
      const charset =
        params.map((p) => /^charset\s*=\s*"?([^";]+)"?$/i.exec(p)?.[1] ?? null).find((c) => c !== null) ?? null;
      const result: Fetched = {
        url: current.href,
        status: res.statusCode ?? 0,
        mediaType: mediaType.toLowerCase(),
        charset,
        body: Buffer.alloc(0),
      };
      // The body is read only when it may be used: a 200 of an accepted type.
      if (result.status !== 200 || !accepts(limits.accept, result.mediaType)) {
        res.destroy();
        return result;
      }
      result.body = await readBounded(decoded(res), limits.maxBytes, limits.overflow, signal);
      return result;
    }
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  /** An http(s) URL whose host, when it is a literal address, is not private (names are checked by the agents' lookup). */
  private checked(address: string): URL {
    let url: URL;
    try {
      url = new URL(address);
    } catch {
      throw new FetchRefused(`not a URL: ${address.slice(0, 200)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new FetchRefused(`only http and https are fetched, not ${url.protocol}`);
    if (url.username || url.password) throw new FetchRefused('addresses with credentials are not fetched');
    const refusal = this.allowPrivateAddress ? null : privateLiteralRefusal(url.hostname);
    if (refusal) throw new FetchRefused(refusal.message);
    return url;
  }

  private request(url: URL, accept: string, signal: AbortSignal): Promise<http.IncomingMessage> {
    const transport = url.protocol === 'https:' ? https : http;
    const agent = url.protocol === 'https:' ? this.agents.https : this.agents.http;
    return new Promise((resolve, reject) => {
      const req = transport.get(
        url,
        {
          agent,
          signal,
          headers: { Accept: accept, 'Accept-Encoding': 'gzip, deflate, br', 'User-Agent': this.userAgent },
        },
        resolve,
      );
      req.on('error', reject);
    });
  }
}

/** Whether a response's media type is one of the `Accept` header's types (no wildcards but `image/*`). */
function accepts(accept: string, mediaType: string): boolean {
  return accept.split(',').some((entry) => {
    const type = entry.split(';')[0].trim().toLowerCase();
    return type === mediaType || (type.endsWith('/*') && mediaType.startsWith(type.slice(0, -1)));
  });
}

function decoded(res: http.IncomingMessage): Readable {
  const encoding = (res.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity' || encoding === '') return res;
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? zlib.createGunzip()
      : encoding === 'deflate'
        ? zlib.createInflate()
        : encoding === 'br'
          ? zlib.createBrotliDecompress()
          : null;
  if (!decoder) {
    res.destroy();
    throw new FetchRefused(`unknown content encoding ${encoding}`);
  }
  res.on('error', (err) => decoder.destroy(err));
  decoder.on('close', () => res.destroy());
  return res.pipe(decoder);
}

/** Reads at most `maxBytes`, then stops reading (the connection is closed): truncated, or refused. */
async function readBounded(
  stream: Readable,
  maxBytes: number,
  overflow: 'truncate' | 'refuse',
  signal: AbortSignal,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  const abort = () => stream.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
  signal.addEventListener('abort', abort, { once: true });
  try {
    for await (const chunk of stream) {
      const buffer = chunk as Buffer;
      if (size + buffer.length > maxBytes) {
        if (overflow === 'refuse') throw new FetchRefused(`larger than ${maxBytes} bytes`);
        chunks.push(buffer.subarray(0, maxBytes - size));
        size = maxBytes;
        break;
      }
      chunks.push(buffer);
      size += buffer.length;
    }
  } finally {
    signal.removeEventListener('abort', abort);
    stream.destroy();
  }
  return Buffer.concat(chunks, size);
}
