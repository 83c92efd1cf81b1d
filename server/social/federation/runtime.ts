import type { Database } from '../../db/index.ts';
import type { SocialContext } from '../context.ts';
import type { SocialEvents } from '../events.ts';
import type { ArchiveDocuments } from '../domain/index.ts';
import type { Account, StatusRow } from '../store/index.ts';
import { archiveDocuments } from './archive.ts';
import { localStatusId, type Fed, type FedContext, type FedDeps } from './deps.ts';
import { syncFeatured } from './featured-inbound.ts';
import { GoneActors } from './gone-actors.ts';
import { InboundTombstones } from './inbound-tombstones.ts';
import { InboxIntake } from './inbox-intake.ts';
import { handlePlainCreate } from './inbox-plain-listener.ts';
import type { InboxLimits } from './inbox-limits.ts';
import { fetchObject } from './lookup.ts';
import { Outbound } from './outbound.ts';
import { RejectedDocument } from './rejected-document.ts';
import { accountForActorId, resolveAccount } from './remote.ts';
import { buildFederation, remoteFetcher, type FederationSetupOptions } from './setup.ts';
import { createRemoteStatus, isStatusObject } from './statuses-inbound.ts';

/** An account fetched this recently (by the lookup at hand) has its pinned posts read too. */
const FEATURED_SYNC_WINDOW_MS = 5_000;

/**
 * Fedify and everything that needs it: built by index.ts at the first federation use (a request to an
 * ActivityPub route, an outgoing activity, a remote lookup, deliveries left queued by the last run).
 */
export interface FederationRuntime {
  fedify: Fed;
  deps: FedDeps;
  intake: InboxIntake;
  context(): FedContext;
  resolveAccount(input: string, options?: { refresh?: boolean }): Promise<Account | null>;
  resolveStatus(uri: string): Promise<StatusRow | null>;
  archiveDocuments: ArchiveDocuments;
  /** Resolves once every activity handed over so far is queued. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export function startFederationRuntime(
  social: SocialContext,
  db: Database,
  options: FederationSetupOptions & { inbox?: Partial<InboxLimits> },
  events: Pick<SocialEvents, 'on'>,
): FederationRuntime {
  const logger = social.logger.child({ component: 'federation' });
  const fetcher = remoteFetcher(options);
  const { federation, kv, queue, inboxQueue } = buildFederation(db, social.store.core, options, fetcher, (err) =>
    logger.warn({ err }, 'a queued federation task failed'),
  );
  const tombstones = new InboundTombstones(kv, options.now ?? Date.now);
  const deps: FedDeps = {
    social,
    repo: social.store.federation,
    logger,
    fetcher,
    tombstones,
    gone: new GoneActors({}, social.store.goneActors, () => social.store.now()),
  };
  const context = () => federation.createContext(new URL(social.urls.base), deps);
  inboxQueue.handPlainCreates((message) =>
    handlePlainCreate(deps, kv, message).catch((err: unknown) => {
      // Fedify's handling runs it again, and retries or reports it as it does any activity.
      logger.info({ err }, 'a plain Create is handed to Fedify after an error');
      return false;
    }),
  );
  const intake = new InboxIntake(
    deps,
    () => queue.inboxBacklog(),
    options.inbox,
    (message) => queue.enqueue(message),
  );
  const outbound = new Outbound(deps, context);
  const stopListening = outbound.listen(events);
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
    deps,
    intake,
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
    archiveDocuments: archiveDocuments(context),
    idle: () => outbound.idle(),
    async close() {
      clearInterval(sweeper);
      stopListening();
      await outbound.idle();
      stopQueue.abort();
      // Deliveries still in flight stay in the queue table and run again at the next start.
      await Promise.race([queueDone, new Promise((r) => setTimeout(r, 2_000).unref())]);
      kv.flush();
      fetcher.close();
      intake.close();
    },
  };
}
