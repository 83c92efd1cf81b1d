/* The kinds of notification: a leaf module, which the domain events (events.ts) name without a cycle. */

export const NOTIFICATION_TYPES = [
  'mention',
  'status',
  'reblog',
  'follow',
  'follow_request',
  'favourite',
  'poll',
  'update',
  'quote',
  'quoted_update',
  'admin.sign_up',
  'admin.report',
  'severed_relationships',
  'moderation_warning',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];
