import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type dns from 'node:dns';
import { REMOTE_FETCH_LIMITS } from './remote-fetch.ts';

/*
 * Signs and POSTs deliveries on a worker thread: Fedify's per-delivery work on the main thread (a key import,
 * a WHATWG Request, the digest and signature, undici's fetch) cost about as much as everything else the server
 * does for a fan-out. The main thread keeps the queue and the bookkeeping (outbound-queue.ts); the worker owns
 * an undici agent that connects only to the addresses the main thread checked for the host (or, tests only, to
 * any), with the deadlines remote fetches have. Signing goes through Fedify's own signRequest, so peers see
 * exactly what Fedify sends. Plain CommonJS source (eval worker), so it runs the same from the TypeScript
 * sources and from the bundled server; the packages' paths come in workerData.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { Agent, setGlobalDispatcher } = require(workerData.undici);
const { importJwk, signRequest } = require(workerData.sig);
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
setGlobalDispatcher(new Agent({
  headersTimeout: workerData.timeoutMs,
  bodyTimeout: workerData.timeoutMs,
  connect: { timeout: workerData.timeoutMs, ...(workerData.anyAddress ? {} : { lookup }) },
}));
const keys = new Map();
function keyOf(job) {
  const id = job.keyId + ' ' + job.jwk.n;
  let key = keys.get(id);
  if (!key) {
    key = importJwk(job.jwk, 'private');
    keys.set(id, key);
    key.catch(() => keys.delete(id));
  }
  return key;
}
let results = [];
function report(result) {
  if (results.length === 0) setImmediate(() => { const sent = results; results = []; parentPort.postMessage(sent); });
  results.push(result);
}
async function deliver(job) {
  try {
    const request = new Request(job.inbox, { method: 'POST', headers: job.headers, body: job.body });
    const signed = await signRequest(request, await keyOf(job), new URL(job.keyId), { spec: job.spec });
    const response = await fetch(signed, { redirect: 'manual' });
    await response.body?.cancel();
    report({ id: job.id, status: response.status });
  } catch (err) {
    report({ id: job.id, status: 0, error: String((err && err.cause && err.cause.message) || (err && err.message) || err) });
  }
}
parentPort.on('message', (batch) => {
  for (const job of batch) {
    if (job.addresses) checked.set(new URL(job.inbox).hostname.toLowerCase(), job.addresses);
    void deliver(job);
  }
});
`;

/** One signed POST for the worker: the body already serialized, the key as the JWK Fedify queued. */
export interface DeliveryJob {
  inbox: string;
  body: string;
  headers: Record<string, string>;
  keyId: string;
  jwk: JsonWebKey;
  spec: 'draft-cavage-http-signatures-12' | 'rfc9421';
  /** The addresses the inbox's host was checked at (connections go only there); absent when any address is allowed. */
  addresses?: readonly dns.LookupAddress[];
}

/** The HTTP status the peer answered (0: no answer) and why it failed, if it did. */
export interface DeliveryResult {
  status: number;
  error?: string;
}

/**
 * The worker thread, started at the first delivery. Jobs handed over in one turn of the event loop go in one
 * message, and results come back the same way.
 */
export class DeliveryWorker {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, (result: DeliveryResult) => void>();
  private nextId = 1;
  private batch: (DeliveryJob & { id: number })[] = [];
  private readonly anyAddress: boolean;
  private readonly timeoutMs: number;

  constructor(options: { anyAddress?: boolean; timeoutMs?: number } = {}) {
    this.anyAddress = options.anyAddress ?? false;
    this.timeoutMs = options.timeoutMs ?? REMOTE_FETCH_LIMITS.timeoutMs;
  }

  deliver(job: DeliveryJob): Promise<DeliveryResult> {
    const id = this.nextId++;
    if (this.batch.length === 0) setImmediate(() => this.flush());
    this.batch.push({ ...job, id });
    return new Promise((resolve) => this.waiting.set(id, resolve));
  }

  /** Stops the thread; deliveries still in flight resolve as failed (no answer). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
    this.failAll('the delivery worker stopped');
  }

  private flush(): void {
    const batch = this.batch;
    this.batch = [];
    if (batch.length) this.thread().postMessage(batch);
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const require = createRequire(import.meta.url);
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        undici: require.resolve('undici'),
        sig: require.resolve('@fedify/fedify/sig'),
        anyAddress: this.anyAddress,
        timeoutMs: this.timeoutMs,
      },
    });
    worker.on('message', (results: (DeliveryResult & { id: number })[]) => {
      for (const { id, ...result } of results) {
        const resolve = this.waiting.get(id);
        this.waiting.delete(id);
        resolve?.(result);
      }
    });
    worker.on('error', (err) => {
      if (this.worker === worker) this.worker = null;
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
