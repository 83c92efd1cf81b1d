/**
 * A persistent subscription group at run time (PersistentGroup below). Over 400 lines on purpose: it is one state
 * machine whose delivery, retry, parking and checkpoints share the same buffers and counters; how it describes
 * itself (counters, rate, PersistentGroupInfo) is group-info.ts.
 */
import type { Logger } from '../../../logger.ts';
import { LINK_EVENT_TYPE, MAX_READ_COUNT, type RecordedEvent, type ResolvedIndexedEvent } from '../../store/index.ts';
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
import { Consumer, InFlightMessages, type Outstanding } from './consumers.ts';
import { Deque, PendingNumbers } from './deque.ts';
import { describeGroup, GroupCounters } from './group-info.ts';
import { createGroupSource, type GroupSource } from './group-source.ts';
import { checkpointStreamOf, groupKey, parkedStreamOf, type GroupContext } from './group-streams.ts';
import { messageFor, type Message, type PinKeying } from './messages.ts';
import { ParkedMessages } from './parked.ts';
import { createStrategy, type ConsumerStrategy } from './strategies.ts';

/** How often timeouts, timed checkpoints and statistics are looked at (EventStoreDB uses 1 s too). */
export const GROUP_TICK_MS = 1_000;

/**
 * One persistent subscription group at run time: reads its stream (paging while behind, straight from
 * commits while live), hands messages to consumers through the group's strategy within each consumer's
 * in-flight window, retries on nak/timeout/disconnect, parks after max retries, and checkpoints the
 * event before the lowest unfinished message so a restart resumes without losing anything.
 * Consumers and in-flight bookkeeping, checkpoints and parked messages live beside it.
 * It stays long because it is one state machine: delivery, retry, parking and checkpoints all read and change
 * the same buffers and counters; what could stand apart already does (the files beside it).
 */
export class PersistentGroup {
  readonly streamId: string;
  readonly groupName: string;
  readonly subscriptionId: string;
  readonly settings: PersistentGroupSettings;

  private readonly ctx: GroupContext;
  private readonly logger: Logger;
  private readonly strategy: ConsumerStrategy<Consumer>;
  private readonly keying: PinKeying;
  private readonly consumers = new Map<string, Consumer>();
  private freeSlots = 0;

  private readonly buffer = new Deque<Message>();
  private liveBuffered = 0;
  private readonly retryQueue = new Deque<Message>();
  private readonly inFlight = new InFlightMessages();
  private readonly pending = new PendingNumbers();
  private parking = 0;

