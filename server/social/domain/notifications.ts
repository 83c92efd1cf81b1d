import type { NotificationType, SocialStore } from '../store/index.ts';

/** Types whose notifications gather into groups (Mastodon 4.3's), and how long one group may span. */
export const GROUPABLE_TYPES: ReadonlySet<NotificationType> = new Set(['favourite', 'reblog', 'follow', 'admin.sign_up']);
const HOUR_MS = 60 * 60 * 1000;
const MAXIMUM_GROUP_SPAN_HOURS = 12;

/** Types whose notifications are about a status. */
const STATUS_TYPES: ReadonlySet<NotificationType> = new Set(['mention', 'status', 'reblog', 'favourite', 'poll', 'update', 'quote', 'quoted_update']);

/**
 * Creates notifications for local users, dropping those Mastodon drops: to remote or unavailable accounts,
 * from oneself (except a poll's own end), from blocked accounts or domains, from accounts muted with
 * notifications, mentions from any muted account, and anything about a conversation the user muted.
 */
export class NotificationService {
  private readonly store: SocialStore;
  constructor(store: SocialStore) {
    this.store = store;
  }

  /** Why a notification would be dropped, or null when it is delivered. */
  dropReason(recipientId: string, fromAccountId: string, type: NotificationType, statusId: string | null): string | null {
    const recipient = this.store.accounts.byId(recipientId);
    if (!recipient || recipient.domain !== null || recipient.suspendedAt !== null || recipient.deletedAt !== null) return 'recipient unavailable';
    if (recipientId === fromAccountId && type !== 'poll') return 'from self';
    const sender = this.store.accounts.byId(fromAccountId);
    if (!sender || sender.suspendedAt !== null || sender.deletedAt !== null) return 'sender unavailable';
    const rel = this.store.relationships;
    if (recipientId !== fromAccountId) {
      if (rel.blocking(recipientId, fromAccountId)) return 'sender blocked';
      if (sender.domain !== null && rel.domainBlocked(recipientId, sender.domain)) return 'domain blocked';
      const mute = rel.mute(recipientId, fromAccountId);
      if (mute && (mute.hideNotifications || type === 'mention')) return 'sender muted';
    }
    if (statusId !== null && STATUS_TYPES.has(type)) {
      const status = this.store.statuses.byId(statusId);
      if (!status || status.deletedAt !== null) return 'status gone';
      if (this.store.interactions.conversationMuted(recipientId, status.conversationId)) return 'conversation muted';
    }
    return null;
  }

  /** Notifies a local user unless the notification is dropped; returns the id, or null when dropped. */
  notify(recipientId: string, fromAccountId: string, type: NotificationType, statusId: string | null = null): string | null {
    if (this.dropReason(recipientId, fromAccountId, type, statusId) !== null) return null;
    return this.insert(recipientId, fromAccountId, type, statusId);
  }

  /** Inserts without the drop rules (admin notifications) and tells the bus once the write commits. */
  insert(recipientId: string, fromAccountId: string, type: NotificationType, statusId: string | null = null): string {
    const groupKey = this.groupKey(recipientId, type, statusId);
    const notificationId = this.store.notifications.insert({ accountId: recipientId, fromAccountId, type, statusId, groupKey });
    this.store.events.emit('notification.created', { notificationId, accountId: recipientId, fromAccountId, notificationType: type, statusId });
    return notificationId;
  }

  /**
   * Mastodon's group key: favourites and reblogs of one status, follows, sign-ups, in hour buckets; a new
   * notification joins the previous group of its kind while that group is less than 12 hours old.
   */
  private groupKey(recipientId: string, type: NotificationType, statusId: string | null): string | null {
    if (!GROUPABLE_TYPES.has(type)) return null;
    const prefix = type === 'favourite' || type === 'reblog' ? `${type}-${statusId}` : type;
    let bucket = Math.floor(this.store.now() / HOUR_MS);
    const previous = this.store.notifications.latestGroupKey(recipientId, prefix);
    const previousBucket = previous ? Number(previous.slice(prefix.length + 1)) : NaN;
    if (Number.isSafeInteger(previousBucket) && bucket < previousBucket + MAXIMUM_GROUP_SPAN_HOURS) bucket = previousBucket;
    return `${prefix}-${bucket}`;
  }
}
