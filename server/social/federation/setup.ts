import { createFederation, type RetryPolicy } from '@fedify/fedify';
import { getUserAgent } from '@fedify/vocab-runtime';
import jsonld from '@fedify/vocab-runtime/jsonld';
import type { Database } from '../../db/index.ts';
import { registerActors } from './actors.ts';
import type { Fed, FedDeps } from './deps.ts';
import { registerInbox } from './inbox.ts';
import { skipExpandedDocuments } from './jsonld-expanded.ts';
import { ExpansionHandingQueue, reuseHandedExpansions } from './inbox-expansions.ts';
import { boundedLoaders, contextLoaderFactory } from './loaders.ts';
import { registerObjects } from './objects.ts';
import { withGuardedFetch } from './delivery-dispatcher.ts';
import { OutboundQueue } from './outbound-queue.ts';
import { type SharedWrites, SqliteKvStore, SqliteMessageQueue } from '../store/index.ts';
import { RemoteFetcher, type RemoteFetchLimits } from './remote-fetch.ts';
import { duration } from './time.ts';

export interface FederationSetupOptions {
  /** Tests only: lets remote fetches and deliveries reach loopback and private addresses. */
  allowPrivateAddress?: boolean;
  /** Bounds of every remote fetch (default REMOTE_FETCH_LIMITS; tests shorten the deadline). */
  fetchLimits?: Partial<RemoteFetchLimits>;
  /** Tests only: remote fetches go through this fetch (the in-process test network), not the network. */
  transport?: typeof fetch;
  /**
   * Delivery retries: the wait in ms before retry number `attempts`, null to give up (default: Mastodon's schedule,
   * see mastodonRetryPolicy). Plain milliseconds, so callers need no Temporal polyfill (it loads with Fedify).
   */
  retryDelayMs?: (attempts: number) => number | null;
  /** Longest sleep of the delivery queue between looks at its table. */
  queueIdleMs?: number;
  /** Clock of the queue and key-value store (tests move it). */
  now?: () => number;
}

/** The cache's writes of this many milliseconds share one write (see SqliteKvStore.writeLater). */
const KV_WRITE_BEHIND_MS = 25;

/** Retries Mastodon's delivery worker makes before dropping an activity. */
export const MASTODON_RETRIES = 16;

/**
 * Mastodon's delivery schedule (federation.md §3.2): retry n waits n⁴ + 15 s plus up to half of n⁴ of jitter,
 * 16 retries, about two to three days in all — long enough for a desktop that sleeps or goes offline.
 */
export const mastodonRetryPolicy: RetryPolicy = ({ attempts }) => {
  if (attempts > MASTODON_RETRIES) return null;
  const n = attempts - 1;
  return duration((n ** 4 + 15 + Math.random() * 0.5 * n ** 4) * 1000);
};

function retryPolicyOf(delayMs: (attempts: number) => number | null): RetryPolicy {
  return ({ attempts }) => {
    const ms = delayMs(attempts);
    return ms === null ? null : duration(ms);
  };
}

/** The fetcher of every remote document, key and WebFinger answer, bounded as `options` say. */
export function remoteFetcher(options: FederationSetupOptions): RemoteFetcher {
  return new RemoteFetcher({
    userAgent: getUserAgent({ software: 'Homeport' }),
    allowPrivateAddress: options.allowPrivateAddress,
    limits: options.fetchLimits,
    transport: options.transport,
  });
}

/**
 * Fedify, set up for Homeport: SQLite cache and queue, cavage signatures first, Mastodon's retries, and every
 * remote document (signed or not) read through `fetcher`, contexts never fetched. The cache's and the queue's
 * writes go into `writes` (the social store's group commit).
 */
export function buildFederation(
  db: Database,
  writes: SharedWrites,
  options: FederationSetupOptions,
  fetcher: RemoteFetcher,
  onQueueError: (err: unknown) => void,
): { federation: Fed; kv: SqliteKvStore; queue: SqliteMessageQueue; inboxQueue: ExpansionHandingQueue } {
  // Fedify's reader expands what is expanded already, many times per activity (see jsonld-expanded.ts).
  skipExpandedDocuments(jsonld);
  // Queued inbox activities the verifier's worker expanded already are not expanded again (inbox-expansions.ts).
  reuseHandedExpansions(jsonld);
  const kv = new SqliteKvStore(db, options.now, writes, KV_WRITE_BEHIND_MS);
  const queue = new SqliteMessageQueue(db, {
    maxIdleMs: options.queueIdleMs,
    now: options.now,
    onError: onQueueError,
    writes,
    // Fedify delivers with the global fetch: guarded while the queue handles a message (delivery-dispatcher.ts).
    around: options.allowPrivateAddress ? undefined : withGuardedFetch,
  });
  const inboxQueue = new ExpansionHandingQueue(
    options.transport
      ? queue
      : new OutboundQueue(queue, kv, {
          allowPrivateAddress: options.allowPrivateAddress,
          timeoutMs: options.fetchLimits?.timeoutMs,
        }),
  );
  const federation = createFederation<FedDeps>({
    kv,
    // Outbox messages signed and posted by a worker thread (outbound-queue.ts); the rest as queued. The
    // in-process test network (transport) is reachable from this thread's fetch only.
    queue: inboxQueue,
    manuallyStartQueue: true,
    // What Mastodon, GoToSocial, Misskey and Akkoma accept; RFC 9421 is tried when a peer refuses it.
    firstKnock: 'draft-cavage-http-signatures-12',
    signatureTimeWindow: { hours: 1 },
    outboxRetryPolicy: options.retryDelayMs ? retryPolicyOf(options.retryDelayMs) : mastodonRetryPolicy,
    permanentFailureStatusCodes: [410],
    // Fedify's allowPrivateAddress stays off (it cannot go with own loaders): tests reach loopback through the
    // fetcher's own switch.
    contextLoaderFactory,
    ...boundedLoaders(fetcher),
  });
  registerActors(federation);
  registerObjects(federation);
  registerInbox(federation);
  federation.setOutboxPermanentFailureHandler((c, failure) => {
    // 410 Gone: the recipient no longer exists; it stops following us.
    for (const actorId of failure.actorIds) {
      const account = c.data.social.store.accounts.byUri(actorId.href);
      if (account && account.domain !== null) c.data.repo.dropFollowersFrom(account.id);
    }
    c.data.logger.info(
      { inbox: failure.inbox.href, status: failure.statusCode },
      'a recipient is gone; it no longer follows anyone here',
    );
  });
  return { federation, kv, queue, inboxQueue };
}
