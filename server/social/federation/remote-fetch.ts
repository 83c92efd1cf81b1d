import http from 'node:http';
import https from 'node:https';
import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { PRIVATE_ADDRESS_CODE, privateLiteralRefusal, publicOnlyAgent } from '../../security/index.ts';

/*
 * Every request the federation makes for a remote document, key or WebFinger answer goes through one
 * RemoteFetcher: only http(s); the connection goes to the address its own DNS lookup checked (publicOnlyAgent,
 * so a name cannot resolve to a public address for a check and to loopback for the connect); literal private
 * addresses are refused before connecting; one deadline covers the whole exchange (redirects, headers and body);
 * the body is read as a stream and given up past a number of bytes as received and again after decompression
 * (a gzip or brotli bomb stops at the limit); at most a few redirects, each checked again.
 *
 * Fedify's loaders and WebFinger client call the global fetch, which has none of these bounds and resolves a
 * name twice (once in validatePublicUrl, again to connect), and take no fetch or dispatcher to use instead:
 * hence this fetcher over node:http with the guarded agents cards and push use.
 */

export interface RemoteFetchLimits {
  /** Deadline of one fetch, redirects, headers and body included. */
  timeoutMs: number;
  /** Most bytes of body after decompression. */
  maxBodyBytes: number;
  /** Most bytes of body as received (still compressed). */
  maxWireBytes: number;
  maxRedirects: number;
  /** Most bytes of bodies held at once over all fetches under way (many slow answers at once). */
  maxTotalBytes: number;
}

/**
 * Tests of a served process only: HOMEPORT_TEST_FETCH_DEADLINE_MS shortens the deadline (never lengthens it), so
 * that a peer dripping its answer is cut in a second, not ten.
 */
function deadlineMs(standard: number): number {
  const asked = Number(process.env.HOMEPORT_TEST_FETCH_DEADLINE_MS);
  return Number.isInteger(asked) && asked > 0 ? Math.min(asked, standard) : standard;
}

/** Mastodon reads at most 1 MiB of a remote ActivityPub or WebFinger answer, and waits 10 s for it. */
export const REMOTE_FETCH_LIMITS: RemoteFetchLimits = {
  timeoutMs: deadlineMs(10_000),
  maxBodyBytes: 1024 * 1024,
  maxWireBytes: 1024 * 1024,
  maxRedirects: 3,
  maxTotalBytes: 64 * 1024 * 1024,
};

/** Why a remote fetch gave nothing; `bounds` when the other server went past a limit (size, time, redirects). */
export class RemoteFetchError extends Error {
  readonly bounds: boolean;
  constructor(message: string, options: { bounds?: boolean; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'RemoteFetchError';
    this.bounds = options.bounds ?? false;
  }
}

export interface RemoteResponse {
  /** The address of the last response (after redirects). */
  url: string;
  status: number;
  headers: Headers;
  /** Decompressed; empty for redirects and when `readBody` said no. */
  body: Buffer;
}

export interface RemoteRequest {
  accept: string;
  /** Ends the fetch early (a caller's own deadline, shutdown); the fetcher's deadline applies anyway. */
  signal?: AbortSignal;
  /** Signs each request (each hop of a redirect again: the signature covers the target). */
  sign?: (request: Request) => Promise<Request>;
  /** Whether a response's body is wanted (default: 2xx only). */
  readBody?: (status: number) => boolean;
}

export interface RemoteFetcherOptions {
  userAgent: string;
  /** Tests only: loopback and private addresses may be reached. */
  allowPrivateAddress?: boolean;
  limits?: Partial<RemoteFetchLimits>;
  /**
   * Tests only: a fetch to exchange requests through instead of the network (the in-process test network).
   * Its answers are read with the same limits; the address checks are the network's, so they do not apply.
   */
  transport?: typeof fetch;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

interface RawResponse {
  status: number;
  headers: Headers;
  /** The body as received, still encoded. */
  body: Readable;
}

export class RemoteFetcher {
  readonly limits: RemoteFetchLimits;
  private readonly userAgent: string;
  private readonly allowPrivateAddress: boolean;
  private readonly transport: typeof fetch | null;
  /** Bytes of body held by the fetches under way (decompressed), against maxTotalBytes. */
  private heldBytes = 0;
  private readonly agents: { http: http.Agent; https: https.Agent };

