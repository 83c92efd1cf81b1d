import { forbidden, notFound, ValidationFailure } from '../errors.ts';
import { isListed, type Account, type FollowOptions, type SocialStore } from '../store/index.ts';
import type { NotificationService } from './notifications.ts';

/** How many of an account's latest statuses enter a new follower's home feed (Mastodon merges 200). */
export const FOLLOW_MERGE_LIMIT = 200;

export const NOTE_COMMENT_MAX = 2000;
/** The longest mute Mastodon accepts: about 3 years in seconds (clients offer up to 7 days). */
export const MUTE_DURATION_MAX = 100_000_000;

export interface FollowChanges {
  reblogs?: boolean;
  notify?: boolean;
  languages?: string[] | null;
}

/**
 * Follows, follow requests, blocks, mutes, notes, endorsements and domain blocks between accounts, with
 * their side effects (notifications, severed follows). Federation hooks in later through the same calls.
 */
export class RelationshipService {
  private readonly store: SocialStore;
  private readonly notifications: NotificationService;
  constructor(store: SocialStore, notifications: NotificationService) {
    this.store = store;
    this.notifications = notifications;
  }

  /** A follow started: a local follower's home feed gets the account's recent statuses. */
  private followStarted(followerId: string, targetId: string): void {
    this.store.feeds.merge(followerId, targetId, FOLLOW_MERGE_LIMIT);
  }

  private ensureActionable(me: Account, target: Account): void {
    if (me.id === target.id) throw forbidden();
    if (target.suspendedAt !== null || target.deletedAt !== null) throw forbidden();
  }

  /**
   * Follows `target`, or asks to when it is locked or remote (a remote server answers the request).
   * Following again only changes the options given.
   */
  follow(me: Account, target: Account, changes: FollowChanges = {}): void {
    this.ensureActionable(me, target);
    const rel = this.store.relationships;
    if (rel.blocking(target.id, me.id) || rel.blocking(me.id, target.id)) throw forbidden();
    if (target.domain !== null && this.store.userDomainBlocks.domainBlocked(me.id, target.domain)) throw forbidden();
    if (target.movedToAccountId !== null) throw forbidden();
    this.store.transaction(() => {
      const existing = rel.follow(me.id, target.id) ?? rel.followRequest(me.id, target.id);
      const options: FollowOptions = {
        showReblogs: changes.reblogs ?? existing?.showReblogs ?? true,
        notify: changes.notify ?? existing?.notify ?? false,
        languages: changes.languages !== undefined ? changes.languages : (existing?.languages ?? null),
      };
      if (rel.follow(me.id, target.id)) {
        rel.upsertFollow(me.id, target.id, options);
      } else if (target.locked || target.domain !== null || rel.followRequest(me.id, target.id)) {
        const created = rel.upsertFollowRequest(me.id, target.id, options);
        if (created && target.domain === null) this.notifications.notify(target.id, me.id, 'follow_request');
      } else {
        rel.upsertFollow(me.id, target.id, options);
        this.followStarted(me.id, target.id);
        this.notifications.notify(target.id, me.id, 'follow');
      }
      this.store.events.emit('relationship.changed', {
        change: 'follow',
        accountId: me.id,
        targetAccountId: target.id,
      });
    });
  }

  unfollow(me: Account, target: Account): void {
    this.store.transaction(() => {
      let ended = false;
      if (this.store.relationships.deleteFollow(me.id, target.id)) {
        ended = true;
        this.store.feeds.unmerge(me.id, target.id);
        // One's lists hold only accounts one follows.
        this.store.lists.removeFromOwnerLists(me.id, target.id);
        // Mastodon deletes the follow notification with the follow.
        this.store.notifications.deleteBetween(target.id, me.id, 'follow');
      }
      if (this.store.relationships.deleteFollowRequest(me.id, target.id)) {
        ended = true;
        this.store.notifications.deleteBetween(target.id, me.id, 'follow_request');
      }
      if (ended)
        this.store.events.emit('relationship.changed', {
          change: 'unfollow',
          accountId: me.id,
          targetAccountId: target.id,
        });
    });
  }

  /** Accepts a pending request: the follow starts and the accepting user is notified of the new follower. */
  authorizeFollowRequest(me: Account, requester: Account): void {
    this.store.transaction(() => {
      const request = this.store.relationships.followRequest(requester.id, me.id);
      if (!request) throw notFound();
      this.store.relationships.upsertFollow(requester.id, me.id, request, request.uri);
      this.store.relationships.deleteFollowRequest(requester.id, me.id);
      if (requester.domain === null) this.followStarted(requester.id, me.id);
      this.store.notifications.deleteBetween(me.id, requester.id, 'follow_request');
      this.notifications.notify(me.id, requester.id, 'follow');
      this.store.events.emit('relationship.changed', {
        change: 'follow_request_authorized',
        accountId: me.id,
        targetAccountId: requester.id,
      });
    });
  }

  rejectFollowRequest(me: Account, requester: Account): void {
    this.store.transaction(() => {
      const followUri = this.store.relationships.followRequest(requester.id, me.id)?.uri ?? null;
      if (!this.store.relationships.deleteFollowRequest(requester.id, me.id)) throw notFound();
      this.store.notifications.deleteBetween(me.id, requester.id, 'follow_request');
      this.store.events.emit('relationship.changed', {
        change: 'follow_request_rejected',
        accountId: me.id,
        targetAccountId: requester.id,
        followUri,
      });
    });
  }

