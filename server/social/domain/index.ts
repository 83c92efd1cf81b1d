/**
 * The domain's public face: the services routes and the CLI call to change anything. (Older services are still
 * imported from their own files; they move here as their callers are touched.)
 */
export { MarkerService } from './markers.ts';
export { ListService, MAX_LIST_ACCOUNTS } from './lists.ts';
export { ConversationService } from './conversations.ts';
export { PushSubscriptionService } from './push-subscriptions.ts';
export { ScheduledStatusService } from './scheduled-statuses.ts';
export { TagService } from './tags.ts';
export { TrendService } from './trends.ts';
export { ApplicationService } from './applications.ts';
export { CustomEmojiService } from './custom-emojis.ts';
export { ensureServerKeys, InstanceService } from './instance.ts';
export { accountByAddress } from './account-lookup.ts';
export { AccountArchive } from './account-archive.ts';
export type { ArchiveDocuments, JsonObject } from './account-archive.ts';
export { AccountData } from './account-data.ts';
export { DATA_KINDS, MAX_IMPORT_BYTES, type DataKind } from './account-data-csv.ts';
export { AccountService, userStateError } from './accounts.ts';
export { AdminMetrics, MAX_DAILY_RETENTION_DAYS, daySpan } from './admin-metrics.ts';
export { AnnouncementService } from './announcements.ts';
export { AnnualReports, reportReferences } from './annual-reports.ts';
export { CollectionService } from './collections.ts';
export { relayEventsToTable, startEventRelay } from './event-relay.ts';
export { FilterService } from './filters.ts';
export type { FilterMatch, KeywordAttribute } from './filters.ts';
export { startImportWorker } from './import-worker.ts';
export type { ImportWorkerOptions } from './import-worker.ts';
export { DueJobs } from './jobs.ts';
export { MediaService, parseFocus } from './media.ts';
export { ACCOUNT_ACTIONS, ModerationService, canonicalEmailHash, normalizeDomain } from './moderation.ts';
export { AccountMoves } from './moves.ts';
export { GROUPABLE_TYPES, NotificationService } from './notifications.ts';
export { PollService } from './polls.ts';
export { RelationshipService, typedDomainHost } from './relationships.ts';
export { ReportService } from './reports.ts';
export { IDEMPOTENCY_WINDOW_MS, StatusService, UnexpectedMentions } from './statuses/index.ts';
export type { EditInput, MediaAttributeInput, PollInput, PostInput } from './statuses/index.ts';
export { SuggestionService } from './suggestions.ts';
export { termsVersions } from './terms-of-service.ts';
export { RemoteActivity, type ReceivedStatus, type StatedQuote } from './remote-activity.ts';
