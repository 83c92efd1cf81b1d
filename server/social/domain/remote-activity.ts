import type { Account, QuotePolicy, QuoteRow, QuoteState, SocialStore, StatusRow, Visibility } from '../store/index.ts';
import { recordDirectMessage } from './conversations.ts';
import type { NotificationService } from './notifications.ts';
import { deleteReblogsOfAccount } from './reblogs-of-deleted.ts';

/** A quote as a remote post states it (federation reads it from the post and its approval stamp). */
export interface StatedQuote {
  quotedStatus: StatusRow | null;
  state: QuoteState;
  approvalUri: string | null;
  legacy: boolean;
}

/** How a remote account's follow starts: boosts shown, no post notifications, every language. */
const REMOTE_FOLLOW = { showReblogs: true, notify: false, languages: null };

/** A remote status as federation read it (its text already sanitized). */
export interface ReceivedStatus {
  uri: string;
  url: string | null;
  content: string;
  spoilerText: string;
  sensitive: boolean;
  language: string | null;
  visibility: Visibility;
  tags: string[];
  /** Custom emojis the text uses, kept under the author's domain. */
  emojis: { shortcode: string; uri: string | null; url: string }[];
  publishedAt: number | null;
  /** A Question's poll: option names, the counts its server reports, single or multiple choice, end. */
  poll: {
    options: string[];
    tallies: number[];
    multiple: boolean;
    expiresAt: number | null;
    voters: number | null;
  } | null;
}

/**
 * What other servers' activities change here, once federation has checked and read them: favourites and boosts
 * of statuses, quote approvals and revocations, remote profiles. Each change is told on the bus after it commits.
 */
export class RemoteActivity {
  private readonly store: SocialStore;
  private readonly notifications: NotificationService;
  constructor(store: SocialStore, notifications: NotificationService) {
    this.store = store;
    this.notifications = notifications;
  }

  /** A remote account favourites (or reacts to) a status; a second time changes nothing. */
  favourited(sender: Account, status: StatusRow): void {
    this.store.transaction(() => {
      if (!this.store.interactions.favourite(sender.id, status.id)) return;
      this.notifications.notify(status.accountId, sender.id, 'favourite', status.id);
      this.store.events.emit('status.favourited', { statusId: status.id, accountId: sender.id });
    });
  }

  unfavourited(sender: Account, statusId: string): void {
    this.store.transaction(() => {
      if (!this.store.interactions.unfavourite(sender.id, statusId)) return;
      this.store.notifications.deleteFor(sender.id, 'favourite', statusId);
      this.store.events.emit('status.unfavourited', { statusId, accountId: sender.id });
    });
  }

  /** A boost becomes a reblog row in the booster's name, in local followers' home feeds; a local author is notified. */
  boosted(booster: Account, original: StatusRow, boost: { uri: string; visibility: Visibility }): void {
    this.store.transaction(() => {
      const id = this.store.statuses.insert({
        accountId: booster.id,
        local: false,
        uri: boost.uri,
        reblogOfId: original.id,
        visibility: boost.visibility,
      });
      const reblog = this.store.statuses.byId(id)!;
      const homeRecipients = this.store.feeds.distributeStatus(reblog, [], booster.domain !== null);
      const author = this.store.accounts.byId(original.accountId);
      if (author && author.domain === null) this.notifications.notify(author.id, booster.id, 'reblog', original.id);
      this.store.events.emit('status.created', { status: reblog, homeRecipients });
    });
  }

  /** A boost undone: the reblog goes, from home feeds too, and so does its notification. */
  unboosted(sender: Account, reblog: StatusRow): void {
    this.store.transaction(() => {
      this.store.statuses.markDeleted(reblog);
      const homeRecipients = this.store.feeds.holders([reblog.id]);
      this.store.feeds.remove([reblog.id]);
      this.store.notifications.deleteFor(sender.id, 'reblog', reblog.reblogOfId!);
      this.store.events.emit('status.deleted', { status: reblog, homeRecipients, tags: [] });
    });
  }

