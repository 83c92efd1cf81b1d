import { verifyRequestDetailed, type RequestContext } from '@fedify/fedify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { safeUrl, type FedDeps } from './deps.ts';
import { forgetGoneActor } from './inbox.ts';
import { type EnqueueMessage, queueVerifiedActivity, type VerifiedSigner } from './inbox-handover.ts';
import { IntakeKeyCache } from './inbox-key-cache.ts';
import { InboxVerifier, type VerifiedActor } from './inbox-verifier.ts';
import { DEFAULT_INBOX_LIMITS, type InboxLimits } from './inbox-limits.ts';
import { oversizedActivity } from './inbound-limits.ts';

/** What the delivery queue holds for the inbox (see SqliteMessageQueue.inboxBacklog). */
export type InboxBacklog = () => { messages: number; bytes: number };

/** The content types ActivityPub delivers with (Mastodon, Misskey, Pleroma, PeerTube… send the first). */
const ACTIVITY_TYPES = new Set(['application/activity+json', 'application/ld+json']);

/** Fedify's window (setup.ts): a signature dated further from now is refused. */
const SIGNATURE_TIME_WINDOW = { hours: 1 };

/** A request the intake took: its place is given back once it is answered (closed) and not working. */
interface Taken {
  closed: boolean;
  working: boolean;
  released: boolean;
}

/**
 * A delivery as Fedify takes it, made only when needed: its Web Request (read by Fedify's verification) and Fedify's
 * context for it; `url` is the request's public URL. A delivery the verifier's worker checks and the intake queues
 * itself needs neither.
 */
export interface InboxDelivery {
  url: string;
  request: () => Request;
  context: () => RequestContext<FedDeps>;
}

/**
 * A verified request; `direct` when it may skip Fedify's handler (see queueVerifiedActivity).
 */
