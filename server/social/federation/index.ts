import type { FastifyInstance } from 'fastify';
import type { Database } from '../../db/index.ts';
import type { SocialContext } from '../context.ts';
import type { Account, StatusRow } from '../store/index.ts';
import { tokenize } from '../text/index.ts';
import type { ArchiveDocuments } from '../domain/index.ts';
import { archiveDocuments } from './archive.ts';
import { localStatusId, type Fed, type FedContext, type FedDeps } from './deps.ts';
import { Outbound } from './outbound.ts';
import { accountForActorId, resolveAccount, RejectedDocument } from './remote.ts';
import { createRemoteStatus, isStatusObject } from './statuses-inbound.ts';
import { syncFeatured } from './featured-inbound.ts';

/** An account fetched this recently (by the lookup at hand) has its pinned posts read too. */
const FEATURED_SYNC_WINDOW_MS = 5_000;
import { federationRoutes } from './routes.ts';
import { InboxIntake, type InboxLimits } from './inbox-intake.ts';
import { buildFederation, remoteFetcher, type FederationSetupOptions as SetupOptions } from './setup.ts';
import { fetchObject } from './lookup.ts';

export { RejectedDocument } from './remote.ts';
export { FederationRepository } from '../store/index.ts';
export { duration } from './time.ts';

/** Unknown remote accounts one post may make us look up (each a WebFinger and an actor fetch). */
const MAX_MENTION_LOOKUPS = 10;

export interface FederationSetupOptions extends SetupOptions {
  /** The inbox's bounds (see DEFAULT_INBOX_LIMITS); tests make them small. */
  inbox?: Partial<InboxLimits>;
}
export { checkInstance, formatReport, type SelfCheckReport } from './self-check.ts';

/** ActivityPub for the social server: routes, the delivery queue, outgoing activities and remote accounts. */
export interface Federation {
  fedify: Fed;
  /** Registers the ActivityPub routes (WebFinger, actors, inboxes, objects, collections, host-meta). */
  routes(app: FastifyInstance): void;
  /** A Fedify context for work outside a request (lookups, sending). */
  context(): FedContext;
  /** An account by handle or URL, looked up through WebFinger when unknown (see resolveAccount). */
  resolveAccount(input: string, options?: { refresh?: boolean }): Promise<Account | null>;
  resolveMentions(text: string): Promise<void>;
  resolveStatus(uri: string): Promise<StatusRow | null>;
  /** The documents of a local account's archive (actor, activities), as served here. */
  archiveDocuments: ArchiveDocuments;
  /** Resolves once every activity handed over so far is queued (tests, shutdown). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Refuses a public URL other than the one the instance federated under: other servers keep our actor and
 * status ids, and a new origin would orphan every follow (Mastodon's LOCAL_DOMAIN rule).
 */
export function checkPublicUrl(social: SocialContext, base: string): void {
  const origin = social.store.federation.federatedOrigin();
  if (origin !== null && origin !== base) {
    throw new PublicUrlChangedError(
      `this instance has federated as ${origin}; it cannot become ${base} (other servers know its accounts and posts by ${origin} ids). Start it with --public-url ${origin}, or use a new data directory for a new identity.`,
    );
  }
}

export class PublicUrlChangedError extends Error {}

export function startFederation(social: SocialContext, db: Database, options: FederationSetupOptions = {}): Federation {
  const logger = social.logger.child({ component: 'federation' });
  const fetcher = remoteFetcher(options);
  const deps: FedDeps = { social, repo: social.store.federation, logger, fetcher };
  const { federation, kv, queue } = buildFederation(db, social.store.core, options, fetcher, (err) =>
    logger.warn({ err }, 'a queued federation task failed'),
  );
  const context = () => federation.createContext(new URL(social.urls.base), deps);
  const intake = new InboxIntake(deps, () => queue.inboxBacklog(), options.inbox);
  const outbound = new Outbound(deps, context);
  const stopListening = outbound.listen();
  outbound.announcePendingDeletions();
  const stopQueue = new AbortController();
  const queueDone = federation.startQueue(deps, { signal: stopQueue.signal });
  const sweeper = setInterval(
    () => {
      try {
        kv.sweep();
      } catch (err) {
        logger.error({ err }, 'federation cache sweep failed');
      }
    },
    60 * 60 * 1000,
  );
  sweeper.unref();
  return {
    fedify: federation,
    routes: (app) => federationRoutes(app, federation, deps, intake),
    context,
    async resolveAccount(input, options) {
      try {
        const account = await resolveAccount(context(), input, options);
        // Just fetched from its server: its pinned posts too, in the background (Mastodon does the same).
        const fetchedAt = account && account.domain !== null ? deps.repo.fetchedAt(account.id) : null;
        if (account && fetchedAt !== null && social.store.now() - fetchedAt < FEATURED_SYNC_WINDOW_MS) {
          void syncFeatured(context(), account).catch((err: unknown) =>
            logger.info({ err, account: account.uri }, 'pinned posts could not be read'),
          );
        }
        return account;
      } catch (err) {
        if (err instanceof RejectedDocument) throw err;
        logger.info({ err, input }, 'remote account could not be resolved');
        return null;
      }
    },
    async resolveStatus(uri) {
      const store = social.store;
      const local = localStatusId(deps, uri);
      if (local) return store.statuses.byId(local);
      const known = deps.repo.statusByUri(uri);
      if (known) return store.statuses.byId(known);
      const c = context();
      const object = await fetchObject(c, uri).catch(() => null);
      if (!isStatusObject(object) || !object.attributionId || object.id?.href !== uri) return null;
      const author = await accountForActorId(c, object.attributionId);
      if (!author || author.domain === null) return null;
      return createRemoteStatus(c, object, author, { quiet: true }).catch(() => null);
    },
    async resolveMentions(text) {
      const unknown = new Set<string>();
      for (const token of tokenize(text)) {
        if (token.kind !== 'mention' || token.domain === null || unknown.size >= MAX_MENTION_LOOKUPS) continue;
        if (token.domain === social.urls.domain.toLowerCase() || token.domain === social.urls.hostname.toLowerCase())
          continue;
        if (!social.store.accounts.byHandle(token.username, token.domain))
          unknown.add(`${token.username}@${token.domain}`);
      }
      await Promise.all([...unknown].map((handle) => this.resolveAccount(handle).catch(() => null)));
    },
    archiveDocuments: archiveDocuments(context),
    async idle() {
      // Events are delivered once their write group commits: wait for that first, then for what they started.
      await social.store.durable();
      await outbound.idle();
    },
    async close() {
      clearInterval(sweeper);
      stopListening();
      await outbound.idle();
      stopQueue.abort();
      // Deliveries still in flight stay in the queue table and run again at the next start.
      await Promise.race([queueDone, new Promise((r) => setTimeout(r, 2_000).unref())]);
      kv.flush();
      fetcher.close();
    },
  };
}