  /** A local author grants a remote quote request: the quote is accepted (its author notified once) and remembered. */
  quoteRequestAccepted(
    quote: QuoteRow,
    quoting: StatusRow,
    parties: { authorId: string; requesterId: string },
    requestUri: string,
  ): void {
    this.store.transaction(() => {
      if (quote.state !== 'accepted') {
        this.store.quotes.setState(quote, 'accepted', null);
        this.notifications.notify(parties.authorId, parties.requesterId, 'quote', quoting.id);
      }
      this.store.quotes.setActivityUri(quote, requestUri);
      this.store.events.emit('status.updated', { status: this.store.statuses.byId(quoting.id)! });
    });
  }

  /** The quoted remote author approved a local quote, with the address of their stamp. */
  quoteApproved(quote: QuoteRow, stampUri: string): void {
    this.store.transaction(() => {
      this.store.quotes.setState(quote, 'accepted', stampUri);
      this.store.events.emit('status.updated', { status: this.store.statuses.byId(quote.statusId)! });
    });
  }

  /**
   * The quoted author deleted their stamp: accepted becomes revoked, pending rejected. Readers here see it at once;
   * other servers learn it from the Delete, not from an Update of the post.
   */
  quoteStampDeleted(quote: QuoteRow): void {
    this.store.transaction(() => {
      this.store.quotes.setState(quote, quote.state === 'accepted' ? 'revoked' : 'rejected', null);
      this.store.events.emit('status.updated', {
        status: this.store.statuses.byId(quote.statusId)!,
        unfederated: true,
      });
    });
  }

  /**
   * What a remote post now says of quotes: who may quote it, and what it quotes (`stampChanged`: whether the stated
   * approval differs from the stored one). Told as an update when the quote changed.
   */
  quotesStated(
    status: StatusRow,
    stated: { policy: QuotePolicy; quote: StatedQuote | null },
    stampChanged: (current: QuoteRow, next: StatedQuote) => boolean,
  ): void {
    const current = this.store.quotes.ofStatus(status.id);
    const next = stated.quote;
    let changed = false;
    this.store.transaction(() => {
      if (status.quoteApprovalPolicy !== stated.policy) this.store.statuses.setQuotePolicy(status.id, stated.policy);
      if (!next) {
        if (current) this.store.quotes.remove(current);
        changed = current !== null;
        return;
      }
      const quotedStatusId = next.quotedStatus?.id ?? null;
      if (!current) {
        this.store.quotes.insert(status.id, quotedStatusId, next.quotedStatus?.accountId ?? null, next.state, {
          approvalUri: next.approvalUri,
          legacy: next.legacy,
        });
        changed = true;
        return;
      }
      if (current.quotedStatusId === quotedStatusId && !stampChanged(current, next)) return;
      this.store.quotes.replace(current, {
        quotedStatusId,
        quotedAccountId: next.quotedStatus?.accountId ?? null,
        state: next.state,
        approvalUri: next.approvalUri,
        legacy: next.legacy,
      });
      changed = true;
    });
    if (changed) this.store.events.emit('status.updated', { status: this.store.statuses.byId(status.id)! });
  }

