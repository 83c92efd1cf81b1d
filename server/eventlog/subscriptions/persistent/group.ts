/**
 * A persistent subscription group at run time (PersistentGroup below): delivery, retry, parking and checkpoints.
 * What it delivers, in order, comes from group-feed.ts; who may take each message (the consumers, their strategy
 * and free slots) is consumers.ts; how it describes itself (counters, rate, PersistentGroupInfo) is group-info.ts.
 */
import type { Logger } from '../../../logger.ts';
import type { RecordedEvent } from '../../store/index.ts';
import type {
  DropReason,
  NakAction,
  ParkedPage,
  PersistentGroupDetail,
  PersistentGroupInfo,
  PersistentSink,
  PersistentGroupSettings,
  SubscriberInfo,
} from '../types.ts';
import { Checkpoints } from './checkpoints.ts';
import { Consumer, ConsumerRoster, InFlightMessages, type Outstanding } from './consumers.ts';
import { Deque } from './deque.ts';
import { GroupFeed } from './group-feed.ts';
import { describeGroup, GroupCounters } from './group-info.ts';
import { checkpointStreamOf, groupKey, parkedStreamOf, type GroupContext } from './group-streams.ts';
import { messageFor, type Message } from './messages.ts';
import { ParkedMessages } from './parked.ts';

/** How often timeouts, timed checkpoints and statistics are looked at (EventStoreDB uses 1 s too). */
export const GROUP_TICK_MS = 1_000;

/**
 * One persistent subscription group at run time: takes messages from its feed (the stream read in order),
 * hands them to consumers through the group's strategy within each consumer's in-flight window, retries on
 * nak/timeout/disconnect, parks after max retries, and checkpoints the event before the lowest unfinished
 * message so a restart resumes without losing anything. Consumers and in-flight bookkeeping, checkpoints and
 * parked messages live beside it.
 */
export class PersistentGroup {
  readonly streamId: string;
  readonly groupName: string;
  readonly subscriptionId: string;
  readonly settings: PersistentGroupSettings;

  private readonly ctx: GroupContext;
  private readonly logger: Logger;
  private readonly consumers: ConsumerRoster;

  /** The stream's messages in order, read while behind and taken from commits while live. */
  private readonly feed: GroupFeed;
  /** Messages to send again (nak, timeout, disconnect) and parked ones replayed, ahead of the feed. */
  private readonly retryQueue = new Deque<Message>();
  private readonly inFlight = new InFlightMessages();
  private parking = 0;

  private readonly checkpoints: Checkpoints;
  private readonly parked: ParkedMessages;

  private readonly counters: GroupCounters;

  private pumping = false;
  private stopped = false;
  private stopTimer: (() => void) | null = null;

  constructor(ctx: GroupContext, streamId: string, groupName: string, settings: PersistentGroupSettings) {
    this.ctx = ctx;
    this.streamId = streamId;
    this.groupName = groupName;
    this.subscriptionId = groupKey(streamId, groupName);
    this.settings = settings;
    this.logger = ctx.logger.child({ group: this.subscriptionId });
    this.consumers = new ConsumerRoster(settings.consumerStrategy);
    this.feed = new GroupFeed(
      { ...ctx, logger: this.logger },
      { streamId, groupName },
      settings,
      this.consumers.keying,
    );
    this.checkpoints = new Checkpoints(ctx, checkpointStreamOf(streamId, groupName), settings, this.logger);
    this.parked = new ParkedMessages(ctx, parkedStreamOf(streamId, groupName), this.logger);
    this.counters = new GroupCounters(ctx.clock.now());
  }

  get checkpointStreamId(): string {
    return this.checkpoints.streamId;
  }

  get parkedStreamId(): string {
    return this.parked.streamId;
  }

  /**
   * Starts delivering. `resumeAfter` (a checkpoint already known in memory, e.g. across an update) wins
   * over the stored checkpoint; without either, `startFrom` applies and -1 is pinned to the stream's
   * current end by writing it as the first checkpoint, so a restart cannot skip what arrives meanwhile.
   * Returns the initial checkpoint write (if any) so callers can wait for it.
   */
  start(resumeAfter?: number): Promise<void> {
    let initialWrite: Promise<void> = Promise.resolve();
    if (resumeAfter !== undefined) {
      this.feed.source.resumeAfter(resumeAfter);
      this.checkpoints.startsAfter(resumeAfter);
      initialWrite = this.checkpoints.request(resumeAfter);
    } else {
      const stored = this.checkpoints.read();
      if (stored !== null) {
        this.feed.source.resumeAfter(stored);
        this.checkpoints.resumedFrom(stored);
      } else {
        const start = this.feed.source.startAt(this.settings.startFrom);
        if (start.pin) initialWrite = this.checkpoints.request(start.after);
        else this.checkpoints.startsAfter(start.after);
      }
    }
    this.parked.refresh();
    this.stopTimer = this.ctx.clock.every(GROUP_TICK_MS, () => this.tick());
    return initialWrite;
  }