type IntakeVerdict =
  | { accepted: true; direct: VerifiedSigner | null }
  | { accepted: false; status: number; reason: string };

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
  private readonly enqueue: EnqueueMessage | null;
  private readonly keyCache = new IntakeKeyCache();
  /** Verifies with keys already held, off the main thread; null: everything on the main thread. */
  private readonly verifier: InboxVerifier | null;
  /** Requests taken (screened in, not yet answered and done with). */
  private taken = 0;
  private readonly states = new WeakMap<FastifyRequest, Taken>();
  private readonly turns: Turns;
  private readonly largeTurns = new Turns(1);
  /** Refusals for load are logged once per busy spell, not once per request of a flood. */
  private busySpell = false;

  /** `enqueue`: Fedify's queue, where verified shared-inbox deliveries go without Fedify's handler. */
  constructor(
    deps: FedDeps,
    backlog: InboxBacklog,
    limits: Partial<InboxLimits> = {},
    enqueue: EnqueueMessage | null = null,
  ) {
    this.deps = deps;
    this.backlog = backlog;
    this.enqueue = enqueue;
    this.limits = { ...DEFAULT_INBOX_LIMITS, ...limits };
    this.verifier = this.limits.verifyInWorker ? new InboxVerifier() : null;
    this.turns = new Turns(this.limits.handling);
    // A gone actor's keys: refused by id from now on, not verified with what was kept of them.
    deps.gone.onActorGone((actor) => {
      for (const keyId of this.keyCache.forgetOwner(actor)) deps.gone.keyGone(keyId);
    });
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
    // Taken until both its answer is sent (or the client went away) and its handling ended: a client that
    // leaves early does not free the place of work still running for it.
    this.busySpell = false;
    this.taken++;
    const state: Taken = { closed: false, working: false, released: false };
    this.states.set(req, state);
    reply.raw.once('close', () => {
      state.closed = true;
      this.release(state);
    });
    return undefined;
  };

  private release(state: Taken): void {
    if (state.released || !state.closed || state.working) return;
    state.released = true;
    this.taken--;
  }

  /**
   * Verifies a screened request's signature (`json`: its body parsed once, by inboxBodyJson), then hands it to
   * Fedify (`deliver`) in its turn: at most
   * `handling` at once, verified large bodies in a lane of their own, one at a time (a large body finding too
   * many waiting there is deferred: 503).
   */
  async handle(
    req: FastifyRequest,
    reply: FastifyReply,
    delivery: InboxDelivery,
    deliver: () => Promise<FastifyReply>,
    json: unknown,
  ): Promise<FastifyReply> {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const state = this.states.get(req);
    if (state) state.working = true;
    try {
      // Waiting on a key's server is not Fedify's work: `requests` bounds it, not the turns.
      const verdict = await this.verify(req, delivery, body, json);
      if (!verdict.accepted) return answer(reply, verdict.status, verdict.reason);
      // Signed, but before it is read whole: see inbound-limits.ts.
      const oversized = json === undefined ? null : oversizedActivity(json);
      if (oversized) {
        this.deps.logger.info({ reason: oversized }, 'an inbox delivery too large to read was refused');
        return answer(reply, 413, `Activity refused: ${oversized}`);
      }
      const { direct } = verdict;
      const handOver =
        direct !== null && this.enqueue !== null && typeof json === 'object' && json !== null
          ? () => this.queueDirectly(reply, delivery, json, direct)
          : deliver;
      if (body.length <= this.limits.largeBytes) return await this.turns.run(handOver);
      if (this.largeTurns.waitingCount() >= this.limits.largeWaiting) return this.refuseBusy(reply);
      return await this.largeTurns.run(handOver);
    } finally {
      if (state) {
        state.working = false;
        this.release(state);
      }
    }
  }

  private async queueDirectly(
    reply: FastifyReply,
    delivery: InboxDelivery,
    json: object,
    direct: VerifiedSigner,
  ): Promise<FastifyReply> {
    const verdict = await queueVerifiedActivity(
      new URL(delivery.url).origin,
      delivery.context,
      json,
      direct,
      this.enqueue!,
    );
    return verdict.queued ? answer(reply, 202, 'Activity is enqueued.') : answer(reply, verdict.status, verdict.reason);
  }

  private refuseBusy(reply: FastifyReply): FastifyReply {
    if (!this.busySpell)
      this.deps.logger.warn({ requests: this.taken, ...this.backlog() }, 'the inbox is busy: deliveries are deferred');
    this.busySpell = true;
    // The header before the answer is sent: once every onSend hook is synchronous, send() writes at once.
    reply.header('Retry-After', String(this.limits.retryAfterSeconds));
    return refuse(reply, 503, 'The inbox is busy; deliver again later.');
  }

  /**
   * The HTTP signature, checked before Fedify reads the body: only a request signed by a key its server
   * serves goes on. A Delete of an account whose key answers 410 Gone from that account's own server is
   * the account's deletion (see forgetGoneActor), read as plain JSON.
   */
  private async verify(
    req: FastifyRequest,
    delivery: InboxDelivery,
    body: Buffer,
    json: unknown,
  ): Promise<IntakeVerdict> {
    const activity = plainActivity(json);
    const gone = this.goneSigner(signatureKeyId(req), activity);
    if (gone) return gone;
    const shared = new URL(delivery.url).pathname === '/inbox' && activity !== null;
    // Whether it may skip Fedify's handler once signed by `owner`'s key `keyId`. The Linked Data signature of a
    // Create (Mastodon signs its public posts with one) by the very key that signed the request, its actor's,
    // proves nothing more: it is not checked then (Mastodon checks one only for a request another actor signed;
    // Fedify would canonicalise the activity for it, about 12 ms of CPU). The actor as JSON-LD reads it must still
    // be that signer (queueVerifiedActivity). Other signed activities keep Fedify's handling (a Delete may be
    // forwarded, signed).
    const ldSignedCreateBy = (owner: string | undefined, keyId: string | null) =>
      activity?.type === 'Create' && activity.ldSigner === keyId && owner !== undefined && activity.actor === owner;
    const direct = (owner: string | undefined, keyId: string | null) =>
      shared && (!activity.selfSigned || ldSignedCreateBy(owner, keyId));
    const offThread = await this.verifyOffThread(req, delivery.url, body, direct);
    if (offThread) return this.signedBy(offThread.keyId, offThread.owner, activity, direct, offThread.actor);
    const context = delivery.context();
    const result = await verifyRequestDetailed(delivery.request(), {
      documentLoader: context.documentLoader,
      contextLoader: context.contextLoader,
      timeWindow: SIGNATURE_TIME_WINDOW,
      keyCache: this.keyCache,
    });
    if (result.verified) return this.signedBy(result.key.id?.href ?? null, result.key.ownerId?.href, activity, direct);
    const reason = result.reason;
    if (reason.type === 'keyFetchError' && 'status' in reason.result && reason.result.status === 410) {
      const gone = activity?.type === 'Delete' && activity.actor === activity.object ? safeUrl(activity.actor) : null;
      if (gone && gone.origin === reason.keyId.origin) {
        forgetGoneActor(this.deps, gone);
        return { accepted: false, status: 202, reason: 'The account is gone.' };
      }
      // Not asked for again per activity while it is gone (see GoneActors).
      this.deps.gone.keyGone(reason.keyId.href);
    }
    this.deps.logger.info(
      { reason: reason.type, keyId: 'keyId' in reason ? (reason.keyId?.href ?? null) : null },
      'an inbox delivery was refused: its HTTP signature did not verify',
    );
    return { accepted: false, status: 401, reason: 'The HTTP signature could not be verified.' };
  }

  /**
   * A request signed by a key known to be gone, or whose actor is: refused at once, with no fetch and no
   * verification (a Delete of that actor sent again is taken, as Mastodon takes one of an account it does not know).
   */
  private goneSigner(keyId: string | null, activity: PlainActivity | null): IntakeVerdict | null {
    const gone = this.deps.gone;
    const actor = activity?.actor ?? null;
    if (!(keyId !== null && gone.has(keyId)) && !(actor !== null && gone.has(actor))) return null;
    if (activity?.type === 'Delete' && actor !== null && activity.object === actor)
      return { accepted: false, status: 202, reason: 'The account is gone.' };
    return { accepted: false, status: 401, reason: 'The account that signed this activity is gone.' };
  }

  /**
   * Signed by `owner`'s key: refused when someone else than its actor signed it, with no Linked Data signature
   * or proof of the actor's own (as a relay forwards) to check, before Fedify reads it (Fedify would refuse it
   * after, as it compares the key's owner and the actor the same way). `actor`: the worker's JSON-LD reading.
   */
  private signedBy(
    keyId: string | null,
    owner: string | undefined,
    activity: PlainActivity | null,
    direct: (owner: string | undefined, keyId: string | null) => boolean,
    actor: VerifiedActor | null = null,
  ): IntakeVerdict {
    if (owner && this.deps.gone.has(owner))
      return { accepted: false, status: 401, reason: 'The account that signed this activity is gone.' };
    if (owner && activity?.actor && !activity.selfSigned && activity.actor !== owner) {
      this.deps.logger.info(
        { keyId, actor: activity.actor },
        'an inbox delivery was refused: its signer is not its actor',
      );
      return { accepted: false, status: 401, reason: 'The signer and the actor do not match.' };
    }
    if (actor && !actor.ok) return { accepted: false, status: actor.status, reason: actor.reason };
    const expanded = actor?.ok ? actor.expanded : undefined;
    // The worker read the Create's actor from the same expansion as Fedify's reader did: the signer, or no reading.
    const plain = actor?.ok && actor.plain?.actor === owner ? actor.plain : undefined;
    return {
      accepted: true,
      direct: direct(owner, keyId) && owner ? { owner, actorChecked: actor?.ok === true, expanded, plain } : null,
    };
  }

  /**
   * The signature checked in the verifier's worker when its key is held already (a draft-cavage keyId, an RSA
   * key), with the activity's actor read there too when it may skip Fedify's handler; null when the main
   * thread must verify (a new or rotated key, another scheme, a failed check).
   */
  private async verifyOffThread(
    req: FastifyRequest,
    url: string,
    body: Buffer,
    direct: (owner: string, keyId: string) => boolean,
  ): Promise<{ keyId: string; owner: string; actor: VerifiedActor | null } | null> {
    const keyId = this.verifier && draftCavageKeyId(req);
    const held = keyId ? await this.keyCache.heldRsaKey(keyId) : null;
    if (!keyId || !held || !this.verifier) return null;
    const readActor = direct(held.owner, keyId);
    const answer = await this.verifier.verify({
      url,
      method: req.method,
      // As the Web Request Fedify would read carries them (routes.ts): each value of each header.
      headers: Object.entries(req.headers).flatMap(([name, value]): [string, string][] =>
        value === undefined ? [] : (Array.isArray(value) ? value : [value]).map((v) => [name, v]),
      ),
      body: new Uint8Array(body),
      key: { id: keyId, owner: held.owner, jwk: held.jwk },
      readActor,
      // Large bodies' expansions would crowd the queue's byte bound; those are read again on the main thread.
      handExpansion: readActor && body.length <= this.limits.largeBytes,
    });
    return answer.verified ? { keyId, owner: held.owner, actor: answer.actor } : null;
  }

  close(): void {
    this.verifier?.close();
  }

  private busy(): boolean {
    if (this.taken >= this.limits.requests) return true;
    const { messages, bytes } = this.backlog();
    return messages >= this.limits.backlogMessages || bytes >= this.limits.backlogBytes;
  }
}

