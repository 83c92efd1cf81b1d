import type { Logger } from '../logger.ts';
import type { StatusRow, Account, SocialStore } from './store/index.ts';
import type {
  AccountService,
  AnnouncementService,
  ReportService,
  SuggestionService,
  CollectionService,
  ModerationService,
  FilterService,
  DueJobs,
  MediaService,
  NotificationService,
  PollService,
  RelationshipService,
  AccountMoves,
  AccountData,
  AccountArchive,
  ArchiveDocuments,
  StatusService,
  ApplicationService,
  ConversationService,
  ListService,
  MarkerService,
  PushSubscriptionService,
  RemoteActivity,
  ScheduledStatusService,
  TagService,
  TrendService,
} from './domain/index.ts';
import type { AccountPresenter, StatusPresenter } from './entities/index.ts';
import type { SocialEvents } from './events.ts';
import type { RouteAuth } from './route-auth.ts';
import type { Mailer } from './mail/index.ts';
import type { MediaStorage } from './media/index.ts';
import type { SocialUrls } from './urls.ts';

export interface RegisteredRoute {
  method: string;
  url: string;
  auth: RouteAuth;
  deprecated: boolean;
}

/** Everything a route module needs, built once by openSocial. */
export interface SocialContext {
  store: SocialStore;
  urls: SocialUrls;
  logger: Logger;
  /** Domain events, delivered after commit: streaming, Web Push and federation listen here. */
  events: SocialEvents;
  mailer: Mailer;
  media: MediaStorage;
  accounts: AccountService;
  relationships: RelationshipService;
  /** Aliases and account moves, out and in. */
  moves: AccountMoves;
  /** Mastodon's CSV exports and imports (follows, lists, blocks, mutes, domain blocks, bookmarks). */
  accountData: AccountData;
  /** Mastodon's account archive (actor, outbox, likes, bookmarks and media in a zip). */
  accountArchive: AccountArchive;
  presenter: AccountPresenter;
  notifications: NotificationService;
  statuses: StatusService;
  statusPresenter: StatusPresenter;
  /** Content filters: their editing, and applying them to what each user is shown. */
  filters: FilterService;
  announcements: AnnouncementService;
  reports: ReportService;
  suggestions: SuggestionService;
  collections: CollectionService;
  /** What staff do through the admin API. */
  moderation: ModerationService;
  mediaService: MediaService;
  polls: PollService;
  lists: ListService;
  /** Reading positions of home and notifications. */
  markers: MarkerService;
  /** Direct-message threads of each user. */
  conversations: ConversationService;
  /** Web Push subscriptions, one per access token. */
  pushSubscriptions: PushSubscriptionService;
  scheduledStatuses: ScheduledStatusService;
  /** What other servers' activities change here (federation calls it once it has read them). */
  remoteActivity: RemoteActivity;
  /** OAuth client applications and their tokens. */
  applications: ApplicationService;
  /** Hashtags followed and featured, and staff's review of them. */
  tags: TagService;
  /** Staff's review of what may trend. */
  trends: TrendService;
  jobs: DueJobs;
  vapidPublicKey: string;
  /** Mastodon's 300 requests per 5 minutes per token or address; false only for benchmarks. */
  generalRateLimit: boolean;
  /** Every API route with its auth rule (the scope test walks this list). */
  routes: RegisteredRoute[];
  /** ActivityPub, when the server runs (the admin CLI opens the database without it). */
  federation?: RemoteAccounts;
}

/** What the Mastodon API needs of federation: accounts on other servers, by handle or URL. */
export interface RemoteAccounts {
  /** Known accounts, or unknown ones looked up through WebFinger; null when there is none. `refresh`: fetch even a known one again. */
  resolveAccount(input: string, options?: { refresh?: boolean }): Promise<Account | null>;
  /** A post by its ActivityPub id: ours, known, or fetched from its server (stored without entering feeds). */
  resolveStatus(uri: string): Promise<StatusRow | null>;
  /** Looks up the remote accounts a text mentions that are not known yet, so posting links and notifies them. */
  resolveMentions(text: string): Promise<void>;
  /** The ActivityPub documents of a local account's archive, as federation serves them. */
  archiveDocuments: ArchiveDocuments;
}
