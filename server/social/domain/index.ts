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
