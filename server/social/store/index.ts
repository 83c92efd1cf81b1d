import type { Database } from '../../db/index.ts';
import { AccountRepository } from './accounts.ts';
import { AccountErasureRepository } from './account-erasure.ts';
import { AnnualReportRepository } from './annual-reports.ts';
import { RelayedEventRepository } from './relayed-events.ts';
import { ConversationRepository } from './conversations.ts';
import { HomeFeedRepository } from './feeds.ts';
import { InteractionRepository } from './interactions.ts';
import { MediaRepository } from './media.ts';
import { NotificationRepository } from './notifications.ts';
import { NotificationRequestRepository } from './notification-requests.ts';
import { SuggestionRepository } from './suggestions.ts';
import { TrendRepository } from './trends.ts';
import { EmojiRepository } from './emojis.ts';
import { FederationRepository } from './federation.ts';
import { RemoteMediaRepository } from './remote-media.ts';
import { ExportQueries } from './exports.ts';
import { ImportRepository } from './imports.ts';
import { InstanceStatsRepository } from './instance-stats.ts';
import { CollectionRepository } from './collections.ts';
import { ModerationRepository } from './moderation.ts';
import { AdminAccountRepository } from './admin-accounts.ts';
import { AdminMetricsRepository } from './admin-metrics.ts';
import { QuoteRepository } from './quotes.ts';
import { PreviewCardRepository } from './preview-cards.ts';
import { LinkTimelineRepository } from './link-timeline.ts';
import { AccountWarningRepository } from './warnings.ts';
import { OAuthRepository } from './oauth.ts';
import { MailOutboxRepository } from './mail-outbox.ts';
import { PollRepository } from './polls.ts';
import { GoneActorRepository } from './gone-actors.ts';
import { ProbeNonceRepository } from './probe-nonces.ts';
import { AnnouncementRepository } from './announcements.ts';
import { ReportRepository } from './reports.ts';
import { FilterRepository } from './filters.ts';
import { TagRepository } from './tags.ts';
import { ListRepository } from './lists.ts';
import { MarkerRepository } from './markers.ts';
import { PushRepository } from './push.ts';
import { SearchRepository } from './search.ts';
import { RelationshipRepository } from './relationships.ts';
import { MoveCarryOverQueries } from './move-carry-over.ts';
import { RuleRepository } from './rules.ts';
import { ScheduledStatusRepository } from './scheduled.ts';
import { SettingsRepository } from './settings.ts';
import { StatusRepository } from './statuses.ts';
import { IdempotencyKeyRepository } from './idempotency-keys.ts';
import { StoreCore } from './store.ts';
import { TimelineRepository } from './timelines.ts';
import { UserRepository } from './users.ts';
import { UserDomainBlockRepository } from './user-domain-blocks.ts';

export * from './account-row.ts';
export * from './account-columns.ts';
export * from './accounts.ts';
export * from './account-erasure.ts';
export * from './annual-reports.ts';
export * from './admin-metrics.ts';
export * from './relayed-events.ts';
export * from './conversations.ts';
export * from './feeds.ts';
export * from './interactions.ts';
export * from './media.ts';
export * from './polls.ts';
export * from './probe-nonces.ts';
export * from './push.ts';
export * from './markers.ts';
export * from './lists.ts';
export * from './filters.ts';
export * from './tags.ts';
export * from './announcements.ts';
export * from './reports.ts';
export * from './search.ts';
export * from './scheduled.ts';
export * from '../status-row.ts';
export * from './statuses.ts';
export * from './status-mentions-tags.ts';
export * from './idempotency-keys.ts';
export * from './timelines.ts';
export * from '../notification-types.ts';
export * from './notifications.ts';
export * from './notification-requests.ts';
export * from './suggestions.ts';
export * from './trends.ts';
export * from './emojis.ts';
export * from './fedify-kv.ts';
export * from './fedify-queue.ts';
export type { SharedWrites } from './statements.ts';
export * from './federation.ts';
export type { GoneActorRow } from './gone-actors.ts';
export * from './remote-media.ts';
export * from './exports.ts';
export * from './imports.ts';
export * from './instance-stats.ts';
export * from './collections.ts';
export * from './moderation.ts';
export * from './admin-accounts.ts';
export * from './quotes.ts';
export * from './preview-cards.ts';
export * from './warnings.ts';
export * from './oauth.ts';
export * from './mail-outbox.ts';
export * from './listed-accounts.ts';
export * from './relationship-rows.ts';
export * from './relationships.ts';
export * from './move-carry-over.ts';
export * from './rules.ts';
export * from './settings.ts';
export * from './users.ts';
export * from './user-domain-blocks.ts';
export { StoreCore, type PageQuery } from './store.ts';

