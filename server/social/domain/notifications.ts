import {
  POLICY_KEYS,
  type Account,
  type NotificationPolicy,
  type NotificationType,
  type PolicyVerdict,
  type SocialStore,
  type StatusRow,
  type WarningAction,
} from '../store/index.ts';

/** Types whose notifications gather into groups (Mastodon 4.3's), and how long one group may span. */
export const GROUPABLE_TYPES: ReadonlySet<NotificationType> = new Set([
  'favourite',
  'reblog',
  'follow',
  'admin.sign_up',
]);
const HOUR_MS = 60 * 60 * 1000;
const MAXIMUM_GROUP_SPAN_HOURS = 12;

/** Types a notification policy never holds back (Mastodon's NON_FILTERABLE_TYPES). */
const UNFILTERABLE_TYPES: ReadonlySet<NotificationType> = new Set([
  'admin.sign_up',
  'admin.report',
  'poll',
  'update',
  'quoted_update',
]);
const NEW_ACCOUNT_MS = 30 * 24 * HOUR_MS;
const SEVERITY: Record<PolicyVerdict, number> = { accept: 0, filter: 1, drop: 2 };

/** Types whose notifications are about a status. */
const STATUS_TYPES: ReadonlySet<NotificationType> = new Set([
  'mention',
  'status',
  'reblog',
  'favourite',
  'poll',
  'update',
  'quote',
  'quoted_update',
]);

/** Rows both checks of a notification read, each read at most once. */
interface NotificationRows {
  sender(): Account | null;
  status(): StatusRow | null;
}

/**
 * Rows the caller read in the same synchronous write as the notification (a status it just stored, the accounts
 * it mentions), so nothing can have changed them: not read again (two statements for an account, one for a status).
 */
export interface KnownRows {
  recipient?: Account;
  status?: StatusRow;
}

