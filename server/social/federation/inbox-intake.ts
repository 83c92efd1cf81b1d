import { verifyRequestDetailed, type KeyCache, type RequestContext } from '@fedify/fedify';
import type { CryptographicKey, Multikey } from '@fedify/vocab';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { FedDeps } from './deps.ts';
import { forgetGoneActor } from './inbox.ts';

/**
 * Bounds of the inbox. The largest activity of the fixtures corpus (Mastodon, Misskey, Pleroma, PeerTube,
 * Hubzilla… payloads) is 4.7 KB and its largest document of any kind 17 KB: 256 KiB leaves room for long
 * posts and big PeerTube videos while capping the work one request can cause.
 */
export interface InboxLimits {
  /** Largest activity body in bytes (413 beyond). */
  bodyBytes: number;
  /** Inbox requests verified and handed to Fedify at once (503 beyond). */
  handling: number;
  /** Verified activities waiting in the queue for their listeners, and their size (503 beyond). */
  backlogMessages: number;
  backlogBytes: number;
  /** What a refused peer is told to wait (its own retry schedule decides in the end). */
  retryAfterSeconds: number;
}

export const DEFAULT_INBOX_LIMITS: InboxLimits = {
  bodyBytes: 256 * 1024,
  handling: 16,
  backlogMessages: 2_000,
  backlogBytes: 32 * 1024 * 1024,
  retryAfterSeconds: 60,
};

/** What the delivery queue holds for the inbox (see SqliteMessageQueue.inboxBacklog). */
export type InboxBacklog = () => { messages: number; bytes: number };

/** The content types ActivityPub delivers with (Mastodon, Misskey, Pleroma, PeerTube… send the first). */
const ACTIVITY_TYPES = new Set(['application/activity+json', 'application/ld+json']);

/** Fedify's window (setup.ts): a signature dated further from now is refused. */
const SIGNATURE_TIME_WINDOW = { hours: 1 };

/** Verified keys are kept this long (peers rotate keys rarely; a failing check fetches the key again). */
const KEY_TTL_MS = 60 * 60 * 1000;
/** A key that could not be fetched is not asked for again this soon (Fedify's own cache waits as long). */
const UNAVAILABLE_KEY_TTL_MS = 10 * 60 * 1000;

type Key = CryptographicKey | Multikey;
interface KeyFetchFailure {
  status: number;
  response: Response;
}

/** Longest wait for another request's fetch of the same key (longer than a remote fetch may take). */
const SHARED_FETCH_WAIT_MS = 15_000;

/**
 * The keys the intake verified signatures with, in memory and bounded (Fedify's own key cache is internal to
 * its inbox handler, which verifies again once the intake let a request through). Requests signed with a key
 * being fetched wait for that fetch instead of fetching and parsing the same actor again (a burst from a new
 * peer would otherwise fetch its key once per request).
 */
class IntakeKeyCache implements KeyCache {
  private readonly keys = new LRUCache<string, { key: Key | null }>({ max: 2_000, ttl: KEY_TTL_MS });
  /** Only the status of a failed fetch is kept, not the answer's body (that could be large). */
  private readonly failures = new LRUCache<string, { status: number }>({ max: 2_000, ttl: UNAVAILABLE_KEY_TTL_MS });
  /** Keys being fetched: settled when the fetch stores its result (or after SHARED_FETCH_WAIT_MS). */
  private readonly fetching = new Map<string, { done: Promise<void>; settle: () => void }>();

  async get(keyId: URL): Promise<Key | null | undefined> {
    const cached = this.keys.get(keyId.href);
    if (cached) return cached.key;
    const inFlight = this.fetching.get(keyId.href);
    if (inFlight) {
      await inFlight.done;
      return this.keys.get(keyId.href)?.key;
    }
    // This caller fetches the key (Fedify does, on this miss); others wait for it.
    let settle = () => {};
    const done = new Promise<void>((resolve) => (settle = resolve));
    const timer = setTimeout(() => this.settle(keyId.href), SHARED_FETCH_WAIT_MS);
    timer.unref();
    this.fetching.set(keyId.href, {
      done,
      settle: () => {
        clearTimeout(timer);
        settle();
      },
    });
    return undefined;
  }

  async set(keyId: URL, key: Key | null): Promise<void> {
    this.keys.set(keyId.href, { key }, key === null ? { ttl: UNAVAILABLE_KEY_TTL_MS } : {});
    this.settle(keyId.href);
  }

  /** Why a key was unavailable, kept beside it (a 410 Gone says its account was deleted); null clears it. */
  async getFetchError(keyId: URL): Promise<KeyFetchFailure | undefined> {
    const failure = this.failures.get(keyId.href);
    return failure ? { status: failure.status, response: new Response(null, { status: failure.status }) } : undefined;
  }

  async setFetchError(keyId: URL, failure: KeyFetchFailure | null): Promise<void> {
    if (failure) this.failures.set(keyId.href, { status: failure.status });
    else this.failures.delete(keyId.href);
  }

