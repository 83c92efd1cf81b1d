import type { SocialContext } from '../context.ts';
import { serializeAnnouncement, presentConversations, presentNotifications } from '../entities/index.ts';
import type { DeletedStatusRoute, SocialEventMap } from '../events.ts';
import type { Account, FilterContext, StatusRow } from '../store/index.ts';
import { channelKey, userStreamGetsNotifications, type Channel } from './channels.ts';

/** A connection that receives events (a WebSocket or an SSE response). */
export interface StreamSink {
  readonly accountId: string;
  readonly scopes: readonly string[];
  /** Sends one event on one of its channels; `payload` undefined for `filters_changed`. Never throws. */
  send(channel: Channel, event: string, payload: string | undefined): void;
}

/** An open streaming connection (a WebSocket or an event stream) of one account. */
export interface OpenConnection {
  readonly accountId: string;
  /** Server shutdown. */
  shutDown(): void;
  /** The account may no longer stream (suspended, disabled, deleted): closed with this reason. */
  refuse(reason: string): void;
}

type Targets = Map<StreamSink, Channel[]>;

/** What of a status decides the shared streams it appears on. */
type StatusPlace = Pick<
  StatusRow,
  'id' | 'accountId' | 'visibility' | 'local' | 'reblogOfId' | 'inReplyToId' | 'inReplyToAccountId'
>;

/**
 * Deletions of a deleted account's statuses told per turn of the event loop at most: an account with thousands of
 * posts has them told in batches, with other events, requests and sockets served between.
 */
export const DELETIONS_PER_TURN = 500;

/** The filter context of the timeline a stream mirrors: home for user and list streams, public for the rest. */
function filterContextOf(channel: Channel): FilterContext {
  return channel.name === 'user' || channel.name === 'list' ? 'home' : 'public';
}

/**
 * Routes the social domain events to the subscribed connections. Each event is handled after the request
 * that caused it has been answered (a queue drained on the next turn of the event loop), so fan-out never
 * slows a write. Every subscriber gets only what the REST API would show it: the same visibility, block,
 * mute and domain-block rules, checked for all subscribers of an event in one query.
 */
export class StreamingHub {
  private readonly ctx: SocialContext;
  /** channel key → subscribed sinks, with the channel as each asked for it (the tag's spelling). */
  private readonly byKey = new Map<string, Map<StreamSink, Channel>>();
  private readonly keysOf = new Map<StreamSink, Set<string>>();
  private readonly queue: (() => void)[] = [];
  private draining = false;
  /** Batches of deletions waiting for their turn (see DELETIONS_PER_TURN). */
  private batchesWaiting = 0;
  private readonly offs: (() => void)[];
  /** Events routed and frames handed to sinks since start (the server view and the benchmark read them). */
  readonly counters = { events: 0, frames: 0 };

  constructor(ctx: SocialContext) {
    this.ctx = ctx;
    const on = <K extends keyof SocialEventMap>(type: K, handle: (e: SocialEventMap[K]) => void) =>
      ctx.events.on(type, (e) => this.enqueue(() => handle(e)));
    this.offs = [
      on('status.created', (e) => this.statusEvent('update', e.status, e.homeRecipients)),
      on('status.updated', (e) =>
        this.statusEvent('status.update', e.status, this.ctx.store.feeds.holders([e.status.id])),
      ),
      on('status.deleted', (e) => this.statusDeleted(e.status, e.homeRecipients, e.tags)),
      on('account.statuses.deleted', (e) => this.statusesDeleted(e.statuses, e.listIds, 0)),
      on('notification.created', (e) => this.notification(e.accountId, e.notificationId)),
      on('conversation.updated', (e) => this.conversation(e.accountId, e.conversationId)),
      on('filters.changed', (e) => this.sendAll(this.targets([`user|${e.accountId}`]), 'filters_changed', undefined)),
      on('announcement.published', (e) => this.announcement(e.announcementId)),
      on('announcement.reaction', (e) =>
        this.sendAll(
          this.allUserStreams(),
          'announcement.reaction',
          JSON.stringify({ name: e.name, count: e.count, announcement_id: e.announcementId }),
        ),
      ),
      on('announcement.deleted', (e) => this.sendAll(this.allUserStreams(), 'announcement.delete', e.announcementId)),
    ];
  }

  /** The owner of a list, or null when there is none. */
  listOwner(listId: string): string | null {
    return this.ctx.store.lists.byId(listId)?.accountId ?? null;
  }

  /** Adds a subscription; false when the sink already had it (subscribing twice is a no-op). */
  subscribe(sink: StreamSink, channel: Channel): boolean {
    let sinks = this.byKey.get(channel.key);
    if (!sinks) this.byKey.set(channel.key, (sinks = new Map()));
    if (sinks.has(sink)) return false;
    sinks.set(sink, channel);
    let keys = this.keysOf.get(sink);
    if (!keys) this.keysOf.set(sink, (keys = new Set()));
    keys.add(channel.key);
    return true;
  }

