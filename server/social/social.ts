import crypto from 'node:crypto';
import path from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import { openDatabase, startBackgroundCheckpointer, type Database } from '../db/index.ts';
import type { Logger } from '../logger.ts';
import { SocialAdmin } from './admin.ts';
import { SOCIAL_ROUTE_MODULES } from './api/index.ts';
import type { RegisteredRoute, SocialContext } from './context.ts';
import {
  AccountService,
  AnnouncementService,
  SuggestionService,
  CollectionService,
  ModerationService,
  ReportService,
  FilterService,
  DueJobs,
  MediaService,
  NotificationService,
  PollService,
  RelationshipService,
  AccountMoves,
  AccountData,
  startImportWorker,
  type ImportWorkerOptions,
  AccountArchive,
  IDEMPOTENCY_WINDOW_MS,
  StatusService,
  relayEventsToTable,
  startEventRelay,
  accountByAddress,
  ApplicationService,
  ConversationService,
  ensureServerKeys,
  ListService,
  MarkerService,
  PushSubscriptionService,
  RemoteActivity,
  ScheduledStatusService,
  TagService,
  TrendService,
} from './domain/index.ts';
import { AccountPresenter, StatusPresenter } from './entities/index.ts';
import { registerSocialCors, registerConventions } from './http/index.ts';
import { holdAnswersUntilDurable } from './durable-answers.ts';
import { Mailer } from './mail/index.ts';
import { mediaFileRoutes, MediaStorage } from './media/index.ts';
import { socialMigrations } from './migrations/index.ts';
import { SocialStore, type OutboxEmail } from './store/index.ts';
import { SocialUrls } from './urls.ts';
import { checkPublicUrl, startFederation, type Federation, type FederationSetupOptions } from './federation/index.ts';
import { startStreaming, type Streaming, type StreamingLimits } from './streaming/index.ts';
import { startWebPush, type WebPush, type WebPushOptions } from './push/index.ts';
import { startPreviewCards, type PreviewCardOptions, type PreviewCards } from './cards/index.ts';

export interface OpenSocialOptions {
  dataDir: string;
  logger: Logger;
  /** Public host[:port], e.g. "localhost:3000". */
  domain: string;
  /** Served behind TLS (https/wss URLs, secure cookies). Default false: Homeport itself speaks plain HTTP. */
  secure?: boolean;
  /** A separate streaming base (wss://host); null or absent: streaming is served on the main host. */
  streamingUrl?: string | null;
  /** Clock for every timestamp and expiry (tests inject one). */
  now?: () => number;
  /** Default true. A benchmark turns the general API rate limit off; sign-up and sign-in limits stay. */
  generalRateLimit?: boolean;
  /** Longest sleep of the due-jobs timer (default a minute); tests that move the clock make it short. */
  dueJobsMaxWaitMs?: number;
  /** ActivityPub settings (tests allow private addresses and short retries); false runs without federation. */
  federation?: FederationSetupOptions | false;
  /** Streaming connection limits (tests make heartbeats and buffers small). */
  streaming?: Partial<StreamingLimits>;
  /** Web Push delivery settings (tests let endpoints live on loopback and retry quickly). */
  push?: WebPushOptions;
  /** Link preview card fetching (tests let links point at loopback). */
  previewCards?: PreviewCardOptions;
  /** CSV imports worked off in the background (tests set how many lookups run at once). */
  imports?: ImportWorkerOptions;
}

export interface Social {
  db: Database;
  file: string;
  /** Registered at the root of the HTTP server (/api/v1, /oauth, /.well-known, …). */
  plugin: FastifyPluginAsync;
  /** The UI accepts the social owner's credentials too: an owner or admin, by username or e-mail. */
  checkOwnerCredentials(username: string, password: string): Promise<{ name: string } | null>;
  /** A digest of an owner's credential state, null when `username` is no longer an enabled owner or admin (UI sessions end then). */
  ownerCredentialStamp(username: string): string | null;
  /** Sets the public domain once the HTTP port is known (a server started on port 0). */
  setDomain(domain: string): void;
  /** E-mails the server wrote, newest first (the Server view shows the local outbox). */
  listOutbox(options?: { limit?: number; to?: string }): OutboxEmail[];
  /** Owner operations shared with the CLI. */
  admin: SocialAdmin;
  /** Every API route with its auth rule, filled when the plugin is registered. */
  routes: RegisteredRoute[];
  context: SocialContext;
  /** Publishes due scheduled statuses and ends due polls now (the timer does this by itself; tests with a clock call it). */
  runDueJobs(): { published: number; pollsEnded: number };
  /** Resolves when queued media processing has finished. */
  mediaIdle(): Promise<void>;
  /** ActivityPub (null when started without it). */
  federation: Federation | null;
  /** The streaming API (WebSocket and SSE). */
  streaming: Streaming;
  /** Web Push delivery. */
  push: WebPush;
  /** Link preview cards, fetched in the background after statuses are written. */
  previewCards: PreviewCards;
  close(): Promise<void>;
}