/** All repositories of social.db, sharing one connection, id generator and clock. */
export class SocialStore {
  readonly core: StoreCore;
  readonly settings: SettingsRepository;
  readonly accounts: AccountRepository;
  /** What goes with a deleted local account. */
  readonly accountErasure: AccountErasureRepository;
  readonly annualReports: AnnualReportRepository;
  readonly relayedEvents: RelayedEventRepository;
  readonly users: UserRepository;
  readonly oauth: OAuthRepository;
  readonly relationships: RelationshipRepository;
  /** Domains a user blocks for themselves. */
  readonly userDomainBlocks: UserDomainBlockRepository;
  /** What an account move carries over to the new account. */
  readonly moveCarryOver: MoveCarryOverQueries;
  readonly notifications: NotificationRepository;
  readonly notificationRequests: NotificationRequestRepository;
  readonly suggestions: SuggestionRepository;
  readonly trends: TrendRepository;
  readonly emojis: EmojiRepository;
  /** Mastodon's CSV exports, read in full. */
  readonly exports: ExportQueries;
  /** Mastodon's CSV imports, worked off in the background. */
  readonly imports: ImportRepository;
  /** The public figures of the server. */
  readonly instanceStats: InstanceStatsRepository;
  readonly collections: CollectionRepository;
  readonly moderation: ModerationRepository;
  readonly adminAccounts: AdminAccountRepository;
  readonly adminMetrics: AdminMetricsRepository;
  readonly quotes: QuoteRepository;
  /** Link preview cards and the statuses showing them. */
  readonly previewCards: PreviewCardRepository;
  /** Public posts showing a trending link's card. */
  readonly linkTimeline: LinkTimelineRepository;
  readonly warnings: AccountWarningRepository;
  /** E-mails written (sent by SMTP or kept for the UI); not ActivityPub's outbox. */
  readonly mailOutbox: MailOutboxRepository;
  readonly rules: RuleRepository;
  readonly statuses: StatusRepository;
  /** What each Idempotency-Key of a status post produced. */
  readonly idempotencyKeys: IdempotencyKeyRepository;
  readonly interactions: InteractionRepository;
  readonly timelines: TimelineRepository;
  readonly feeds: HomeFeedRepository;
  readonly media: MediaRepository;
  readonly polls: PollRepository;
  /** Nonces of the federation self-check. */
  readonly probeNonces: ProbeNonceRepository;
  /** Remote actors and keys known to be gone, kept across restarts. */
  readonly goneActors: GoneActorRepository;
  readonly scheduled: ScheduledStatusRepository;
  readonly conversations: ConversationRepository;
  readonly push: PushRepository;
  readonly markers: MarkerRepository;
  readonly lists: ListRepository;
  readonly filters: FilterRepository;
  readonly tags: TagRepository;
  readonly announcements: AnnouncementRepository;
  readonly reports: ReportRepository;
  readonly search: SearchRepository;
  /** The SQL only federation needs (remote accounts, delivery recipients, activity ids). */
  readonly federation: FederationRepository;
  /** Attachments of remote statuses (links to their origin). */
  readonly remoteMedia: RemoteMediaRepository;