  unsubscribe(sink: StreamSink, channel: Channel): void {
    const sinks = this.byKey.get(channel.key);
    sinks?.delete(sink);
    if (sinks?.size === 0) this.byKey.delete(channel.key);
    this.keysOf.get(sink)?.delete(channel.key);
  }

  /** Forgets a closed connection. */
  remove(sink: StreamSink): void {
    for (const key of this.keysOf.get(sink) ?? []) {
      const sinks = this.byKey.get(key);
      sinks?.delete(sink);
      if (sinks?.size === 0) this.byKey.delete(key);
    }
    this.keysOf.delete(sink);
  }

  get connections(): number {
    return this.keysOf.size;
  }

  get subscriptions(): number {
    let n = 0;
    for (const keys of this.keysOf.values()) n += keys.size;
    return n;
  }

  /** Resolves when every event received so far has been routed. */
  async idle(): Promise<void> {
    while (this.queue.length || this.draining || this.batchesWaiting)
      await new Promise((resolve) => setImmediate(resolve));
  }

  close(): void {
    for (const off of this.offs) off();
    this.queue.length = 0;
  }

  private enqueue(work: () => void): void {
    this.queue.push(work);
    if (this.draining) return;
    this.draining = true;
    setImmediate(() => {
      try {
        while (this.queue.length) {
          const next = this.queue.shift()!;
          this.counters.events++;
          try {
            next();
          } catch (err) {
            this.ctx.logger.error({ err }, 'a streaming event could not be routed');
          }
        }
      } finally {
        this.draining = false;
      }
    });
  }

  private targets(
    keys: Iterable<string>,
    accept: (sink: StreamSink, channel: Channel) => boolean = () => true,
  ): Targets {
    const targets: Targets = new Map();
    for (const key of keys) {
      for (const [sink, channel] of this.byKey.get(key) ?? []) {
        if (!accept(sink, channel)) continue;
        const list = targets.get(sink);
        if (list) list.push(channel);
        else targets.set(sink, [channel]);
      }
    }
    return targets;
  }

  private sendAll(targets: Targets, event: string, payload: string | undefined): void {
    for (const [sink, channels] of targets) {
      for (const channel of channels) {
        this.counters.frames++;
        sink.send(channel, event, payload);
      }
    }
  }

  /**
   * The public and hashtag streams a status appears on (Mastodon's broadcast rules); `tags` its hashtags and
   * `hasMedia` whether it has attachments, when the store no longer says (deleted).
   */
  private publicKeys(
    status: StatusPlace,
    tags: readonly string[] = this.ctx.store.statuses.tags([status.id]).get(status.id) ?? [],
    hasMedia: () => boolean = () => (this.ctx.store.media.forStatuses([status.id]).get(status.id) ?? []).length > 0,
  ): string[] {
    if (status.visibility !== 'public' || status.reblogOfId !== null) return [];
    const keys: string[] = [];
    for (const tag of tags) {
      keys.push(channelKey('hashtag', tag, ''));
      if (status.local) keys.push(channelKey('hashtag:local', tag, ''));
    }
    // Replies to others stay off the public streams (they still reach hashtag streams).
    if (status.inReplyToId !== null && status.inReplyToAccountId !== status.accountId) return keys;
    const origin = status.local ? 'public:local' : 'public:remote';
    keys.push('public', origin);
    if (hasMedia()) keys.push('public:media', `${origin}:media`);
    return keys;
  }

  /** Lists where the status appears (its author is a member; replies per each list's policy), and who keeps it out of home. */
  private listsOf(status: StatusRow): { keys: string[]; exclusiveOwners: Set<string> } {
    const lists = this.ctx.store.lists.withMember(status.accountId);
    const keys: string[] = [];
    const exclusiveOwners = new Set<string>();
    for (const list of lists) {
      if (!this.ctx.store.timelines.inList(status.id, list)) continue;
      if (this.byKey.has(`list|${list.id}`)) keys.push(`list|${list.id}`);
      if (list.exclusive) exclusiveOwners.add(list.accountId);
    }
    return { keys, exclusiveOwners };
  }

