import { Worker } from 'node:worker_threads';
import type dns from 'node:dns';
import { REMOTE_FETCH_LIMITS } from './remote-fetch.ts';

/*
 * Signs and POSTs deliveries on a worker thread: Fedify's per-delivery work on the main thread (a key import,
 * a WHATWG Request, the digest and signature, undici's fetch) cost about as much as everything else the server
 * does for a fan-out. The main thread keeps the queue and the bookkeeping (outbound-queue.ts). The worker
 * connects only to the addresses the main thread checked for the host (or, tests only, to any), gives up on a
 * peer silent for the deadline remote fetches have, and reads at most a few KiB of an answer.
 * The draft-cavage signature is made here with node:crypto, as Fedify makes it (every header sent signed, the
 * SHA-256 Digest of the body): Fedify's signer loads with its vocabulary and Temporal polyfill (about 200 ms of
 * CPU and 40 MiB in a thread) and works through WHATWG Requests, the per-request cost moved here. The test
 * checks the result with Fedify's own verifyRequest. Plain CommonJS source (eval worker), so it runs the same
 * from the TypeScript sources and from the bundled server.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const crypto = require('node:crypto');
const http = require('node:http');
const https = require('node:https');
const ANSWER_LIMIT = 16 * 1024;
const checked = new Map();
const lookup = (hostname, options, callback) => {
  const list = checked.get(hostname.toLowerCase());
  if (!list) return callback(Object.assign(new Error(hostname + ' was not checked'), { code: 'EPRIVATEADDRESS' }));
  const family = options.family === 4 || options.family === 6 ? options.family : 0;
  const wanted = family ? list.filter((a) => a.family === family) : list;
  if (wanted.length === 0) return callback(Object.assign(new Error('no address for ' + hostname), { code: 'ENOTFOUND' }));
  if (options.all) callback(null, wanted);
  else callback(null, wanted[0].address, wanted[0].family);
};
const agentOptions = { keepAlive: true, maxSockets: 4, ...(workerData.anyAddress ? {} : { lookup }) };
const agents = { 'http:': new http.Agent(agentOptions), 'https:': new https.Agent(agentOptions) };
const keys = new Map();
let results = [];
function report(result) {
  if (results.length === 0) setImmediate(() => { const sent = results; results = []; parentPort.postMessage(sent); });
  results.push(result);
}
function signedHeaders(url, job) {
  const headers = { ...job.headers };
  headers.host = url.host;
  headers.date = new Date().toUTCString();
  headers.digest = 'SHA-256=' + crypto.createHash('sha256').update(job.body).digest('base64');
  const names = Object.keys(headers).map((n) => n.toLowerCase()).sort();
  const lower = Object.fromEntries(Object.entries(headers).map(([n, v]) => [n.toLowerCase(), String(v).trim()]));
  const message = ['(request-target): post ' + url.pathname + url.search, ...names.map((n) => n + ': ' + lower[n])].join('\\n');
  const signature = crypto.sign('sha256', Buffer.from(message), keys.get(job.key)).toString('base64');
  lower.signature = 'keyId="' + job.keyId + '",algorithm="rsa-sha256",headers="(request-target) ' + names.join(' ') + '",signature="' + signature + '"';
  lower['content-length'] = String(Buffer.byteLength(job.body));
  return lower;
}
function deliver(job) {
  let done = false;
  const finish = (status, error) => {
    if (done) return;
    done = true;
    report(error ? { id: job.id, status, error } : { id: job.id, status });
  };
  try {
    if (job.jwk) keys.set(job.key, crypto.createPrivateKey({ key: job.jwk, format: 'jwk' }));
    const url = new URL(job.inbox);
    if (job.addresses) checked.set(url.hostname.toLowerCase(), job.addresses);
    const request = (url.protocol === 'https:' ? https : http).request(url, {
      method: 'POST',
      agent: agents[url.protocol],
      headers: signedHeaders(url, job),
      timeout: workerData.timeoutMs,
    });
    request.on('response', (response) => {
      finish(response.statusCode);
      let bytes = 0;
      response.on('data', (chunk) => { bytes += chunk.length; if (bytes > ANSWER_LIMIT) response.destroy(); });
      response.on('error', () => {});
    });
    request.on('timeout', () => request.destroy(new Error('no answer within ' + workerData.timeoutMs + ' ms')));
    request.on('error', (err) => finish(0, String(err.message || err)));
    request.end(job.body);
  } catch (err) {
    finish(0, String((err && err.message) || err));
  }
}
parentPort.on('message', (batch) => {
  for (const job of batch) deliver(job);
});
`;

/** One draft-cavage signed POST for the worker: the body already serialized, the key as Fedify queued it (JWK). */
export interface DeliveryJob {
  inbox: string;
  body: string;
  headers: Record<string, string>;
  keyId: string;
  jwk: JsonWebKey;
  /** The addresses the inbox's host was checked at (connections go only there); absent when any address is allowed. */
  addresses?: readonly dns.LookupAddress[];
}

/** The HTTP status the peer answered (0: no answer) and why it failed, if it did. */
interface DeliveryResult {
  status: number;
  error?: string;
}

type WorkerJob = Omit<DeliveryJob, 'jwk'> & { id: number; key: number; jwk?: JsonWebKey };

/**
 * The worker thread, started at the first delivery. Jobs handed over in one turn of the event loop go in one
 * message, and results come back the same way; a key goes to the thread once (the thread imports it once).
 */
export class DeliveryWorker {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, (result: DeliveryResult) => void>();
  private nextId = 1;
  private batch: WorkerJob[] = [];
  /** Keys the thread holds, by key id and RSA modulus, and the number it knows each by. */
  private readonly keys = new Map<string, number>();
  private readonly anyAddress: boolean;
  private readonly timeoutMs: number;

  constructor(options: { anyAddress?: boolean; timeoutMs?: number } = {}) {
    this.anyAddress = options.anyAddress ?? false;
    this.timeoutMs = options.timeoutMs ?? REMOTE_FETCH_LIMITS.timeoutMs;
  }

  deliver(job: DeliveryJob): Promise<DeliveryResult> {
    const id = this.nextId++;
    const { jwk, ...rest } = job;
    const keyName = `${job.keyId} ${jwk.n}`;
    let key = this.keys.get(keyName);
    const first = key === undefined;
    if (key === undefined) {
      key = this.keys.size + 1;
      this.keys.set(keyName, key);
    }
    if (this.batch.length === 0) setImmediate(() => this.flush());
    this.batch.push(first ? { ...rest, id, key, jwk } : { ...rest, id, key });
    return new Promise((resolve) => this.waiting.set(id, resolve));
  }

  /** Stops the thread; deliveries still in flight resolve as failed (no answer). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
    this.keys.clear();
    this.failAll('the delivery worker stopped');
  }

  private flush(): void {
    const batch = this.batch;
    this.batch = [];
    if (batch.length) this.thread().postMessage(batch);
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { anyAddress: this.anyAddress, timeoutMs: this.timeoutMs },
    });
    worker.on('message', (results: (DeliveryResult & { id: number })[]) => {
      for (const { id, ...result } of results) {
        const resolve = this.waiting.get(id);
        this.waiting.delete(id);
        resolve?.(result);
      }
    });
    worker.on('error', (err) => {
      if (this.worker !== worker) return;
      // A new thread knows no key: each is sent again.
      this.worker = null;
      this.keys.clear();
      this.failAll(`the delivery worker failed: ${err.message}`);
    });
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private failAll(error: string): void {
    for (const resolve of this.waiting.values()) resolve({ status: 0, error });
    this.waiting.clear();
  }
}