const MUTE_SWEEP_MS = 60 * 1000;
const PURGE_MS = 60 * 60 * 1000;

interface SocialCore {
  db: Database;
  file: string;
  context: SocialContext;
  admin: SocialAdmin;
}

function openCore(options: {
  dataDir: string;
  logger: Logger;
  domain: string;
  secure?: boolean;
  streamingUrl?: string | null;
  now?: () => number;
  generalRateLimit?: boolean;
  dueJobsMaxWaitMs?: number;
  /** Federation's test switch also lets clients be given plain-http media links of other servers. */
  federation?: { allowPrivateAddress?: boolean } | false;
}): SocialCore {
  const file = path.join(options.dataDir, 'social.db');
  const db = openDatabase(file, { migrations: socialMigrations, synchronous: 'FULL', tempStore: 'memory' });
  try {
    const store = new SocialStore(db, options.now ?? Date.now);
    const urls = new SocialUrls(options.domain, options.secure ?? false);
    urls.separateStreaming = options.streamingUrl ?? null;
    store.events.onListenerError = (type, error) =>
      options.logger.error({ err: error, event: type }, 'social event listener failed');
    const vapidPublicKey = ensureServerKeys(store);
    const mailer = new Mailer(store, urls, options.logger.child({ component: 'mail' }));
    const accounts = new AccountService(store, urls, mailer, options.logger);
    const media = new MediaStorage(options.dataDir);
    const notifications = new NotificationService(store);
    const presenter = new AccountPresenter(store, urls, {
      allowHttp: options.federation ? options.federation.allowPrivateAddress === true : false,
    });
    const statuses = new StatusService(
      store,
      urls,
      notifications,
      media,
      options.logger.child({ component: 'statuses' }),
    );
    const filters = new FilterService(store, store.events);
    const relationships = new RelationshipService(store, notifications);
    const polls = new PollService(store, notifications, options.logger.child({ component: 'polls' }));
    const jobs = new DueJobs(
      store,
      statuses,
      polls,
      options.logger.child({ component: 'jobs' }),
      options.dueJobsMaxWaitMs,
    );
    statuses.onScheduleChange = () => jobs.reschedule();
    const context: SocialContext = {
      store,
      urls,
      logger: options.logger,
      events: store.events,
      mailer,
      media,
      accounts,
      relationships,
      moves: new AccountMoves(store, urls, relationships),
      accountData: new AccountData(store, urls, relationships),
      accountArchive: new AccountArchive(store, media, options.logger.child({ component: 'archive' })),
      presenter,
      notifications,
      statuses,
      statusPresenter: new StatusPresenter(store, urls, presenter, filters),
      filters,
      announcements: new AnnouncementService(store),
      reports: new ReportService(store),
      suggestions: new SuggestionService(store),
      collections: new CollectionService(store),
      moderation: new ModerationService(store, accounts),
      mediaService: new MediaService(store, media, options.logger.child({ component: 'media' })),
      polls,
      lists: new ListService(store),
      markers: new MarkerService(store),
      conversations: new ConversationService(store),
      pushSubscriptions: new PushSubscriptionService(store),
      scheduledStatuses: new ScheduledStatusService(store, () => jobs.reschedule()),
      remoteActivity: new RemoteActivity(store, notifications),
      applications: new ApplicationService(store),
      tags: new TagService(store),
      trends: new TrendService(store),
      jobs,
      vapidPublicKey,
      generalRateLimit: options.generalRateLimit ?? true,
      routes: [],
    };
    return { db, file, context, admin: new SocialAdmin(store, accounts, media) };
  } catch (err) {
    db.close();
    throw err;
  }
}