  private statusEvent(event: 'update' | 'status.update', status: StatusRow, homeRecipients: readonly string[]): void {
    const lists = this.listsOf(status);
    // Members of an exclusive list stay out of its owner's home, and so out of their user stream.
    const home = homeRecipients.filter((id) => !lists.exclusiveOwners.has(id));
    const targets = this.targets([...home.map((id) => `user|${id}`), ...this.publicKeys(status), ...lists.keys]);
    if (targets.size === 0) return;
    const store = this.ctx.store;
    const current = store.statuses.byId(status.id);
    if (!current || current.deletedAt !== null) return;
    const bySubscriber = new Map<string, StreamSink[]>();
    for (const sink of targets.keys()) {
      const list = bySubscriber.get(sink.accountId);
      if (list) list.push(sink);
      else bySubscriber.set(sink.accountId, [sink]);
    }
    const allowed = store.timelines.audience(current.id, [...bySubscriber.keys()]);
    const viewers: Account[] = store.accounts.byIds([...allowed]);
    const proper = current.reblogOfId ? (store.statuses.byId(current.reblogOfId) ?? current) : current;
    for (const group of this.ctx.statusPresenter.presentForViewers([current], viewers)) {
      const payload = JSON.stringify(group.json[0]);
      for (const viewer of group.viewers) {
        const filtering = this.ctx.filters.any(viewer.id);
        for (const sink of bySubscriber.get(viewer.id) ?? []) {
          for (const channel of targets.get(sink)!) {
            // A hide filter keeps the status off this stream, as off the timeline it mirrors.
            if (filtering && this.ctx.filters.hides(viewer.id, proper, filterContextOf(channel))) continue;
            this.counters.frames++;
            sink.send(channel, event, payload);
          }
        }
      }
    }
  }

  /** Every `user` subscription (announcements are for everyone on the instance). */
  private allUserStreams(): Targets {
    const keys = [...this.byKey.keys()].filter((k) => k.startsWith('user|'));
    return this.targets(keys);
  }

  private announcement(id: string): void {
    const targets = this.allUserStreams();
    if (targets.size === 0) return;
    const row = this.ctx.store.announcements.byId(id);
    if (!row) return;
    // Just published: nobody has read it or reacted yet, so one rendering serves everyone.
    this.sendAll(
      targets,
      'announcement',
      JSON.stringify(serializeAnnouncement(this.ctx.urls, { ...row, read: false }, [])),
    );
  }

  /** A deleted status: told to the home streams that held it, its public and hashtag streams, its author's lists'. */
  private statusDeleted(status: StatusRow, homeRecipients: readonly string[], tags: readonly string[]): void {
    const lists = this.ctx.store.lists
      .withMember(status.accountId)
      .map((list) => `list|${list.id}`)
      .filter((key) => this.byKey.has(key));
    this.sendAll(
      this.targets([...homeRecipients.map((id) => `user|${id}`), ...this.publicKeys(status, tags), ...lists]),
      'delete',
      status.id,
    );
  }

  /**
   * A deleted account's statuses, from `from` on: each deletion told to the home streams that held it, its public
   * and hashtag streams and the streams of the lists the account was in (Mastodon's BatchedRemoveStatusService);
   * DELETIONS_PER_TURN of them now, the rest in later turns.
   */
  private statusesDeleted(statuses: readonly DeletedStatusRoute[], listIds: readonly string[], from: number): void {
    const end = Math.min(from + DELETIONS_PER_TURN, statuses.length);
    if (this.byKey.size > 0) {
      const listKeys = listIds.map((id) => `list|${id}`);
      for (let i = from; i < end; i++) {
        const status = statuses[i];
        const home = status.homeRecipients.map((id) => `user|${id}`);
        const shared = this.publicKeys(status, status.tags, () => status.hasMedia);
        this.sendAll(this.targets([...home, ...shared, ...listKeys]), 'delete', status.id);
      }
    }
    if (end >= statuses.length) return;
    this.batchesWaiting++;
    setImmediate(() => {
      this.batchesWaiting--;
      this.enqueue(() => this.statusesDeleted(statuses, listIds, end));
    });
  }

  private notification(accountId: string, notificationId: string): void {
    const targets = this.targets(
      [`user|${accountId}`, `user:notification|${accountId}`],
      (sink, channel) => channel.name !== 'user' || userStreamGetsNotifications(sink.scopes),
    );
    if (targets.size === 0) return;
    const { store } = this.ctx;
    const row = store.notifications.byId(accountId, notificationId);
    const viewer = store.accounts.byId(accountId);
    if (!row || !viewer) return;
    const status = row.statusId ? store.statuses.byId(row.statusId) : null;
    if (status && this.ctx.filters.any(accountId) && this.ctx.filters.hides(accountId, status, 'notifications')) return;
    const [json] = presentNotifications(store, this.ctx.presenter, this.ctx.statusPresenter, [row], viewer);
    if (json) this.sendAll(targets, 'notification', JSON.stringify(json));
  }

  private conversation(accountId: string, conversationId: string): void {
    const targets = this.targets([`direct|${accountId}`]);
    if (targets.size === 0) return;
    const { store } = this.ctx;
    const row = store.conversations.ofAccount(accountId, conversationId);
    const viewer = store.accounts.byId(accountId);
    if (!row || !viewer) return;
    const [json] = presentConversations(store, this.ctx.presenter, this.ctx.statusPresenter, [row], viewer);
    if (json) this.sendAll(targets, 'conversation', JSON.stringify(json));
  }
}
