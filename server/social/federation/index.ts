import type { FastifyInstance } from 'fastify';
import type { Database } from '../../db/index.ts';
import type { SocialContext } from '../context.ts';
import { SocialEvents, type SocialEventType } from '../events.ts';
import { hasQueuedMessages, type Account, type StatusRow } from '../store/index.ts';
import { tokenize } from '../text/index.ts';
import type { ArchiveDocuments } from '../domain/index.ts';
import type { Fed, FedContext } from './deps.ts';
import { DEFAULT_INBOX_LIMITS, type InboxLimits } from './inbox-limits.ts';
import { federationRoutes } from './routes.ts';
import type { FederationRuntime } from './runtime.ts';
import type { FederationSetupOptions as SetupOptions } from './setup.ts';
import { statusUri } from './uris.ts';

export { RejectedDocument } from './rejected-document.ts';
export { FederationRepository } from '../store/index.ts';

/** Unknown remote accounts one post may make us look up (each a WebFinger and an actor fetch). */
const MAX_MENTION_LOOKUPS = 10;

/**
 * The social events outgoing activities follow (Outbound.listen subscribes to these; outbound.test.ts checks
 * the two lists agree). They are held from start until Fedify is built, then handed over in order.
 */
export const OUTBOUND_EVENTS: readonly SocialEventType[] = [
  'relationship.changed',
  'status.created',
  'quote.revoked',
  'status.updated',
  'status.deleted',
  'account.updated',
  'account.moved',
  'account.deleted',
  'poll.voted',
  'status.pinned',
  'status.unpinned',
  'status.favourited',
  'status.unfavourited',
  'report.created',
];

export interface FederationSetupOptions extends SetupOptions {
  /** The inbox's bounds (see DEFAULT_INBOX_LIMITS); tests make them small. */
  inbox?: Partial<InboxLimits>;
}
export { checkInstance, formatReport, type SelfCheckReport } from './self-check.ts';

/**
 * ActivityPub for the social server: routes, the delivery queue, outgoing activities and remote accounts.
 * Fedify (about 65 MiB and a good part of a start's CPU) is built at the first federation use, not at start:
 * what needs it awaits `fedify()` or `context()`.
 */
export interface Federation {
  /** The Fedify instance, built on first use. */
  fedify(): Promise<Fed>;
  /** Registers the ActivityPub routes (WebFinger, actors, inboxes, objects, collections, host-meta). */
  routes(app: FastifyInstance): void;
  /** A Fedify context for work outside a request (lookups, sending). */
  context(): Promise<FedContext>;
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
  // Outgoing activities: the events come here from start and reach Outbound through `held` once Fedify is built.
  const held = new SocialEvents((type, error) => social.events.onListenerError(type, error));
  let waiting: { type: SocialEventType; event: unknown }[] | null = [];
  let building: Promise<FederationRuntime> | null = null;
  let closed = false;

  const runtime = (): Promise<FederationRuntime> => {
    if (closed) return Promise.reject(new Error('federation is closed'));
    building ??= import('./runtime.ts').then(
      ({ startFederationRuntime }) => {
        const built = startFederationRuntime(social, db, options, held);
        const early = waiting ?? [];
        waiting = null;
        for (const { type, event } of early) held.emit(type, event as never);
        return built;
      },
      (err: unknown) => {
        building = null; // the next use tries again
        throw err;
      },
    );
    return building;
  };
  const buildInBackground = () =>
    void runtime().catch((err: unknown) => social.logger.error({ err }, 'federation could not start'));

  const stopListening = OUTBOUND_EVENTS.map((type) =>
    social.events.on(type, (event) => {
      if (waiting === null) return held.emit(type, event as never);
      waiting.push({ type, event });
      buildInBackground();
    }),
  );
  // Work the last run left: queued deliveries and deleted accounts whose deletion peers have not been told.
  if (hasQueuedMessages(db) || social.store.accounts.deletedAwaitingAnnouncement().length > 0) buildInBackground();

  const documents = async () => (await runtime()).archiveDocuments;
  return {
    fedify: async () => (await runtime()).fedify,
    routes: (app) => federationRoutes(app, runtime, social, { ...DEFAULT_INBOX_LIMITS, ...options.inbox }.bodyBytes),
    context: async () => (await runtime()).context(),
    resolveAccount: async (input, options) => (await runtime()).resolveAccount(input, options),
    resolveStatus: async (uri) => (await runtime()).resolveStatus(uri),
    async resolveMentions(text) {
      const unknown = new Set<string>();
      for (const token of tokenize(text)) {
        if (token.kind !== 'mention' || token.domain === null || unknown.size >= MAX_MENTION_LOOKUPS) continue;
        if (token.domain === social.urls.domain.toLowerCase() || token.domain === social.urls.hostname.toLowerCase())
          continue;
        if (!social.store.accounts.byHandle(token.username, token.domain))
          unknown.add(`${token.username}@${token.domain}`);
      }
      if (unknown.size === 0) return;
      await Promise.all([...unknown].map((handle) => this.resolveAccount(handle).catch(() => null)));
    },
    archiveDocuments: {
      actor: async (account, files) => (await documents()).actor(account, files),
      activity: async (status) => (await documents()).activity(status),
      outboxContext: async () => (await documents()).outboxContext(),
      statusUri: (status) => statusUri({ social }, status),
    },
    async idle() {
      // Events are delivered once their write group commits: wait for that first, then for what they started.
      await social.store.durable();
      if (building) await (await building).idle();
    },
    async close() {
      for (const stop of stopListening) stop();
      const started = building;
      closed = true;
      if (started) await (await started.catch(() => null))?.close();
    },
  };
}
