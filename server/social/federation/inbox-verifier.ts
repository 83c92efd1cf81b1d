import { Worker } from 'node:worker_threads';
import { reuseExpansions } from './inbox-expansions.ts';
import { type PlainCreate, plainCreateReader } from './inbox-plain-create.ts';
import { verifiesLikeFedify } from './inbox-signature.ts';
import { sanitizeRemoteHtmlWith } from './html.ts';
import { skipExpandedDocuments } from './jsonld-expanded.ts';
import { FALLBACK_CONTEXT, fallbackContextReads } from './loaders.ts';

/**
 * A delivery's parts as the worker reads them: the request (its signature covers method, target and
 * headers; its Digest the body) and the key the intake already holds for its keyId.
 */
export interface VerifierJob {
  url: string;
  method: string;
  headers: [string, string][];
  body: Uint8Array;
  key: { id: string; owner: string; jwk: JsonWebKey };
  /** Whether the activity is then read as JSON-LD, to check that its actor is the key's owner. */
  readActor: boolean;
  /**
   * Whether the reading's JSON-LD expansion is handed back (see inbox-expansions.ts), or instead the fields of a
   * plain Create (see inbox-plain-create.ts).
   */
  handExpansion: boolean;
}

/**
 * What the worker found: `verified` false sends the request to the intake's own verification (a rotated key is
 * fetched again there, an unknown one reported). `actor`: the reading of the activity when asked for.
 */
export type VerifierAnswer = { verified: false } | { verified: true; actor: VerifiedActor | null };

/**
 * The activity's actor as JSON-LD reads it: the key's owner (with the activity's expansion when asked for), or why
 * the activity is refused.
 */
export type VerifiedActor =
  | { ok: true; expanded?: string; plain?: PlainCreate }
  | { ok: false; status: number; reason: string };

/**
 * Signatures the worker verified so far, of those the ones its own check took, and the activities its plain reader
 * took without Fedify's reading (tests count them).
 */
export const offThreadVerifications = { count: 0, ownCheck: 0, plainReading: 0 };
/** Of fallbackContextReads, those the worker made (tests tell the main thread's apart). */
export const offThreadContextReads = { count: 0 };

/** The worker stops after this long without a delivery (its Fedify and caches give their memory back). */
const IDLE_STOP_MS = 60_000;
/** After the worker failed (it could not load Fedify, it crashed), the main thread verifies for this long. */
const FAILED_PAUSE_MS = 10 * 60_000;