  constructor(options: RemoteFetcherOptions) {
    this.limits = { ...REMOTE_FETCH_LIMITS, ...options.limits };
    this.userAgent = options.userAgent;
    this.allowPrivateAddress = options.allowPrivateAddress ?? false;
    this.transport = options.transport ?? null;
    const guard = { allowPrivateAddress: this.allowPrivateAddress };
    this.agents = { http: publicOnlyAgent('http:', guard), https: publicOnlyAgent('https:', guard) };
  }

  /** A deadline of this fetcher's length, to share among several fetches (a signed fetch knocking twice). */
  deadline(signal?: AbortSignal): AbortSignal {
    const timeout = AbortSignal.timeout(this.limits.timeoutMs);
    return signal ? AbortSignal.any([signal, timeout]) : timeout;
  }

  /** GETs `url`, following redirects; throws RemoteFetchError when nothing usable came back in bounds. */
  async get(url: string, request: RemoteRequest): Promise<RemoteResponse> {
    const signal = this.deadline(request.signal);
    try {
      return await this.follow(url, request, signal);
    } catch (err) {
      throw this.explained(err, signal, url);
    }
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  private async follow(url: string, request: RemoteRequest, signal: AbortSignal): Promise<RemoteResponse> {
    const visited = new Set<string>();
    let current = this.checked(url);
    for (let hop = 0; ; hop++) {
      visited.add(current.href);
      let headers = new Headers({
        Accept: request.accept,
        'Accept-Encoding': 'gzip, deflate, br',
        'User-Agent': this.userAgent,
      });
      if (request.sign) headers = (await request.sign(new Request(current, { headers }))).headers;
      const raw = await this.exchange(current, headers, signal);
      const location = raw.headers.get('location');
      if (REDIRECTS.has(raw.status) && location) {
        raw.body.destroy();
        if (hop >= this.limits.maxRedirects)
          throw new RemoteFetchError(`more than ${this.limits.maxRedirects} redirects from ${url}`, { bounds: true });
        const next = this.checked(new URL(location, current).href);
        if (visited.has(next.href)) throw new RemoteFetchError(`redirect loop at ${next.href}`, { bounds: true });
        current = next;
        continue;
      }
      const wanted = request.readBody ? request.readBody(raw.status) : raw.status >= 200 && raw.status < 300;
      if (!wanted) {
        raw.body.destroy();
        return { url: current.href, status: raw.status, headers: raw.headers, body: Buffer.alloc(0) };
      }
      const body = await this.readBounded(raw, signal);
      return { url: current.href, status: raw.status, headers: raw.headers, body };
    }
  }

  /** An http(s) URL without credentials whose host, when a literal address, is public (names: the lookup's job). */
  private checked(address: string): URL {
    let url: URL;
    try {
      url = new URL(address);
    } catch {
      throw new RemoteFetchError(`not a URL: ${address.slice(0, 200)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new RemoteFetchError(`only http and https are fetched, not ${url.protocol}`);
    if (url.username || url.password) throw new RemoteFetchError('addresses with credentials are not fetched');
    // The agents refuse it too; refused here, before any request is built.
    const refusal = this.allowPrivateAddress ? null : privateLiteralRefusal(url.hostname);
    if (refusal) throw new RemoteFetchError(refusal.message, { cause: refusal });
    return url;
  }

  private async exchange(url: URL, headers: Headers, signal: AbortSignal): Promise<RawResponse> {
    if (this.transport) {
      const res = await this.transport(url, { headers, redirect: 'manual', signal });
      return {
        status: res.status,
        headers: res.headers,
        body: res.body ? Readable.fromWeb(res.body as import('node:stream/web').ReadableStream) : Readable.from([]),
      };
    }
    const transport = url.protocol === 'https:' ? https : http;
    const agent = url.protocol === 'https:' ? this.agents.https : this.agents.http;
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = transport.get(url, { agent, signal, headers: Object.fromEntries(headers) }, resolve);
      req.on('error', reject);
    });
    const out = new Headers();
    for (const [name, value] of Object.entries(res.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) out.append(name, v);
    }
    return { status: res.statusCode ?? 0, headers: out, body: res };
  }

  /** The body, decompressed, read while within both byte limits and the deadline; the connection closes past them. */
  private async readBounded(raw: RawResponse, signal: AbortSignal): Promise<Buffer> {
    const { maxBodyBytes, maxWireBytes } = this.limits;
    const declared = Number(raw.headers.get('content-length') ?? Number.NaN);
    let decoders: Transform[];
    try {
      if (declared > maxWireBytes)
        throw new RemoteFetchError(`the answer is larger than ${maxWireBytes} bytes (${declared} declared)`, {
          bounds: true,
        });
      decoders = decoderFor(raw.headers.get('content-encoding'));
    } catch (err) {
      raw.body.destroy();
      throw err;
    }
    let wire = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        wire += chunk.length;
        if (wire > maxWireBytes)
          done(new RemoteFetchError(`the answer is larger than ${maxWireBytes} bytes`, { bounds: true }));
        else done(null, chunk);
      },
    });
    const chunks: Buffer[] = [];
    let size = 0;
    const fetcher = this;
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        fetcher.heldBytes += chunk.length;
        if (size > maxBodyBytes)
          return done(
            new RemoteFetchError(`the answer is larger than ${maxBodyBytes} bytes once decompressed`, { bounds: true }),
          );
        if (fetcher.heldBytes > fetcher.limits.maxTotalBytes)
          return done(
            new RemoteFetchError(
              `remote answers being read already hold ${fetcher.limits.maxTotalBytes} bytes; try again later`,
              { bounds: true },
            ),
          );
        chunks.push(chunk);
        done();
      },
    });
    try {
      await pipeline([raw.body, meter, ...decoders, sink], { signal });
    } finally {
      this.heldBytes -= size;
    }
    return Buffer.concat(chunks, size);
  }

  /** Any failure as a RemoteFetchError saying what happened in words (the deadline, a refused address…). */
  private explained(err: unknown, signal: AbortSignal, url: string): RemoteFetchError {
    if (err instanceof RemoteFetchError) return err;
    if (signal.aborted) {
      const reason = signal.reason as Error | undefined;
      if (reason?.name === 'TimeoutError')
        return new RemoteFetchError(`${url} did not answer in full within ${this.limits.timeoutMs / 1000} s`, {
          bounds: true,
          cause: err,
        });
      return new RemoteFetchError(`the fetch of ${url} was stopped`, { cause: err });
    }
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    if (code === PRIVATE_ADDRESS_CODE) return new RemoteFetchError((err as Error).message, { cause: err });
    if (code?.startsWith('Z_') || code?.startsWith('ERR__ERROR_FORMAT'))
      return new RemoteFetchError(`the answer of ${url} could not be decompressed`, { cause: err });
    return new RemoteFetchError(`${url} could not be fetched: ${(err as Error)?.message ?? String(err)}`, {
      cause: err,
    });
  }
}

/** The decompressing stage for a Content-Encoding (none for identity); an unknown one is refused. */
function decoderFor(header: string | null): Transform[] {
  const encoding = (header ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity' || encoding === '') return [];
  if (encoding === 'gzip' || encoding === 'x-gzip') return [zlib.createGunzip()];
  if (encoding === 'deflate') return [zlib.createInflate()];
  if (encoding === 'br') return [zlib.createBrotliDecompress()];
  throw new RemoteFetchError(`unknown content encoding ${encoding.slice(0, 40)}`);
}