  /**
   * Stores a remote status (Create) with its poll, mentions, emojis, hashtags and thread, and what `attach` adds
   * in the same transaction (federation's quote and attachment rows); unless `quiet` (an old post fetched for a
   * profile), puts it in the home feeds of local followers, mentioned users and tag followers, notifies the
   * mentioned local users, files a direct message in its conversations, and tells it. Who may quote it: `quotePolicy`
   * (default public). `mentioned` is read by the caller in the same synchronous turn: not read again to notify.
   */
  statusReceived(
    author: Account,
    received: ReceivedStatus,
    thread: { parent: StatusRow | null; mentioned: Account[]; quiet: boolean; quotePolicy?: QuotePolicy },
    attach: (statusId: string) => void,
  ): StatusRow {
    const store = this.store;
    const { parent, mentioned } = thread;
    return store.transaction(() => {
      const conversationId = parent?.conversationId ?? store.statuses.newConversation();
      const poll = received.poll;
      const pollId = poll
        ? store.polls.insertRemote({
            accountId: author.id,
            options: poll.options,
            multiple: poll.multiple,
            expiresAt: poll.expiresAt,
            tallies: poll.tallies,
            voters: poll.voters,
          })
        : null;
      const now = store.now();
      const id = store.statuses.insert({
        accountId: author.id,
        local: false,
        uri: received.uri,
        url: received.url,
        inReplyToId: parent?.id ?? null,
        inReplyToAccountId: parent?.accountId ?? null,
        conversationId,
        content: received.content,
        spoilerText: received.spoilerText,
        visibility: received.visibility,
        sensitive: received.sensitive,
        language: received.language,
        createdAt: received.publishedAt !== null && received.publishedAt <= now ? received.publishedAt : now,
        pollId,
        // In the insert: an UPDATE after it cost as much as the insert itself (about 170 µs; it moves the version).
        quoteApprovalPolicy: thread.quotePolicy,
      });
      if (pollId) store.polls.setStatus(pollId, id);
      attach(id);
      store.statuses.insertMentions(
        id,
        mentioned.map((a) => a.id),
      );
      if (author.domain) for (const e of received.emojis) store.emojis.putRemote({ ...e, domain: author.domain });
      store.statuses.addTags(id, received.tags);
      const status = store.statuses.byId(id)!;
      if (thread.quiet) return status;
      const localMentioned = mentioned.filter((a) => a.domain === null);
      const homeRecipients = [
        ...store.feeds.distributeStatus(
          status,
          localMentioned.map((a) => a.id),
          author.domain !== null,
        ),
        ...store.feeds.distributeToTagFollowers(status),
      ];
      for (const account of localMentioned)
        this.notifications.notify(account.id, author.id, 'mention', id, { recipient: account, status });
      // Direct messages join their conversations as the local posting path's do.
      if (status.visibility === 'direct')
        recordDirectMessage(store, { statusId: id, conversationId, author, mentioned });
      store.events.emit('status.created', { status, homeRecipients });
      return status;
    });
  }

  /**
   * Applies a remote status's Update: a poll's counts, its emojis, and what `syncMedia` changes of its attachments
   * (true when they changed); text, warnings, mentions and hashtags only when the post reads differently (`edited`)
   * or its media changed (as Mastodon: a re-sent post with new counts or a new stamp is not an edit).
   */
  statusUpdated(
    status: StatusRow,
    author: Account,
    received: ReceivedStatus,
    change: { edited: boolean; mentioned: Account[] },
    syncMedia: () => boolean,
  ): StatusRow {
    const store = this.store;
    const { mentioned } = change;
    return store.transaction(() => {
      if (received.poll && status.pollId)
        store.polls.setRemoteTallies(
          status.pollId,
          received.poll.tallies,
          received.poll.voters,
          received.poll.expiresAt,
        );
      if (author.domain) for (const e of received.emojis) store.emojis.putRemote({ ...e, domain: author.domain });
      const mediaChanged = syncMedia();
      if (!change.edited && !mediaChanged) return status;
      store.statuses.updateContent(status.id, {
        text: '',
        content: received.content,
        spoilerText: received.spoilerText,
        sensitive: received.sensitive,
        language: received.language,
        pollId: status.pollId,
        editedAt: store.now(),
      });
      const newly = store.statuses.replaceMentions(
        status.id,
        mentioned.map((a) => a.id),
      );
      store.statuses.setTags(status.id, received.tags);
      for (const accountId of newly) {
        if (mentioned.find((a) => a.id === accountId)?.domain === null)
          this.notifications.notify(accountId, author.id, 'mention', status.id);
      }
      const updated = store.statuses.byId(status.id)!;
      store.events.emit('status.updated', { status: updated });
      return updated;
    });
  }