  private settle(href: string): void {
    const inFlight = this.fetching.get(href);
    this.fetching.delete(href);
    inFlight?.settle();
  }
}

export type IntakeVerdict = { accepted: true } | { accepted: false; status: number; reason: string };

/**
 * The inbox's front door. Fedify's inbox handler reads Linked Data signatures (JSON-LD compaction and
 * canonicalisation of the whole body) before it looks at the HTTP signature, so any unsigned POST could make
 * it do seconds of work. The intake refuses by headers before the body is read (content type, a signature,
 * size, load), then verifies the HTTP signature itself before Fedify parses anything.
 */
export class InboxIntake {
  readonly limits: InboxLimits;
  private readonly deps: FedDeps;
  private readonly backlog: InboxBacklog;
  private readonly keyCache = new IntakeKeyCache();
  private handling = 0;

  constructor(deps: FedDeps, backlog: InboxBacklog, limits: Partial<InboxLimits> = {}) {
    this.deps = deps;
    this.backlog = backlog;
    this.limits = { ...DEFAULT_INBOX_LIMITS, ...limits };
  }

  /** fastify onRequest hook of the inbox routes: runs before any byte of the body is read. */
  readonly screen = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const type = String(req.headers['content-type'] ?? '')
      .split(';')[0]
      .trim()
      .toLowerCase();
    if (!ACTIVITY_TYPES.has(type))
      return refuse(reply, 415, 'An inbox takes application/activity+json or application/ld+json.');
    if (req.headers.signature === undefined && req.headers['signature-input'] === undefined)
      return refuse(reply, 401, 'An inbox delivery must carry an HTTP signature (Signature or Signature-Input).');
    const length = Number(req.headers['content-length']);
    if (Number.isFinite(length) && length > this.limits.bodyBytes)
      return refuse(reply, 413, `An activity may have at most ${this.limits.bodyBytes} bytes.`);
    if (this.busy()) return this.refuseBusy(reply);
    return undefined;
  };

  /** Whether another request may be handled now; each true must be followed by one `leave`. */
  enter(): boolean {
    if (this.busy()) return false;
    this.handling++;
    return true;
  }

  leave(): void {
    this.handling--;
  }

  refuseBusy(reply: FastifyReply): FastifyReply {
    this.deps.logger.info({ handling: this.handling, ...this.backlog() }, 'an inbox delivery was deferred: busy');
    return refuse(reply, 503, 'The inbox is busy; deliver again later.').header(
      'Retry-After',
      String(this.limits.retryAfterSeconds),
    );
  }

  /**
   * The HTTP signature, checked before Fedify reads the body: only a request signed by a key its server
   * serves goes on. A Delete of an account whose key answers 410 Gone from that account's own server is
   * the account's deletion (see forgetGoneActor), read as plain JSON.
   */
  async verify(request: Request, context: RequestContext<FedDeps>, body: Buffer): Promise<IntakeVerdict> {
    const result = await verifyRequestDetailed(request, {
      documentLoader: context.documentLoader,
      contextLoader: context.contextLoader,
      timeWindow: SIGNATURE_TIME_WINDOW,
      keyCache: this.keyCache,
    });
    if (result.verified) return { accepted: true };
    const reason = result.reason;
    if (reason.type === 'keyFetchError' && 'status' in reason.result && reason.result.status === 410) {
      const gone = deletedActorOf(body);
      if (gone && gone.origin === reason.keyId.origin) {
        forgetGoneActor(this.deps, gone);
        return { accepted: false, status: 202, reason: 'The account is gone.' };
      }
    }
    this.deps.logger.info(
      { reason: reason.type, keyId: 'keyId' in reason ? (reason.keyId?.href ?? null) : null },
      'an inbox delivery was refused: its HTTP signature did not verify',
    );
    return { accepted: false, status: 401, reason: 'The HTTP signature could not be verified.' };
  }

  private busy(): boolean {
    if (this.handling >= this.limits.handling) return true;
    const { messages, bytes } = this.backlog();
    return messages >= this.limits.backlogMessages || bytes >= this.limits.backlogBytes;
  }
}

function refuse(reply: FastifyReply, status: number, message: string): FastifyReply {
  // The body is not read: the connection closes instead of draining it.
  return reply.code(status).header('Connection', 'close').type('text/plain; charset=utf-8').send(message);
}

/** The actor of a Delete of itself (Mastodon's account deletion), from the raw JSON; null for anything else. */
function deletedActorOf(body: Buffer): URL | null {
  try {
    const activity = JSON.parse(body.toString('utf8')) as { type?: unknown; actor?: unknown; object?: unknown };
    const idOf = (v: unknown) => (typeof v === 'string' ? v : (v as { id?: unknown } | null)?.id);
    const actor = idOf(activity.actor);
    if (activity.type !== 'Delete' || typeof actor !== 'string' || idOf(activity.object) !== actor) return null;
    return new URL(actor);
  } catch {
    return null;
  }
}