export async function openSocial(options: OpenSocialOptions): Promise<Social> {
  const core = openCore(options);
  const { context: ctx } = core;
  try {
    checkPublicUrl(ctx, ctx.urls.base);
  } catch (err) {
    core.db.close();
    throw err;
  }
  ctx.store.settings.set('public_url', ctx.urls.base);
  // Writes of one turn of the event loop share one COMMIT (one fsync); answers wait for it (holdAnswersUntilDurable).
  ctx.store.groupCommits();
  // WAL checkpoints in a worker thread (as the event log's): SQLite's automatic one copies the WAL into the
  // database file inside whichever post's commit crosses the threshold, on the event loop.
  const checkpointer = startBackgroundCheckpointer(core.db, {
    onError: (err) =>
      options.logger.warn(
        { err },
        'background WAL checkpoints of social.db stopped; SQLite checkpoints inside commits again',
      ),
  });
  const federation = options.federation === false ? null : startFederation(ctx, core.db, options.federation ?? {});
  ctx.federation = federation ?? undefined;
  const streaming = startStreaming(ctx, options.streaming);
  const push = startWebPush(ctx, options.push);
  const previewCards = startPreviewCards(ctx, options.previewCards);
  // What the admin CLI changes while this server runs reaches streaming, push and federation at once.
  const relay = startEventRelay(ctx.store, options.logger.child({ component: 'event-relay' }));
  // Imports a stop interrupted go on from where they were.
  const imports = startImportWorker(
    ctx,
    {
      account: (address) => accountByAddress(ctx, address),
      status: async (uri) => (ctx.federation ? ctx.federation.resolveStatus(uri) : null),
    },
    options.imports,
  );

  const sweeper = setInterval(() => {
    try {
      const ended = ctx.store.relationships.purgeExpiredMutes();
      if (ended) ctx.logger.debug({ ended }, 'expired mutes removed');
    } catch (err) {
      ctx.logger.error({ err }, 'mute expiry sweep failed');
    }
  }, MUTE_SWEEP_MS);
  sweeper.unref();
  const purge = () => {
    try {
      ctx.store.oauth.purgeExpired();
      ctx.store.idempotencyKeys.purge(ctx.store.now() - IDEMPOTENCY_WINDOW_MS);
    } catch (err) {
      ctx.logger.error({ err }, 'session purge failed');
    }
    ctx.mediaService.purgeUnattached().then(
      (n) => n > 0 && ctx.logger.info({ removed: n }, 'unattached media older than a day removed'),
      (err: unknown) => ctx.logger.error({ err }, 'unattached media purge failed'),
    );
  };
  const purger = setInterval(purge, PURGE_MS);
  purger.unref();
  // Scheduled statuses and polls that fell due while the server was stopped are handled now.
  ctx.jobs.start();
  // Uploads a crash cut short left *.tmp files behind; cleaned before resumed processing writes new ones.
  await ctx.media
    .removeInterruptedWrites()
    .then((n) => n > 0 && ctx.logger.info({ removed: n }, 'half-written media files of an interrupted run removed'));
  ctx.mediaService.resumeUnfinished();
  purge();

  const plugin: FastifyPluginAsync = async (root) => {
    holdAnswersUntilDurable(root, ctx.store);
    await registerSocialCors(root);
    await root.register(async (files) => mediaFileRoutes(files, ctx.media));
    if (federation) await root.register(async (ap) => federation.routes(ap));
    await root.register(async (api) => {
      await registerConventions(api, ctx);
      for (const routes of SOCIAL_ROUTE_MODULES) routes(api, ctx);
      streaming.routes(api);
    });
  };

  return {
    db: core.db,
    file: core.file,
    plugin,
    context: ctx,
    admin: core.admin,
    routes: ctx.routes,
    ownerCredentialStamp(username) {
      const account = ctx.store.accounts.byHandle(username, null);
      const user = account ? ctx.store.users.byAccountId(account.id) : null;
      if (
        !account ||
        !user ||
        (user.role !== 'owner' && user.role !== 'admin') ||
        user.disabled ||
        account.suspendedAt !== null ||
        account.deletedAt !== null
      )
        return null;
      return crypto.createHash('sha256').update(`${user.passwordHash}\0${user.role}`).digest('base64url');
    },
    async checkOwnerCredentials(username, password) {
      const found = await ctx.accounts.authenticate(username, password);
      if (!found) return null;
      const { user, account } = found;
      if (user.role !== 'owner' && user.role !== 'admin') return null;
      if (user.disabled || account.suspendedAt !== null) return null;
      return { name: account.username };
    },
    setDomain(domain) {
      ctx.urls.domain = domain;
      ctx.store.settings.set('public_url', ctx.urls.base);
    },
    listOutbox(listOptions) {
      return core.admin.listOutbox(listOptions);
    },
    federation,
    streaming,
    push,
    previewCards,
    runDueJobs: () => ctx.jobs.runDue(),
    mediaIdle: () => ctx.mediaService.idle(),
    async close() {
      relay.close();
      clearInterval(sweeper);
      clearInterval(purger);
      streaming.close();
      await push.close();
      await previewCards.close();
      await imports.close();
      await federation?.close();
      ctx.jobs.stop();
      await ctx.mediaService.close();
      await ctx.mailer.idle(5_000);
      ctx.mailer.close();
      await checkpointer.stop();
      ctx.store.flushWrites();
      core.db.close();
    },
  };
}

export interface SocialAdminHandle {
  admin: SocialAdmin;
  context: SocialContext;
  /** Waits for e-mails being sent, then closes the database. */
  close(): Promise<void>;
}

/**
 * Opens social.db for the admin CLI, next to a running server if there is one (WAL lets both write; no
 * lock is taken). URLs in e-mails use the public URL the server last recorded.
 */
export function openSocialAdmin(options: { dataDir: string; logger: Logger }): SocialAdminHandle {
  const core = openCore({ dataDir: options.dataDir, logger: options.logger, domain: 'localhost:3000' });
  relayEventsToTable(core.context.store);
  const recorded = core.context.store.settings.get('public_url');
  if (recorded) {
    const url = new URL(recorded);
    core.context.urls.domain = url.host;
    core.context.urls.secure = url.protocol === 'https:';
  }
  return {
    admin: core.admin,
    context: core.context,
    async close() {
      // The CLI waits for its e-mail to be handed to the SMTP server (bounded), so the command reports after sending.
      await core.context.mailer.idle(60_000);
      core.context.mailer.close();
      core.db.close();
    },
  };
}