  // ---- consumers ------------------------------------------------------------------------------------

  get consumerCount(): number {
    return this.consumers.size;
  }

  get isFull(): boolean {
    return this.settings.maxSubscriberCount > 0 && this.consumers.size >= this.settings.maxSubscriberCount;
  }

  addConsumer(subscriber: SubscriberInfo, sink: PersistentSink, allowedInFlight: number): Consumer {
    const now = this.ctx.clock.now();
    const consumer = new Consumer(subscriber, sink, Math.max(1, allowedInFlight), now, this.settings.extraStatistics);
    this.consumers.add(consumer);
    this.pump();
    return consumer;
  }

  /** Removes a consumer; its in-flight messages go back for retry. `notify` sends the drop reason. */
  removeConsumer(consumerId: string, notify: DropReason | null): void {
    if (this.stopped) return;
    const consumer = this.consumers.get(consumerId);
    if (!consumer) return;
    this.consumers.remove(consumer);
    const orphans = [...consumer.inFlight].sort((a, b) => a.seq - b.seq);
    for (const o of orphans) {
      this.forget(o);
      this.retry(o.message, 'Client disconnected.');
    }
    if (notify) this.notifyDropped(consumer, notify);
    this.pump();
  }

  ack(consumerId: string, eventIds: readonly string[]): void {
    if (this.stopped) return;
    const consumer = this.consumers.get(consumerId);
    const now = this.ctx.clock.now();
    for (const id of eventIds) {
      const o = this.take(id, consumer);
      if (!o) continue; // unknown or already handled: ignored, as EventStoreDB does
      o.consumer.acknowledged(o, now);
      this.completed(o.message);
    }
    this.pump();
    this.maybeCheckpoint(false);
  }

  nak(consumerId: string, eventIds: readonly string[], action: NakAction, reason: string): void {
    if (this.stopped) return;
    const consumer = this.consumers.get(consumerId);
    for (const id of eventIds) {
      if (action === 'Stop') continue; // EventStoreDB leaves the message in flight; it is retried on timeout
      const o = this.take(id, consumer);
      if (!o) continue;
      if (action === 'Park') this.park(o.message, `Client explicitly NAK'ed message.\n${reason}`);
      else if (action === 'Skip') this.completed(o.message);
      else this.retry(o.message, reason);
    }
    this.pump();
    this.maybeCheckpoint(false);
  }

  // ---- input from the store -------------------------------------------------------------------------

  /** Events just committed to this group's stream (every event, for a group on `$all`), in order. */
  onCommitted(events: readonly RecordedEvent[]): void {
    if (this.stopped) return;
    this.feed.committed(events);
    this.pump();
  }

  // ---- delivery -------------------------------------------------------------------------------------

  private pump(): void {
    if (this.pumping || this.stopped) return;
    this.pumping = true;
    try {
      let blocked: Message[] | null = null;
      while (this.consumers.freeSlots > 0) {
        const message = this.nextMessage();
        if (!message) break;
        const consumer = this.consumers.pick(message.pinKey);
        if (!consumer) {
          if (!this.consumers.keyed) {
            this.retryQueue.pushFront(message);
            break;
          }
          // Its pinned consumer is full; let messages for other consumers pass.
          (blocked ??= []).push(message);
          if (blocked.length >= this.settings.historyBufferSize + this.settings.liveBufferSize) break;
          continue;
        }
        this.send(consumer, message);
      }
      if (blocked) for (let i = blocked.length - 1; i >= 0; i--) this.retryQueue.pushFront(blocked[i]);
    } finally {
      this.pumping = false;
    }
  }

  private nextMessage(): Message | undefined {
    return this.retryQueue.popFront() ?? this.feed.next();
  }

  private send(consumer: Consumer, message: Message): void {
    this.inFlight.add(message, consumer, this.ctx.clock.now());
    this.consumers.freeSlots--;
    consumer.delivered++;
    this.counters.delivered++;
    let accepted: boolean;
    try {
      accepted = consumer.sink.eventAppeared(message.event, message.retryCount);
    } catch (err) {
      this.logger.error({ err }, 'persistent delivery failed');
      accepted = false;
    }
    if (!accepted) this.removeConsumer(consumer.id, 'SlowSubscriber');
  }

  /** Finds and forgets the outstanding message with this id, preferring the given consumer's. */
  private take(id: string, consumer: Consumer | undefined): Outstanding | undefined {
    const o = this.inFlight.find(id, consumer);
    if (o) this.forget(o);
    return o;
  }

  private forget(o: Outstanding): void {
    if (this.inFlight.forget(o)) this.consumers.released(o.consumer);
  }