  /** The stream or `$all`, and the read cursor in it. */
  private readonly source: GroupSource;
  /** True when caught up: new events are taken straight from commits. */
  private live = false;
  private readRetryAt = 0;

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
    this.source = createGroupSource(ctx.store, ctx.system, streamId, settings.filter, [
      checkpointStreamOf(streamId, groupName),
      parkedStreamOf(streamId, groupName),
    ]);
    this.logger = ctx.logger.child({ group: this.subscriptionId });
    this.strategy = createStrategy<Consumer>(settings.consumerStrategy);
    this.keying = !this.strategy.keyed
      ? 'none'
      : this.strategy.name === 'PinnedByCorrelation'
        ? 'correlation'
        : 'stream';
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
      this.source.resumeAfter(resumeAfter);
      this.checkpoints.startsAfter(resumeAfter);
      initialWrite = this.checkpoints.request(resumeAfter);
    } else {
      const stored = this.checkpoints.read();
      if (stored !== null) {
        this.source.resumeAfter(stored);
        this.checkpoints.resumedFrom(stored);
      } else {
        const start = this.source.startAt(this.settings.startFrom);
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
    this.consumers.set(consumer.id, consumer);
    this.strategy.add(consumer);
    this.freeSlots += consumer.maxInFlight;
    this.pump();
    return consumer;
  }

  /** Removes a consumer; its in-flight messages go back for retry. `notify` sends the drop reason. */
  removeConsumer(consumerId: string, notify: DropReason | null): void {
    if (this.stopped) return;
    const consumer = this.consumers.get(consumerId);
    if (!consumer) return;
    this.consumers.delete(consumerId);
    this.strategy.remove(consumer);
    this.freeSlots -= consumer.maxInFlight - consumer.inFlight.size;
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
    for (const event of events) {
      const place = this.source.placeOf(event);
      if (place === 'old') continue; // already read while paging
      if (this.live && place === 'next' && this.liveBuffered < this.settings.liveBufferSize) {
        if (this.source.advancePast(event))
          this.enqueue(this.toMessage(this.resolve(event), this.source.numberOf(event)), true);
      } else {
        // Behind, a gap (e.g. a recreated stream) or the live buffer is full: page from the store instead.
        this.live = false;
      }
    }
    this.pump();
  }

  // ---- delivery -------------------------------------------------------------------------------------

  private pump(): void {
    if (this.pumping || this.stopped) return;
    this.pumping = true;
    try {
      let blocked: Message[] | null = null;
      while (this.freeSlots > 0) {
        const message = this.nextMessage();
        if (!message) break;
        const consumer = this.strategy.pick(message.pinKey);
        if (!consumer) {
          if (!this.strategy.keyed) {
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
    const retry = this.retryQueue.popFront();
    if (retry) return retry;
    // A page can come back empty without reaching the end (truncated stream); keep paging a little.
    for (let pages = 0; this.buffer.length === 0 && pages < 16; pages++) if (!this.readPage()) break;
    const next = this.buffer.popFront();
    if (next && this.liveBuffered > 0 && this.buffer.length < this.liveBuffered) this.liveBuffered = this.buffer.length;
    return next;
  }

  /** Reads one page while behind; false when there is nothing (more) to read now. */
  private readPage(): boolean {
    if (this.live || this.ctx.clock.now() < this.readRetryAt) return false;
    const count = Math.min(this.settings.readBatchSize, this.settings.historyBufferSize, MAX_READ_COUNT);
    let page: ReturnType<GroupSource['readPage']>;
    try {
      page = this.source.readPage(count, this.settings.resolveLinkTos);
    } catch (err) {
      page = { failed: (err as Error).message };
    }
    if ('failed' in page) {
      // e.g. the store is closing: try again on a later tick rather than fail the caller (an ack, a commit).
      this.logger.warn({ error: page.failed }, 'persistent subscription read failed; retrying shortly');
      this.readRetryAt = this.ctx.clock.now() + GROUP_TICK_MS;
      return false;
    }
    for (const { entry, number } of page.entries) this.enqueue(this.toMessage(entry, number), false);
    if (page.end) this.live = true;
    return page.entries.length > 0 || !page.end;
  }

  private enqueue(message: Message, fromLive: boolean): void {
    this.pending.add(message.number);
    this.buffer.pushBack(message);
    if (fromLive) this.liveBuffered++;
  }

  private send(consumer: Consumer, message: Message): void {
    this.inFlight.add(message, consumer, this.ctx.clock.now());
    this.freeSlots--;
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
    if (this.inFlight.forget(o) && this.consumers.has(o.consumer.id)) this.freeSlots++;
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
    else this.pending.remove(message.number);
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
      messageFor(entry, this.keying, -1),
    );
    for (const m of messages) this.retryQueue.pushBack(m);
    this.pump();
    return messages.length;
  }

  // ---- checkpoints ----------------------------------------------------------------------------------

  /** The last event number before which everything is processed. */
  checkpointCandidate(): number {
    const lowest = this.pending.lowest();
    return lowest === undefined ? this.source.settledUpTo : lowest - 1;
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
    for (const consumer of [...this.consumers.values()]) {
      this.consumers.delete(consumer.id);
      this.strategy.remove(consumer);
      if (reason) this.notifyDropped(consumer, reason);
    }
    this.freeSlots = 0;
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

  // ---- helpers --------------------------------------------------------------------------------------

  private resolve(event: RecordedEvent): ResolvedIndexedEvent {
    if (!this.settings.resolveLinkTos || event.eventType !== LINK_EVENT_TYPE) return { event };
    const target = this.ctx.store.resolveLink(event, this.ctx.system);
    if (target.event === event && !target.link) return { event };
    return { event: target.event, link: target.link ?? event };
  }

  private toMessage(entry: ResolvedIndexedEvent, number: number): Message {
    return messageFor(entry, this.keying, number);
  }

  // ---- statistics -----------------------------------------------------------------------------------

  info(): PersistentGroupInfo {
    return describeGroup({
      streamId: this.streamId,
      groupName: this.groupName,
      subscriptionId: this.subscriptionId,
      live: this.live,
      counters: this.counters,
      connections: [...this.consumers.values()].map((c) => c.info()),
      inFlight: this.inFlight.size,
      buffered: this.buffer.length,
      liveBuffered: this.liveBuffered,
      retryBuffered: this.retryQueue.length,
      parking: this.parking,
      parked: this.parkedMessageCount(),
      lastCheckpointed: this.checkpoints.lastWritten ?? -1,
      lastProcessed: this.source.next - 1,
      lastKnown: this.source.lastKnown(),
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