  /**
   * A remote account deleted on its server, as Mastodon's DeleteAccountService: the reblogs others made of its
   * statuses go, then the account with its statuses, follows, notifications and favourites
   * (FederationRepository.forgetRemoteAccount), each status told to streaming as a deletion.
   */
  accountDeleted(accountId: string): void {
    this.store.transaction(() => {
      deleteReblogsOfAccount(this.store, accountId);
      const listIds = this.store.lists.withMember(accountId).map((l) => l.id);
      const statuses = this.store.federation.forgetRemoteAccount(accountId);
      if (statuses.length > 0) this.store.events.emit('account.statuses.deleted', { accountId, statuses, listIds });
    });
  }

  /** A remote status deleted on its author's word: it and its reblogs leave every feed, with their notifications. */
  statusDeleted(status: StatusRow): void {
    this.store.transaction(() => {
      const reblogs = this.store.statuses.reblogsOf(status.id);
      const tags = this.store.statuses.tags([status.id]).get(status.id) ?? [];
      for (const s of [status, ...reblogs]) this.store.statuses.markDeleted(s);
      const ids = [status.id, ...reblogs.map((r) => r.id)];
      const homeRecipients = this.store.feeds.holders(ids);
      this.store.feeds.remove(ids);
      this.store.notifications.deleteForStatuses(ids);
      this.store.interactions.forgetStatuses(ids);
      this.store.events.emit('status.deleted', { status, homeRecipients, tags });
    });
  }

  // ---- relationships

  /**
   * A remote account follows a local one: a request when the local account is locked (its owner notified once), else
   * a follow (notified). Returns which, so federation answers the follow only when it is one.
   */
  followedBy(follower: Account, target: Account, followUri: string): 'requested' | 'followed' {
    const rel = this.store.relationships;
    return this.store.transaction(() => {
      if (target.locked) {
        if (rel.upsertFollowRequest(follower.id, target.id, REMOTE_FOLLOW, followUri))
          this.notifications.notify(target.id, follower.id, 'follow_request');
        return 'requested';
      }
      rel.upsertFollow(follower.id, target.id, REMOTE_FOLLOW, followUri);
      this.notifications.notify(target.id, follower.id, 'follow');
      return 'followed';
    });
  }

  /** A remote account accepted a local one's follow request: it becomes a follow, and its posts enter home. */
  followAccepted(local: Account, remote: Account): void {
    const rel = this.store.relationships;
    this.store.transaction(() => {
      const request = rel.followRequest(local.id, remote.id);
      if (!request) return;
      rel.upsertFollow(local.id, remote.id, request, request.uri);
      rel.deleteFollowRequest(local.id, remote.id);
      this.store.feeds.merge(local.id, remote.id, 200);
    });
  }

  /** A remote account rejected a local one's follow (or request), or removed it as a follower. */
  followRejected(local: Account, remote: Account): void {
    const rel = this.store.relationships;
    this.store.transaction(() => {
      rel.deleteFollowRequest(local.id, remote.id);
      if (rel.deleteFollow(local.id, remote.id)) this.store.feeds.unmerge(local.id, remote.id);
    });
  }

  /** A remote account blocks a local one: follows end both ways, their posts and lists part, its notifications go. */
  blockedBy(blocker: Account, target: Account): void {
    this.store.transaction(() => {
      this.store.relationships.insertBlock(blocker.id, target.id);
      this.store.relationships.severBetween(blocker.id, target.id);
      this.store.feeds.unmerge(blocker.id, target.id);
      this.store.feeds.unmerge(target.id, blocker.id);
      this.store.lists.removeFromOwnerLists(target.id, blocker.id);
      this.store.notifications.deleteAllFrom(target.id, blocker.id);
    });
  }

  unblockedBy(blocker: Account, target: Account): void {
    this.store.relationships.deleteBlock(blocker.id, target.id);
  }

  /** A remote profile was stored afresh: streams and clients are told. */
  accountRefreshed(accountId: string): void {
    this.store.events.emit('account.updated', { accountId });
  }
}
