// The row types alone (leaf modules beside this one): store/index.ts leads back here through the store's event bus.
import type { NotificationType } from './notification-types.ts';
import type { StatusRow } from './status-row.ts';

/**
 * The social server's domain events: what happened, told after the SQLite transaction that made it
 * commits. Streaming, Web Push and federation subscribe here; route handlers never call them directly.
 * Events carry ids and, where a reader needs the state as it was (a deleted status), a snapshot.
 */
export type RelationshipChange =
  | 'follow'
  | 'unfollow'
  | 'follow_request'
  | 'follow_request_authorized'
  | 'follow_request_rejected'
  /** `accountId` removed its follower `targetAccountId` (remove_from_followers). */
  | 'follower_removed'
  | 'block'
  | 'unblock'
  | 'mute'
  | 'unmute';

/** Where a deleted status may have been shown: what streaming needs to tell its deletion (no text). */
export type DeletedStatusRoute = Pick<
  StatusRow,
  'id' | 'accountId' | 'visibility' | 'local' | 'reblogOfId' | 'inReplyToId' | 'inReplyToAccountId'
> & {
  hasMedia: boolean;
  /** Its hashtags, lower-cased. */
  tags: string[];
  /** Local accounts whose home feed held it. */
  homeRecipients: string[];
};

export interface SocialEventMap {
  /** A new status (reblogs included: `status.reblogOfId` is set). `homeRecipients`: local accounts whose home feed got it. */
  'status.created': { status: StatusRow; homeRecipients: string[] };
  /**
   * A status's content changed (an edit, or a poll's counts). `unfederated`: shown to this server's readers
   * only, as Mastodon's local fan-out; the change reaches other servers another way (a quote's revocation: the
   * Delete of its stamp).
   */
  'status.updated': { status: StatusRow; unfederated?: boolean };
  /**
   * A status (or a reblog) was deleted; `status` is the row as it was before deletion, `tags` the hashtags it had
   * (their rows go with the deletion, and the hashtag streams are told; none for a reblog).
   */
  'status.deleted': { status: StatusRow; homeRecipients: string[]; tags: readonly string[] };
  /**
   * A deleted account (a local one, or a remote one deleted on its server) took its statuses (and reblogs) with it;
   * `listIds`: the lists it was a member of. Streaming tells each deletion where the status may have been shown.
   */
  'account.statuses.deleted': { accountId: string; statuses: DeletedStatusRoute[]; listIds: string[] };
  /** A local author took back the permission to quote their post (the quote's own state is `revoked` already). */
  'quote.revoked': { quoteId: string };
  'status.favourited': { statusId: string; accountId: string };
  'status.unfavourited': { statusId: string; accountId: string };
  'notification.created': {
    notificationId: string;
    accountId: string;
    fromAccountId: string;
    notificationType: NotificationType;
    statusId: string | null;
  };
  /** A direct conversation of `accountId` got a new or changed last status. */
  'conversation.updated': { conversationId: string; accountId: string };
  /** A user's filters changed (one event per edit). */
  'filters.changed': { accountId: string };
  'announcement.published': { announcementId: string };
  'announcement.reaction': { announcementId: string; name: string; count: number };
  'announcement.deleted': { announcementId: string };
  /** A user filed a report; `forward`: the reported account's server should get a copy. */
  'report.created': { reportId: string; forward: boolean };
  /** Profile, fields, avatar, header, keys or settings of an account changed. */
  'account.updated': { accountId: string };
  /** A local account pinned one of its posts to its profile (or took it off): its featured collection changed. */
  'status.pinned': { accountId: string; statusId: string };
  'status.unpinned': { accountId: string; statusId: string };
  /** `accountId` voted in a poll (a local vote on a remote poll goes to its server; a local poll's counts go out). */
  'poll.voted': { pollId: string; accountId: string; choices: number[] };
  /** A local account was deleted (federation tells every known server, then forgets its private key). */
  'account.deleted': { accountId: string };
  /** A local account moved to `targetAccountId` (its followers elsewhere are told with Move). */
  'account.moved': { accountId: string; targetAccountId: string };
  /** `accountId` did `change` to `targetAccountId`. */
  'relationship.changed': {
    change: RelationshipChange;
    accountId: string;
    targetAccountId: string;
    /** The ended follow's or request's ActivityPub id, as it was (a Reject names the Follow it answers). */
    followUri?: string | null;
  };
}