/*
 * The worker, as plain JavaScript evaluated by Node (the server's bundle keeps packages external and would not
 * find a file of its own): Fedify's own verification and reading of the activity, with contexts from Fedify's
 * preloaded set or the fallback context, never fetched, and no document fetched at all (the key comes along).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const ready = (async () => {
  const { verifyRequestDetailed } = await import(workerData.modules.fedify);
  const { Activity, CryptographicKey } = await import(workerData.modules.vocab);
  const { preloadedContexts } = await import(workerData.modules.runtime);
  const jsonld = (await import(workerData.modules.jsonld)).default;
  (${skipExpandedDocuments.toString()})(jsonld);
  // Fedify's reader expands the activity once per class level: the first expansion serves them all.
  const expansions = new WeakMap();
  (${reuseExpansions.toString()})(jsonld, expansions, { count: 0 });
  const sanitizeHtml = (await import(workerData.modules.sanitizeHtml)).default;
  const sanitizeWith = ${sanitizeRemoteHtmlWith.toString()};
  const sanitize = (html) => sanitizeWith(sanitizeHtml, html);
  const readPlainCreate = (${plainCreateReader.toString()})(sanitize);
  const nodeCrypto = require('node:crypto');
  const verifiesLikeFedify = ${verifiesLikeFedify.toString()};
  let fallbackReads = 0;
  const contextLoader = async (url) => {
    if (url in preloadedContexts) return { contextUrl: null, documentUrl: url, document: preloadedContexts[url] };
    const secure = url.replace(/^http:\\/\\//, 'https://');
    if (secure in preloadedContexts) return { contextUrl: null, documentUrl: url, document: preloadedContexts[secure] };
    fallbackReads++;
    return { contextUrl: null, documentUrl: url, document: { '@context': workerData.fallbackContext } };
  };
  const documentLoader = (url) => Promise.reject(new Error('not fetched here: ' + url));
  const keys = new Map();
  const nodeKeys = new Map();
  const nodeKeyOf = (k) => {
    const cacheKey = k.id + ' ' + k.jwk.n + ' ' + k.jwk.e;
    let key = nodeKeys.get(cacheKey);
    if (!key) {
      key = nodeCrypto.createPublicKey({ key: k.jwk, format: 'jwk' });
      if (nodeKeys.size >= 1000) nodeKeys.delete(nodeKeys.keys().next().value);
      nodeKeys.set(cacheKey, key);
    }
    return key;
  };
  const keyOf = async (k) => {
    const cacheKey = k.id + ' ' + k.owner + ' ' + k.jwk.n + ' ' + k.jwk.e;
    let key = keys.get(cacheKey);
    if (!key) {
      const publicKey = await crypto.subtle.importKey('jwk', k.jwk, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, true, ['verify']);
      key = new CryptographicKey({ id: new URL(k.id), owner: new URL(k.owner), publicKey });
      if (keys.size >= 1000) keys.delete(keys.keys().next().value);
      keys.set(cacheKey, key);
    }
    return key;
  };
  // Fedify's verification, unless the check of inbox-signature.ts (the same, in the common shape) accepts it.
  let ownChecks = 0;
  let plainReadings = 0;
  const verified = async (job) => {
    if (verifiesLikeFedify(job, nodeKeyOf(job.key), nodeCrypto, Date.now())) {
      ownChecks++;
      return true;
    }
    const key = await keyOf(job.key);
    const request = new Request(job.url, { method: job.method, headers: job.headers, body: job.body });
    const result = await verifyRequestDetailed(request, {
      documentLoader,
      contextLoader,
      timeWindow: { hours: 1 },
      keyCache: { get: async (id) => (id.href === job.key.id ? key : undefined), set: async () => {} },
    });
    return result.verified && result.key.id?.href === job.key.id;
  };
  const handle = async (job) => {
    if (!(await verified(job))) return { verified: false };
    if (!job.readActor) return { verified: true, actor: null };
    let json;
    let expansion;
    try {
      json = JSON.parse(Buffer.from(job.body).toString('utf8'));
      // As Fedify's reader expands it (inbox-expansions.ts hands this to the main thread's reading).
      if (json !== null && typeof json === 'object')
        expansion = await jsonld.expand(json, { documentLoader: contextLoader, keepFreeFloatingNodes: true });
    } catch (err) {
      return { verified: true, actor: { ok: false, status: 400, reason: 'Invalid activity: ' + (err && err.message) } };
    }
    // A plain Create the reader takes is one Fedify's reading takes too (inbox-plain-create.ts): that reading is
    // left out. A reader's failure leaves the activity to Fedify's reading.
    let plain = null;
    try {
      if (job.handExpansion && expansion !== undefined) plain = readPlainCreate(expansion);
    } catch {
      plain = null;
    }
    if (plain !== null) {
      plainReadings++;
      if (plain.actor !== job.key.owner)
        return { verified: true, actor: { ok: false, status: 401, reason: 'The signer and the actor do not match.' } };
      return { verified: true, actor: { ok: true, plain } };
    }
    let activity;
    let expanded;
    try {
      if (expansion !== undefined) {
        expanded = JSON.stringify(expansion);
        expansions.set(json, expanded);
      }
      activity = await Activity.fromJsonLd(json, { documentLoader, contextLoader });
    } catch (err) {
      return { verified: true, actor: { ok: false, status: 400, reason: 'Invalid activity: ' + (err && err.message) } };
    }
    if (activity.actorId === null) return { verified: true, actor: { ok: false, status: 400, reason: 'Missing actor.' } };
    if (activity.actorId.href !== job.key.owner)
      return { verified: true, actor: { ok: false, status: 401, reason: 'The signer and the actor do not match.' } };
    if (!job.handExpansion || typeof expanded !== 'string') return { verified: true, actor: { ok: true } };
    return { verified: true, actor: { ok: true, expanded } };
  };
  const takeCounts = () => {
    const counts = { reads: fallbackReads, ownChecks, plainReadings };
    fallbackReads = 0;
    ownChecks = 0;
    plainReadings = 0;
    return counts;
  };
  return { handle, takeCounts };
})();
parentPort.on('message', async ({ id, job }) => {
  const { handle, takeCounts } = await ready;
  try {
    const answer = await handle(job);
    parentPort.postMessage({ id, answer, ...takeCounts() });
  } catch (err) {
    parentPort.postMessage({ id, error: String(err && err.message), ...takeCounts() });
  }
});
`;

interface Pending {
  resolve: (answer: VerifierAnswer) => void;
}

/**
 * Checks inbox deliveries off the main thread: the HTTP signature with a key the intake already holds, and
 * the activity's actor read as JSON-LD: in the common shapes by its own code (inbox-signature.ts, and for a plain
 * Create inbox-plain-create.ts), otherwise by Fedify's, in a worker thread started at the first delivery and
 * stopped when idle. Any failure of the worker answers `verified: false`: the intake then verifies on the main
 * thread, as it would without it.
 */