/** `read`'s value, read at the first call only. */
function once<T>(read: () => T): () => T {
  let value: { v: T } | null = null;
  return () => (value ??= { v: read() }).v;
}

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
  private dropReason(
    recipientId: string,
    fromAccountId: string,
    type: NotificationType,
    statusId: string | null,
    rows: NotificationRows,
    knownRecipient: Account | undefined,
  ): string | null {
    const recipient = knownRecipient ?? this.store.accounts.byId(recipientId);
    if (!recipient || recipient.domain !== null || recipient.suspendedAt !== null || recipient.deletedAt !== null)
      return 'recipient unavailable';
    if (recipientId === fromAccountId && type !== 'poll') return 'from self';
    const sender = rows.sender();
    if (!sender || sender.suspendedAt !== null || sender.deletedAt !== null) return 'sender unavailable';
    const rel = this.store.relationships;
    if (recipientId !== fromAccountId) {
      if (rel.blocking(recipientId, fromAccountId)) return 'sender blocked';
      if (sender.domain !== null && this.store.userDomainBlocks.domainBlocked(recipientId, sender.domain))
        return 'domain blocked';
      const mute = rel.mute(recipientId, fromAccountId);
      if (mute && (mute.hideNotifications || type === 'mention')) return 'sender muted';
    }
    if (statusId !== null && STATUS_TYPES.has(type)) {
      const status = rows.status();
      if (!status || status.deletedAt !== null) return 'status gone';
      if (this.store.interactions.conversationMuted(recipientId, status.conversationId)) return 'conversation muted';
    }
    return null;
  }

  /**
   * Notifies a local user unless the notification is dropped, by the rules above or by the user's
   * notification policy; one the policy filters is kept out of sight in the sender's notification request
   * (and neither streamed nor pushed). Returns the id, or null when dropped.
   */
  notify(
    recipientId: string,
    fromAccountId: string,
    type: NotificationType,
    statusId: string | null = null,
    known: KnownRows = {},
  ): string | null {
    // The sender's and the status's rows, read once for both checks (each read is two statements or one).
    const rows = {
      sender: once(() => this.store.accounts.byId(fromAccountId)),
      status: once(() => known.status ?? (statusId === null ? null : this.store.statuses.byId(statusId))),
    };
    if (this.dropReason(recipientId, fromAccountId, type, statusId, rows, known.recipient) !== null) return null;
    const verdict = this.policyVerdict(recipientId, fromAccountId, type, rows);
    if (verdict === 'drop') return null;
    if (verdict === 'filter') {
      const id = this.store.notifications.insert({
        accountId: recipientId,
        fromAccountId,
        type,
        statusId,
        groupKey: this.groupKey(recipientId, type, statusId),
        filtered: true,
      });
      this.store.notificationRequests.record(recipientId, fromAccountId, statusId);
      return id;
    }
    return this.insert(recipientId, fromAccountId, type, statusId);
  }

  /**
   * What the recipient's notification policy says of this notification (Mastodon 4.3's rules): the most
   * severe verdict of the policy's conditions the sender meets. Staff, accepted senders, and replies to
   * the recipient's own posts always pass.
   */
  private policyVerdict(
    recipientId: string,
    fromAccountId: string,
    type: NotificationType,
    rows: NotificationRows,
  ): PolicyVerdict {
    if (recipientId === fromAccountId || UNFILTERABLE_TYPES.has(type)) return 'accept';
    const policy = this.store.notificationRequests.policy(recipientId);
    if (Object.values(policy).every((v) => v === 'accept')) return 'accept';
    const sender = rows.sender();
    if (!sender || isStaff(sender) || this.store.notificationRequests.permitted(recipientId, fromAccountId))
      return 'accept';
    const status = rows.status();
    if (status && type === 'mention' && status.inReplyToAccountId === recipientId) return 'accept';
    const rel = this.store.relationships;
    const following = rel.follow(recipientId, fromAccountId) !== null;
    const followedBy = rel.follow(fromAccountId, recipientId) !== null;
    const applies: PolicyVerdict[] = [];
    if (!following) applies.push(policy.for_not_following);
    if (!followedBy) applies.push(policy.for_not_followers);
    if (this.store.now() - sender.createdAt < NEW_ACCOUNT_MS) applies.push(policy.for_new_accounts);
    if (type === 'mention' && status?.visibility === 'direct' && !following) applies.push(policy.for_private_mentions);
    if (sender.silencedAt !== null && !following) applies.push(policy.for_limited_accounts);
    return applies.reduce<PolicyVerdict>((worst, v) => (SEVERITY[v] > SEVERITY[worst] ? v : worst), 'accept');
  }

  /** Inserts without the drop rules (admin notifications) and tells the bus once the write commits. */
  insert(recipientId: string, fromAccountId: string, type: NotificationType, statusId: string | null = null): string {
    const groupKey = this.groupKey(recipientId, type, statusId);
    const notificationId = this.store.notifications.insert({
      accountId: recipientId,
      fromAccountId,
      type,
      statusId,
      groupKey,
    });
    this.store.events.emit('notification.created', {
      notificationId,
      accountId: recipientId,
      fromAccountId,
      notificationType: type,
      statusId,
    });
    return notificationId;
  }

  /** Tells an account of a moderation decision about it (an AccountWarning), past every drop rule and policy. */
  warn(moderatorId: string, targetAccountId: string, action: WarningAction, statusIds: string[], text = ''): string {
    const warningId = this.store.warnings.insert({ accountId: moderatorId, targetAccountId, action, text, statusIds });
    const notificationId = this.store.notifications.insert({
      accountId: targetAccountId,
      fromAccountId: moderatorId,
      type: 'moderation_warning',
      accountWarningId: warningId,
    });
    this.store.events.emit('notification.created', {
      notificationId,
      accountId: targetAccountId,
      fromAccountId: moderatorId,
      notificationType: 'moderation_warning',
      statusId: null,
    });
    return warningId;
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
    if (Number.isSafeInteger(previousBucket) && bucket < previousBucket + MAXIMUM_GROUP_SPAN_HOURS)
      bucket = previousBucket;
    return `${prefix}-${bucket}`;
  }

  /** Dismisses one of a user's notifications; false when it is not theirs or not there. */
  dismiss(accountId: string, notificationId: string): boolean {
    return this.store.notifications.dismiss(accountId, notificationId);
  }

  /** Dismisses those of `ids` that are the user's own. */
  dismissMany(accountId: string, ids: readonly string[]): void {
    this.store.notifications.dismissMany(accountId, ids);
  }

  /** Dismisses a grouped notification: every notification of the group. */
  dismissGroup(accountId: string, groupKey: string): void {
    this.store.notifications.deleteGroup(accountId, groupKey);
  }

  clear(accountId: string): void {
    this.store.notifications.clear(accountId);
  }

  /** Changes the named conditions of a user's filtering policy; the others keep their verdicts. */
  updatePolicy(accountId: string, changes: Partial<NotificationPolicy>): NotificationPolicy {
    const policy = { ...this.store.notificationRequests.policy(accountId) };
    for (const key of POLICY_KEYS) policy[key] = changes[key] ?? policy[key];
    this.store.notificationRequests.setPolicy(accountId, policy);
    return policy;
  }

  /**
   * Accepts (the filtered notifications join the others, and the account is let through from then on) or dismisses
   * the user's notification requests among `ids`, in one transaction.
   */
  settleRequests(accountId: string, ids: readonly string[], action: 'accept' | 'dismiss'): void {
    const requests = this.store.notificationRequests;
    const rows = requests.byIds(accountId, ids);
    this.store.transaction(() => {
      for (const row of rows) {
        if (action === 'accept') requests.accept(row);
        else requests.dismiss(row);
      }
    });
  }
}

function isStaff(account: Account): boolean {
  const role = account.user?.role;
  return role === 'owner' || role === 'admin' || role === 'moderator';
}