  constructor(db: Database, now: () => number = Date.now) {
    this.core = new StoreCore(db, now);
    this.settings = new SettingsRepository(this.core);
    this.accounts = new AccountRepository(this.core);
    this.accountErasure = new AccountErasureRepository(this.core);
    this.annualReports = new AnnualReportRepository(this.core);
    this.relayedEvents = new RelayedEventRepository(this.core);
    this.users = new UserRepository(this.core);
    this.oauth = new OAuthRepository(this.core);
    this.relationships = new RelationshipRepository(this.core);
    this.userDomainBlocks = new UserDomainBlockRepository(this.core);
    this.moveCarryOver = new MoveCarryOverQueries(this.core, this.relationships);
    this.notifications = new NotificationRepository(this.core);
    this.notificationRequests = new NotificationRequestRepository(this.core);
    this.suggestions = new SuggestionRepository(this.core);
    this.trends = new TrendRepository(this.core);
    this.emojis = new EmojiRepository(this.core);
    this.exports = new ExportQueries(this.core);
    this.imports = new ImportRepository(this.core);
    this.instanceStats = new InstanceStatsRepository(this.core);
    this.collections = new CollectionRepository(this.core);
    this.moderation = new ModerationRepository(this.core);
    this.adminAccounts = new AdminAccountRepository(this.core);
    this.adminMetrics = new AdminMetricsRepository(this.core);
    this.quotes = new QuoteRepository(this.core);
    this.previewCards = new PreviewCardRepository(this.core);
    this.warnings = new AccountWarningRepository(this.core);
    this.mailOutbox = new MailOutboxRepository(this.core);
    this.rules = new RuleRepository(this.core);
    this.statuses = new StatusRepository(this.core);
    this.idempotencyKeys = new IdempotencyKeyRepository(this.core);
    this.interactions = new InteractionRepository(this.core);
    this.timelines = new TimelineRepository(this.core);
    this.linkTimeline = new LinkTimelineRepository(this.timelines);
    this.feeds = new HomeFeedRepository(this.core);
    this.media = new MediaRepository(this.core);
    this.remoteMedia = new RemoteMediaRepository(this.core, this.media);
    this.polls = new PollRepository(this.core);
    this.probeNonces = new ProbeNonceRepository(this.core);
    this.goneActors = new GoneActorRepository(this.core);
    this.push = new PushRepository(this.core);
    this.markers = new MarkerRepository(this.core);
    this.lists = new ListRepository(this.core);
    this.filters = new FilterRepository(this.core);
    this.tags = new TagRepository(this.core);
    this.announcements = new AnnouncementRepository(this.core);
    this.reports = new ReportRepository(this.core);
    this.search = new SearchRepository(this.core);
    this.scheduled = new ScheduledStatusRepository(this.core);
    this.conversations = new ConversationRepository(this.core);
    this.federation = new FederationRepository(this);
  }

  get db(): Database {
    return this.core.db;
  }

  now(): number {
    return this.core.now();
  }

  /** See StoreCore.writeStamp: moves with every write to the database, by any connection. */
  writeStamp(): string {
    return this.core.writeStamp();
  }

  /** See StoreCore.cacheStamp: the write stamp to keep reads under, null inside a write. */
  cacheStamp(): string | null {
    return this.core.cacheStamp();
  }

  /** See StoreCore.credentialStamp: moves with writes to tokens, applications, users and local accounts. */
  credentialStamp(): string {
    return this.core.credentialStamp();
  }

  /** See StoreCore.accountStamp: moves with writes to accounts and users, not with statuses or follows. */
  accountStamp(): string | null {
    return this.core.accountStamp();
  }

  /** See StoreCore.domainPolicyStamp: moves with writes to domain blocks and allows and the federation mode. */
  domainPolicyStamp(): string | null {
    return this.core.domainPolicyStamp();
  }

  /** See StoreCore.ipBlockStamp: moves with writes to IP blocks here, and with any other connection's write. */
  ipBlockStamp(): string | null {
    return this.core.ipBlockStamp();
  }

  /** The domain-event bus, delivering after commit (see events.ts). */
  get events() {
    return this.core.events;
  }

  transaction<T>(fn: () => T): T {
    return this.core.transaction(fn);
  }

  /** Group commit for the server (see StoreCore.groupCommits). */
  groupCommits(): void {
    this.core.groupCommits();
  }

  /** True while writes wait for their group's COMMIT: an answer sent now could show what is not on disk yet. */
  get writesPending(): boolean {
    return this.core.writesPending;
  }

  /** Resolves once every write made so far is on disk; rejects if its group was lost. */
  durable(): Promise<void> {
    return this.core.durable();
  }

  /** `PRAGMA data_version` statements the stamps ran (benches count them per operation). */
  get dataVersionReads(): number {
    return this.core.dataVersionReads;
  }

  /** Write groups committed so far: writes per commit is what the grouping saves. */
  get groupsCommitted(): number {
    return this.core.groupsCommitted;
  }

  /** Commits waiting writes now (before the database closes). */
  flushWrites(): void {
    this.core.flushWrites();
  }

  /** `fn`'s reads from one snapshot, in one read transaction (see StoreCore.read). */
  read<T>(fn: () => T): T {
    return this.core.read(fn);
  }
}