  private retry(message: Message, reason: string): void {
    if (message.retryCount >= this.settings.maxRetryCount) {
      this.park(message, `Max retry count reached. ${reason}`.trim());
      return;
    }
    message.retryCount++;
    this.retryQueue.pushBack(message);
  }

  /** The message is done with: acked, skipped or parked. */
  private completed(message: Message): void {
    this.counters.processed++;
    if (message.replay) this.parked.finished(message.replay);
    else this.feed.finished(message.number);
  }

  // ---- parking --------------------------------------------------------------------------------------

  private park(message: Message, reason: string): void {
    this.parking++;
    void this.parked.park(message, reason).then((ok) => {
      this.parking--;
      if (this.stopped) return;
      if (ok) this.completed(message);
      else this.retryQueue.pushBack(message); // could not park: keep it alive rather than lose it
      this.pump();
      this.maybeCheckpoint(false);
    });
  }

  parkedMessageCount(): number {
    return this.parked.count();
  }

  listParked(from: number, count: number): ParkedPage {
    return this.parked.list(from, count);
  }

  /**
   * Puts parked messages (all, or the oldest `stopAt`) back into the group ahead of new events. The
   * parked stream is truncated past them once each has been acked, skipped or parked again, so a
   * restart in between replays them again rather than losing them.
   */
  replayParked(stopAt?: number): number {
    if (this.stopped) return 0;
    const messages = this.parked.takeForReplay(stopAt, this.settings.resolveLinkTos, (entry) =>
      messageFor(entry, this.consumers.keying, -1),
    );
    for (const m of messages) this.retryQueue.pushBack(m);
    this.pump();
    return messages.length;
  }

  // ---- checkpoints ----------------------------------------------------------------------------------

  /** The last event number before which everything is processed. */
  checkpointCandidate(): number {
    return this.feed.checkpointCandidate();
  }

  private maybeCheckpoint(timed: boolean): void {
    if (!this.stopped) this.checkpoints.consider(this.checkpointCandidate(), timed);
  }

  // ---- timer ----------------------------------------------------------------------------------------

  /** The 1 s housekeeping: message timeouts, timed checkpoints, rates. */
  tick(): void {
    if (this.stopped) return;
    const now = this.ctx.clock.now();
    const timeout = this.settings.messageTimeoutMs;
    if (timeout > 0) {
      // Insertion order is send order, so the first message not yet due ends the scan.
      for (const o of this.inFlight.inSendOrder()) {
        if (o.sentAt + timeout > now) break;
        this.forget(o);
        this.retry(o.message, 'Message timed out.');
      }
    }
    this.pump();
    this.maybeCheckpoint(true);
    const seconds = this.counters.tick(now);
    for (const c of this.consumers.values()) c.tickStats(seconds);
  }

  // ---- lifecycle ------------------------------------------------------------------------------------

  /**
   * Stops delivery and drops every consumer with `reason` (null = silently). In-flight messages are
   * not retried here: they are after the checkpoint this returns, so whoever restarts the group redelivers them.
   */
  stop(reason: DropReason | null): number {
    const candidate = this.checkpointCandidate();
    if (this.stopped) return candidate;
    this.stopped = true;
    this.stopTimer?.();
    this.stopTimer = null;
    for (const consumer of this.consumers.removeAll()) if (reason) this.notifyDropped(consumer, reason);
    return candidate;
  }

  /** Waits for checkpoint writes in flight (e.g. before the checkpoint stream is deleted). */
  settled(): Promise<void> {
    return this.checkpoints.settled();
  }

  /** Writes the final checkpoint (after stop) and waits for checkpoint writes in flight. */
  flush(): Promise<void> {
    return this.checkpoints.flush(this.checkpointCandidate());
  }

  private notifyDropped(consumer: Consumer, reason: DropReason): void {
    try {
      consumer.sink.dropped(reason);
    } catch (err) {
      this.logger.warn({ err }, 'persistent drop notification failed');
    }
  }

  // ---- statistics -----------------------------------------------------------------------------------

  info(): PersistentGroupInfo {
    return describeGroup({
      streamId: this.streamId,
      groupName: this.groupName,
      subscriptionId: this.subscriptionId,
      ...this.feed.state(),
      counters: this.counters,
      connections: [...this.consumers.values()].map((c) => c.info()),
      inFlight: this.inFlight.size,
      retryBuffered: this.retryQueue.length,
      parking: this.parking,
      parked: this.parkedMessageCount(),
      lastCheckpointed: this.checkpoints.lastWritten ?? -1,
    });
  }

  detail(): PersistentGroupDetail {
    return {
      ...this.info(),
      settings: { ...this.settings },
      parkedStreamId: this.parkedStreamId,
      checkpointStreamId: this.checkpointStreamId,
    };
  }
}