  removeFromFollowers(me: Account, follower: Account): void {
    this.store.transaction(() => {
      const followUri = this.store.relationships.follow(follower.id, me.id)?.uri ?? null;
      if (!this.store.relationships.deleteFollow(follower.id, me.id)) return;
      this.store.feeds.unmerge(follower.id, me.id);
      // Mastodon deletes the follow notification with the follow.
      this.store.notifications.deleteBetween(me.id, follower.id, 'follow');
      // A follower on another server is told with a Reject of its Follow, as Mastodon does.
      this.store.events.emit('relationship.changed', {
        change: 'follower_removed',
        accountId: me.id,
        targetAccountId: follower.id,
        followUri,
      });
    });
  }

  /** Blocking ends follows and requests both ways and clears what the blocked account caused in our notifications. */
  block(me: Account, target: Account): void {
    if (me.id === target.id) throw forbidden();
    this.store.transaction(() => {
      this.store.relationships.insertBlock(me.id, target.id);
      this.store.relationships.severBetween(me.id, target.id);
      this.store.feeds.unmerge(me.id, target.id);
      this.store.feeds.unmerge(target.id, me.id);
      this.store.lists.removeFromOwnerLists(me.id, target.id);
      this.store.lists.removeFromOwnerLists(target.id, me.id);
      this.store.relationships.deleteEndorsement(me.id, target.id);
      this.store.notifications.deleteAllFrom(me.id, target.id);
      this.store.events.emit('relationship.changed', { change: 'block', accountId: me.id, targetAccountId: target.id });
    });
  }

  unblock(me: Account, target: Account): void {
    if (this.store.relationships.deleteBlock(me.id, target.id))
      this.store.events.emit('relationship.changed', {
        change: 'unblock',
        accountId: me.id,
        targetAccountId: target.id,
      });
  }

  /** Creates or updates a mute; `durationSeconds` 0 means until unmuted. */
  mute(me: Account, target: Account, options: { notifications: boolean; durationSeconds: number }): void {
    if (me.id === target.id) throw forbidden();
    if (options.durationSeconds < 0 || options.durationSeconds > MUTE_DURATION_MAX) {
      throw ValidationFailure.single('duration', 'ERR_INVALID', `must be between 0 and ${MUTE_DURATION_MAX} seconds`);
    }
    const expiresAt = options.durationSeconds > 0 ? this.store.now() + options.durationSeconds * 1000 : null;
    this.store.relationships.upsertMute(me.id, target.id, options.notifications, expiresAt);
    this.store.events.emit('relationship.changed', { change: 'mute', accountId: me.id, targetAccountId: target.id });
  }

  unmute(me: Account, target: Account): void {
    if (this.store.relationships.deleteMute(me.id, target.id))
      this.store.events.emit('relationship.changed', {
        change: 'unmute',
        accountId: me.id,
        targetAccountId: target.id,
      });
  }

  setNote(me: Account, target: Account, comment: string): void {
    if ([...comment].length > NOTE_COMMENT_MAX)
      throw ValidationFailure.single(
        'comment',
        'ERR_TOO_LONG',
        `is too long (maximum is ${NOTE_COMMENT_MAX} characters)`,
      );
    this.store.relationships.setNote(me.id, target.id, comment);
  }

  /** Features an account on one's profile; only accounts one follows may be featured. */
  endorse(me: Account, target: Account): void {
    this.ensureActionable(me, target);
    if (!this.store.relationships.follow(me.id, target.id))
      throw ValidationFailure.single('account', 'ERR_INVALID', 'must be an account you follow');
    this.store.relationships.insertEndorsement(me.id, target.id);
  }

  unendorse(me: Account, target: Account): void {
    this.store.relationships.deleteEndorsement(me.id, target.id);
  }

  /** Hides a whole remote domain for this user and drops follows with its accounts. */
  blockDomain(me: Account, domain: string, localDomain: string): void {
    if (domain === localDomain.toLowerCase())
      throw ValidationFailure.single('domain', 'ERR_INVALID', 'cannot be your own server');
    this.store.transaction(() => {
      this.store.userDomainBlocks.insertDomainBlock(me.id, domain);
      this.store.relationships.deleteFollowersFromDomain(me.id, domain);
    });
  }

  unblockDomain(me: Account, domain: string): void {
    this.store.userDomainBlocks.deleteDomainBlock(me.id, domain);
  }

  /** The account of an id if the API may show it; otherwise a 404 (unconfirmed, unapproved or deleted accounts). */
  visibleAccount(id: string): Account {
    const account = this.store.accounts.byId(id);
    if (!account || !isListed(account)) throw notFound();
    return account;
  }
}

/** Lower-cased, punycoded host of a domain or URL the user typed; null when it is not a host name. */
export function typedDomainHost(input: string): string | null {
  const trimmed = input.trim().toLowerCase();
  if (!trimmed) return null;
  try {
    const host = new URL(trimmed.includes('://') ? trimmed : `https://${trimmed}`).host;
    return (/^[a-z0-9.-]+(:\d+)?$/.test(host) && host.includes('.')) || host.startsWith('localhost') ? host : null;
  } catch {
    return null;
  }
}
