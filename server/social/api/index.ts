import type { FastifyInstance } from 'fastify';
import type { SocialContext } from '../context.ts';
import { oauthRoutes } from '../oauth/index.ts';
import { aboutRoutes } from './about.ts';
import { faviconRoutes } from './favicon.ts';
import { accountReadRoutes } from './v1/accounts/accounts.ts';
import { accountCollectionRoutes } from './v1/accounts/collections.ts';
import { accountStatusRoutes } from './v1/accounts/statuses.ts';
import { credentialRoutes } from './v1/accounts/credentials.ts';
import { registrationRoutes } from './v1/accounts/registration.ts';
import { relationshipRoutes } from './v1/accounts/relationships.ts';
import { annualReportRoutes } from './v1/annual-reports.ts';
import { appRoutes } from './v1/apps.ts';
import { blockRoutes } from './v1/blocks.ts';
import { bookmarksRoutes } from './v1/bookmarks.ts';
import { conversationRoutes } from './v1/conversations.ts';
import { domainBlockRoutes } from './v1/domain-blocks.ts';
import { emailRoutes } from './v1/emails.ts';
import { favouritesRoutes } from './v1/favourites.ts';
import { followRequestRoutes } from './v1/follow-requests.ts';
import { followRoutes } from './v1/follows.ts';
import { instanceRoutes } from './v1/instance.ts';
import { filterV1Routes } from './v1/filters.ts';
import { listRoutes } from './v1/lists.ts';
import { tagRoutes } from './v1/tags.ts';
import { directoryRoutes } from './v1/directory.ts';
import { announcementRoutes } from './v1/announcements.ts';
import { reportRoutes } from './v1/reports.ts';
import { markerRoutes } from './v1/markers.ts';
import { mediaRoutes } from './v1/media.ts';
import { muteRoutes } from './v1/mutes.ts';
import { notificationRoutes } from './v1/notifications.ts';
import { notificationRequestRoutes } from './v1/notification-requests.ts';
import { suggestionRoutes } from './v1/suggestions.ts';
import { trendRoutes } from './v1/trends.ts';
import { customEmojiRoutes } from './v1/custom-emojis.ts';
import { oembedRoutes } from './oembed.ts';
import { statusTranslateRoutes } from './v1/statuses/translate.ts';
import { statusInteractionPolicyRoutes } from './v1/statuses/interaction-policy.ts';
import { statusQuoteRoutes } from './v1/statuses/quotes.ts';
import { asyncRefreshRoutes } from './v1/async-refreshes.ts';
import { profileRoutes } from './v1/profile.ts';
import { accountMigrationRoutes } from './v1/accounts/migration.ts';
import { accountDataRoutes } from './v1/accounts/data.ts';
import { collectionRoutes } from './v1/collections.ts';
import { adminAccountRoutes } from './v1/admin/accounts.ts';
import { adminDomainRoutes } from './v1/admin/domain-blocks.ts';
import { adminReportRoutes } from './v1/admin/reports.ts';
import { adminEmailBlockRoutes } from './v1/admin/email-blocks.ts';
import { adminIpBlockRoutes } from './v1/admin/ip-blocks.ts';
import { adminTrendRoutes } from './v1/admin/trends.ts';
import { adminMetricRoutes } from './v1/admin/metrics.ts';
import { adminTagRoutes } from './v1/admin/tags.ts';
import { pollRoutes } from './v1/polls.ts';
import { preferenceRoutes } from './v1/preferences.ts';
import { pushSubscriptionRoutes } from './v1/push/subscription.ts';
import { scheduledStatusRoutes } from './v1/scheduled-statuses.ts';
import { statusActionRoutes } from './v1/statuses/actions.ts';
import { statusRoutes } from './v1/statuses/statuses.ts';
import { timelineRoutes } from './v1/timelines.ts';
import { instanceV2Routes } from './v2/instance.ts';
import { searchV2Routes } from './v2/search.ts';
import { filterV2Routes } from './v2/filters.ts';
import { notificationV2Routes } from './v2/notifications.ts';
import { mediaV2Routes } from './v2/media.ts';
import { wellKnownRoutes } from './well-known.ts';

/** Every route module of the social server, one per Mastodon resource (part 2 appends its own here). */
export const SOCIAL_ROUTE_MODULES: ((app: FastifyInstance, ctx: SocialContext) => void)[] = [
  wellKnownRoutes,
  aboutRoutes,
  faviconRoutes,
  oauthRoutes,
  appRoutes,
  annualReportRoutes,
  registrationRoutes,
  credentialRoutes,
  // Fixed paths (/accounts/relationships, /accounts/lookup…) and /accounts/:id coexist: fastify's router prefers static segments.
  relationshipRoutes,
  accountReadRoutes,
  accountCollectionRoutes,
  followRequestRoutes,
  followRoutes,
  blockRoutes,
  muteRoutes,
  domainBlockRoutes,
  emailRoutes,
  preferenceRoutes,
  markerRoutes,
  listRoutes,
  tagRoutes,
  directoryRoutes,
  suggestionRoutes,
  trendRoutes,
  customEmojiRoutes,
  oembedRoutes,
  asyncRefreshRoutes,
  profileRoutes,
  accountMigrationRoutes,
  accountDataRoutes,
  collectionRoutes,
  adminAccountRoutes,
  adminDomainRoutes,
  adminReportRoutes,
  adminEmailBlockRoutes,
  adminIpBlockRoutes,
  adminTrendRoutes,
  adminMetricRoutes,
  adminTagRoutes,
  announcementRoutes,
  reportRoutes,
  filterV1Routes,
  filterV2Routes,
  notificationV2Routes,
  pushSubscriptionRoutes,
  instanceRoutes,
  instanceV2Routes,
  searchV2Routes,
  // Part 2: statuses, timelines, notifications, conversations, media, polls, scheduled statuses.
  statusRoutes,
  statusActionRoutes,
  statusTranslateRoutes,
  statusInteractionPolicyRoutes,
  statusQuoteRoutes,
  accountStatusRoutes,
  timelineRoutes,
  favouritesRoutes,
  bookmarksRoutes,
  notificationRoutes,
  notificationRequestRoutes,
  conversationRoutes,
  mediaRoutes,
  mediaV2Routes,
  pollRoutes,
  scheduledStatusRoutes,
];