/**
 * An answer before the body is read. Node discards what of the body still comes (nothing is kept); an oversize
 * one ends the connection instead (closing at once on a small unread body would reset it before the client
 * read the answer).
 */
function refuse(reply: FastifyReply, status: number, message: string): FastifyReply {
  if (status === 413) reply.header('Connection', 'close');
  return reply.code(status).type('text/plain; charset=utf-8').send(message);
}

function answer(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).type('text/plain; charset=utf-8').send(message);
}

/**
 * What the intake reads of an activity, from the raw JSON (no JSON-LD): its type, the ids of its actor and
 * object, and whether it carries a signature of its own (a Linked Data signature or an integrity proof).
 */
interface PlainActivity {
  type: unknown;
  actor: string | null;
  object: string | null;
  selfSigned: boolean;
  /** The key of its Linked Data signature, when it has one and no integrity proof. */
  ldSigner: string | null;
}

/** The keyId of a draft-cavage Signature header, or null. */
function draftCavageKeyId(req: FastifyRequest): string | null {
  const signature = req.headers.signature;
  return /keyId="([^"]+)"/.exec(typeof signature === 'string' ? signature : '')?.[1] ?? null;
}

/** The key a request says it is signed with (draft-cavage's keyId, RFC 9421's keyid), or null. */
function signatureKeyId(req: FastifyRequest): string | null {
  const input = req.headers['signature-input'];
  return draftCavageKeyId(req) ?? /keyid="([^"]+)"/.exec(typeof input === 'string' ? input : '')?.[1] ?? null;
}

function creatorOf(signature: unknown): string | null {
  const creator = (signature as { creator?: unknown } | null)?.creator;
  return typeof signature === 'object' && typeof creator === 'string' ? creator : null;
}

function plainActivity(json: unknown): PlainActivity | null {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return null;
  const activity = json as Record<string, unknown>;
  // The first of several, as Fedify reads an activity's actor.
  const idOf = (v: unknown): string | null => {
    if (Array.isArray(v)) return idOf(v[0]);
    const id = typeof v === 'string' ? v : (v as { id?: unknown } | null)?.id;
    return typeof id === 'string' ? id : null;
  };
  return {
    type: activity.type,
    actor: idOf(activity.actor),
    object: idOf(activity.object),
    selfSigned: activity.signature !== undefined || activity.proof !== undefined,
    ldSigner: activity.proof === undefined ? creatorOf(activity.signature) : null,
  };
}

/** At most `size` tasks at once, the others waiting in order. */
class Turns {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly size: number;

  constructor(size: number) {
    this.size = size;
  }

  waitingCount(): number {
    return this.waiting.length;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
