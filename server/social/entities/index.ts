// The public face of server/social/entities/: what code outside the folder uses of it.
export { AccountPresenter } from './account.ts';
export {
  defaultLocale,
  presentAdminAccounts,
  presentAdminReports,
  serializeCanonicalEmailBlock,
  serializeDomainAllow,
  serializeDomainBlock,
  serializeEmailDomainBlock,
  serializeIpBlock,
} from './admin.ts';
export { serializeAnnouncement } from './announcement.ts';
export { presentAnnualReports } from './annual-report.ts';
export { serializeApplication, serializeCredentialApplication, serializeToken } from './application.ts';
export { presentConversations } from './conversation.ts';
export { isoTime } from './dates.ts';
export { serializeFilter, serializeFilterKeyword, serializeV1Filter } from './filter.ts';
export { activeUsers, serializeInstanceV1, serializeInstanceV2, serializeRules } from './instance.ts';
export { serializeList } from './list.ts';
export { serializeMedia } from './media.ts';
export { presentNotifications } from './notification.ts';
export { serializePoll } from './poll.ts';
export { serializeAdminTrendsLink, serializePublisher, serializeTrendsLink } from './preview-card.ts';
export { serializePushSubscription } from './push.ts';
export { serializeRelationship } from './relationship.ts';
export { STRICT_REMOTE_MEDIA, isPublicMediaUrl, isSvg } from './remote-media.ts';
export { serializeReport } from './report.ts';
export { PERMISSION, hasPermission } from './role.ts';
export { presentScheduled } from './scheduled-status.ts';
export { StatusPresenter } from './status.ts';
export { presentAdminTags, presentTags, serializeFeaturedTag } from './tag.ts';