export class InboxVerifier {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | null = null;
  private failedAt = Number.NEGATIVE_INFINITY;

  verify(job: VerifierJob): Promise<VerifierAnswer> {
    if (Date.now() - this.failedAt < FAILED_PAUSE_MS) return Promise.resolve({ verified: false });
    const worker = this.started();
    const id = this.nextId++;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    return new Promise<VerifierAnswer>((resolve) => {
      this.pending.set(id, { resolve });
      // The body is the job's own copy: moved to the worker, not copied again.
      worker.postMessage({ id, job }, [job.body.buffer as ArrayBuffer]);
    });
  }

  close(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const worker = this.worker;
    this.worker = null;
    this.failAll();
    void worker?.terminate();
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const resolve = (specifier: string) => import.meta.resolve(specifier);
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        modules: {
          fedify: resolve('@fedify/fedify'),
          vocab: resolve('@fedify/vocab'),
          runtime: resolve('@fedify/vocab-runtime'),
          jsonld: resolve('@fedify/vocab-runtime/jsonld'),
          sanitizeHtml: resolve('sanitize-html'),
        },
        fallbackContext: FALLBACK_CONTEXT,
      },
    });
    worker.unref();
    worker.on(
      'message',
      (m: {
        id: number;
        answer?: VerifierAnswer;
        reads?: number;
        ownChecks?: number;
        plainReadings?: number;
        error?: string;
      }) => {
        const pending = this.pending.get(m.id);
        this.pending.delete(m.id);
        fallbackContextReads.count += m.reads ?? 0;
        offThreadContextReads.count += m.reads ?? 0;
        if (m.answer?.verified) offThreadVerifications.count++;
        offThreadVerifications.ownCheck += m.ownChecks ?? 0;
        offThreadVerifications.plainReading += m.plainReadings ?? 0;
        pending?.resolve(m.answer ?? { verified: false });
        if (this.pending.size === 0 && this.worker === worker) this.stopWhenIdle();
      },
    );
    const ended = () => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.failAll();
    };
    worker.on('error', () => {
      this.failedAt = Date.now();
      ended();
    });
    worker.on('exit', ended);
    this.worker = worker;
    return worker;
  }

  private stopWhenIdle(): void {
    this.idleTimer = setTimeout(() => this.close(), IDLE_STOP_MS);
    this.idleTimer.unref();
  }

  private failAll(): void {
    for (const pending of this.pending.values()) pending.resolve({ verified: false });
    this.pending.clear();
  }
}
