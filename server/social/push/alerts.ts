import type { PushPolicy } from '../store/index.ts';

/** The alert types a subscription may ask for (Mastodon 4.5's list; the rest of the notification types are never pushed). */
export const ALERT_TYPES = [
  'mention',
  'status',
  'reblog',
  'follow',
  'follow_request',
  'favourite',
  'poll',
  'update',
  'admin.sign_up',
  'admin.report',
  'quote',
  'quoted_update',
] as const;

export const POLICIES: readonly PushPolicy[] = ['all', 'followed', 'follower', 'none'];

/** Every alert, off unless asked for (Mastodon's default). */
export function alertsFrom(
  input: Record<string, boolean | undefined> | undefined,
  base: Record<string, boolean> = {},
): Record<string, boolean> {
  const alerts: Record<string, boolean> = {};
  for (const type of ALERT_TYPES) alerts[type] = input?.[type] ?? base[type] ?? false;
  return alerts;
}

/**
 * Whether the policy lets a notification from `senderId` through: `followed` needs the recipient to follow the
 * sender, `follower` the sender to follow the recipient.
 */
export function policyAllows(
  policy: PushPolicy,
  relation: { recipientFollowsSender: boolean; senderFollowsRecipient: boolean },
): boolean {
  switch (policy) {
    case 'all':
      return true;
    case 'none':
      return false;
    case 'followed':
      return relation.recipientFollowsSender;
    case 'follower':
      return relation.senderFollowsRecipient;
  }
}