export type SocialEventType = keyof SocialEventMap;
export type SocialEventListener<K extends SocialEventType> = (event: SocialEventMap[K]) => void;

interface Pending {
  type: SocialEventType;
  event: unknown;
}

/**
 * A typed in-process bus. `emit` inside a transaction (see `StoreCore.transaction`) is held until the
 * outermost transaction commits and dropped if it rolls back; outside a transaction it is delivered at
 * once. A listener that throws is logged and never affects the writer or the other listeners.
 */
export class SocialEvents {
  private readonly listeners = new Map<SocialEventType, Set<(event: unknown) => void>>();
  private depth = 0;
  private pending: Pending[] = [];
  /** Where each open unit's events begin in `pending`. */
  private readonly marks: number[] = [];
  /** Events of sealed units (write groups committed, their sync running), oldest first. */
  private readonly sealed: Pending[][] = [];
  /** Told when a listener throws (openSocial logs it). */
  onListenerError: (type: SocialEventType, error: unknown) => void;
  /**
   * Also called with each event at `emit`, inside the emitting transaction (the admin CLI writes them for the
   * running server to deliver: see domain/event-relay.ts).
   */
  relay: ((type: SocialEventType, event: unknown) => void) | null = null;

  constructor(onListenerError: (type: SocialEventType, error: unknown) => void = () => {}) {
    this.onListenerError = onListenerError;
  }

  on<K extends SocialEventType>(type: K, listener: SocialEventListener<K>): () => void {
    let set = this.listeners.get(type);
    if (!set) {
      set = new Set();
      this.listeners.set(type, set);
    }
    const wrapped = listener as (event: unknown) => void;
    set.add(wrapped);
    return () => set.delete(wrapped);
  }

  emit<K extends SocialEventType>(type: K, event: SocialEventMap[K]): void {
    this.relay?.(type, event);
    if (this.depth > 0) this.pending.push({ type, event });
    else this.deliver(type, event);
  }

  /** Runs `fn` as a unit: events emitted inside are delivered after it returns, dropped if it throws. */
  batch<T>(fn: () => T): T {
    this.hold();
    let ok = false;
    try {
      const result = fn();
      ok = true;
      return result;
    } finally {
      this.release(ok);
    }
  }

  /**
   * Holds every event emitted from now until the matching `release`: a unit that spans turns of the event loop
   * (a write group, whose transaction commits in a later turn than its writes ran).
   */
  hold(): void {
    this.marks.push(this.pending.length);
    this.depth++;
  }

  /** Ends the innermost `hold`: its events are kept (delivered when no outer unit holds them) or dropped. */
  release(keep: boolean): void {
    const mark = this.marks.pop() ?? 0;
    this.depth--;
    if (this.depth === 0) {
      const pending = this.pending;
      this.pending = [];
      if (keep) for (const p of pending) this.deliver(p.type, p.event);
    } else if (!keep) {
      // An inner unit failed (its savepoint rolled back) while the outer one may still commit: drop only its events.
      this.pending.length = mark;
    }
  }

  /**
   * Ends the innermost `hold` without delivering its events: they wait, in order with other sealed units, until
   * `releaseSealed` delivers (a write group on disk) or drops (its sync failed) the oldest sealed unit's events.
   */
  seal(): void {
    const mark = this.marks.pop() ?? 0;
    this.depth--;
    this.sealed.push(this.pending.splice(mark));
  }

  releaseSealed(keep: boolean): void {
    const events = this.sealed.shift() ?? [];
    if (keep) for (const p of events) this.deliver(p.type, p.event);
  }

  /** Delivers an event another process raised (read from the relay table) to this process's listeners. */
  deliverRelayed(type: SocialEventType, event: unknown): void {
    this.deliver(type, event);
  }

  private deliver(type: SocialEventType, event: unknown): void {
    const set = this.listeners.get(type);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        listener(event);
      } catch (error) {
        this.onListenerError(type, error);
      }
    }
  }
}
