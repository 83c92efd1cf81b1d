import { randomUUID } from 'node:crypto';
import type { Logger } from '../../../logger.ts';
import { LINK_EVENT_TYPE, parseLink } from '../../store/links.ts';
import {
  EVENT_NUMBER_DELETED,
  ExpectedVersion,
  MAX_READ_COUNT,
  type EventStore,
  type Principal,
  type RecordedEvent,
  type ResolvedIndexedEvent,
} from '../../store/types.ts';
import type { Clock } from '../clock.ts';
import type {
  DropReason,
  GroupStatus,
  NakAction,
  ParkedMessage,
  ParkedPage,
  PersistentConnectionInfo,
  PersistentGroupDetail,
  PersistentGroupInfo,
  PersistentSink,
  PersistentSubscriptionSettings,
  SubscriberInfo,
} from '../types.ts';
import { Deque, PendingNumbers } from './deque.ts';
import { createStrategy, type ConsumerStrategy, type StrategyClient } from './strategies.ts';

const CHECKPOINT_EVENT_TYPE = 'SubscriptionCheckpoint';
const METADATA_EVENT_TYPE = '$metadata';
/** How often timeouts, timed checkpoints and statistics are looked at (EventStoreDB uses 1 s too). */
export const GROUP_TICK_MS = 1_000;
const PARK_WRITE_ATTEMPTS = 5;
const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

export function groupKey(streamId: string, groupName: string): string {
  return `${streamId}::${groupName}`;
}
export function checkpointStreamOf(streamId: string, groupName: string): string {
  return `$persistentsubscription-${groupKey(streamId, groupName)}-checkpoint`;
}
export function parkedStreamOf(streamId: string, groupName: string): string {
  return `$persistentsubscription-${groupKey(streamId, groupName)}-parked`;
}

export interface GroupContext {
  store: EventStore;
  logger: Logger;
  clock: Clock;
  /** The identity the group reads and writes its own streams with. */
  system: Principal;
}

/** A slice of replayed parked messages; the parked stream is truncated once all of a slice are done. */
interface ReplaySlice {
  /** First parked event number after this slice. */
  parkedUpTo: number;
  remaining: number;
}

interface Message {
  event: ResolvedIndexedEvent;
  /** The original event's id: the link's when a link was resolved. What clients ack. */
  id: string;
  /** The original event's number in the group's stream. */
  number: number;
  retryCount: number;
  /** Pinned strategies: the source stream or correlation id. */
  pinKey: string;
  /** Set for messages replayed from the parked stream: they do not hold the checkpoint back. */
  replay: ReplaySlice | null;
}

interface Outstanding {
  message: Message;
  consumer: Consumer;
  sentAt: number;
  seq: number;
  /** Next outstanding message with the same event id (ids are not unique in a stream). */
  sameId: Outstanding | undefined;
}

class Consumer implements StrategyClient {
  readonly id = randomUUID();
  readonly subscriber: SubscriberInfo;
  readonly sink: PersistentSink;
  readonly maxInFlight: number;
  readonly connectedAt: number;
  readonly inFlight = new Set<Outstanding>();
  delivered = 0;
  acked = 0;
  rate = 0;
  private deliveredAtLastTick = 0;

  constructor(subscriber: SubscriberInfo, sink: PersistentSink, maxInFlight: number, now: number) {
    this.subscriber = subscriber;
    this.sink = sink;
    this.maxInFlight = maxInFlight;
    this.connectedAt = now;
  }

  hasCapacity(): boolean {
    return this.inFlight.size < this.maxInFlight;
  }

  tickStats(seconds: number): void {
    this.rate = seconds > 0 ? (this.delivered - this.deliveredAtLastTick) / seconds : 0;
    this.deliveredAtLastTick = this.delivered;
  }
}

/**
 * One persistent subscription group at run time: reads its stream (paging while behind, straight from
 * commits while live), hands messages to consumers through the group's strategy within each consumer's
 * in-flight window, retries on nak/timeout/disconnect, parks after max retries, and checkpoints the
 * event before the lowest unfinished message so a restart resumes without losing anything.
 */
export class PersistentGroup {
  readonly streamId: string;
  readonly groupName: string;
  readonly subscriptionId: string;
  readonly settings: PersistentSubscriptionSettings;
  readonly checkpointStreamId: string;
  readonly parkedStreamId: string;

  private readonly ctx: GroupContext;
  private readonly logger: Logger;
  private readonly strategy: ConsumerStrategy<Consumer>;
  private readonly consumers = new Map<string, Consumer>();
  private freeSlots = 0;

  private readonly buffer = new Deque<Message>();
  private liveBuffered = 0;
  private readonly retryQueue = new Deque<Message>();
  private readonly outstandingBySeq = new Map<number, Outstanding>();
  private readonly outstandingById = new Map<string, Outstanding>();
  private seq = 0;
  private readonly pending = new PendingNumbers();
  private parking = 0;

  /** Next event number to read from the stream. */
  private nextReadNumber = 0;
  /** True when caught up: new events are taken straight from commits. */
  private live = false;
  private readRetryAt = 0;

  private lastCheckpointRequested: number | null = null;
  private lastCheckpointWritten: number | null = null;
  private lastCheckpointAt: number;
  private checkpointToWrite: number | null = null;
  private checkpointWriting: Promise<void> | null = null;
  private checkpointMetadataChecked = false;

  private readonly replaySlices: ReplaySlice[] = [];
  private replayCursor = 0;
  private parkedTruncateBefore = 0;

  private totalProcessed = 0;
  private totalDelivered = 0;
  private processedAtLastTick = 0;
  private lastTickAt: number;
  private rate = 0;

  private pumping = false;
  private stopped = false;
  private stopTimer: (() => void) | null = null;

  constructor(ctx: GroupContext, streamId: string, groupName: string, settings: PersistentSubscriptionSettings) {
    this.ctx = ctx;
    this.streamId = streamId;
    this.groupName = groupName;
    this.subscriptionId = groupKey(streamId, groupName);
    this.settings = settings;
    this.checkpointStreamId = checkpointStreamOf(streamId, groupName);
    this.parkedStreamId = parkedStreamOf(streamId, groupName);
    this.logger = ctx.logger.child({ group: this.subscriptionId });
    this.strategy = createStrategy<Consumer>(settings.consumerStrategy);
    this.lastCheckpointAt = ctx.clock.now();
    this.lastTickAt = ctx.clock.now();
  }

  /**
   * Starts delivering. `resumeAfter` (a checkpoint already known in memory, e.g. across an update) wins
   * over the stored checkpoint; without either, `startFrom` applies and -1 is pinned to the stream's
   * current end by writing it as the first checkpoint, so a restart cannot skip what arrives meanwhile.
   * Returns the initial checkpoint write (if any) so callers can wait for it.
   */
  start(resumeAfter?: number): Promise<void> {
    const stored = resumeAfter ?? this.readCheckpoint();
    let initialWrite: Promise<void> = Promise.resolve();
    if (stored !== null) {
      this.nextReadNumber = stored + 1;
      this.lastCheckpointRequested = stored;
      if (resumeAfter === undefined) this.lastCheckpointWritten = stored;
      else initialWrite = this.requestCheckpoint(stored);
    } else if (this.settings.startFrom >= 0) {
      this.nextReadNumber = this.settings.startFrom;
      this.lastCheckpointRequested = this.settings.startFrom - 1;
    } else {
      const last = this.ctx.store.lastEventNumber(this.streamId);
      const current = last === EVENT_NUMBER_DELETED ? -1 : last;
      this.nextReadNumber = current + 1;
      initialWrite = this.requestCheckpoint(current);
    }
    this.refreshParkedState();
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
    const consumer = new Consumer(subscriber, sink, Math.max(1, allowedInFlight), this.ctx.clock.now());
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
    for (const id of eventIds) {
      const o = this.take(id, consumer);
      if (!o) continue; // unknown or already handled: ignored, as EventStoreDB does
      o.consumer.acked++;
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

  /** Events just committed to this group's stream, in order. */
  onCommitted(events: readonly RecordedEvent[]): void {
    if (this.stopped) return;
    for (const event of events) {
      if (event.eventNumber === EVENT_NUMBER_DELETED) continue; // a hard-delete tombstone is not a message
      if (event.eventNumber < this.nextReadNumber) continue; // already read while paging
      if (this.live && event.eventNumber === this.nextReadNumber && this.liveBuffered < this.settings.liveBufferSize) {
        this.enqueue(this.messageFor(this.resolve(event)), true);
        this.nextReadNumber = event.eventNumber + 1;
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
    let result: ReturnType<EventStore['readStreamForward']>;
    try {
      result = this.ctx.store.readStreamForward(this.streamId, this.nextReadNumber, count, this.settings.resolveLinkTos, this.ctx.system);
    } catch (err) {
      // e.g. the store is closing: try again on a later tick rather than fail the caller (an ack, a commit).
      this.logger.warn({ err }, 'persistent subscription read failed; retrying shortly');
      this.readRetryAt = this.ctx.clock.now() + GROUP_TICK_MS;
      return false;
    }
    switch (result.result) {
      case 'Success': {
        for (const entry of result.events) {
          const original = entry.link ?? entry.event;
          if (!original || original.eventNumber === EVENT_NUMBER_DELETED) continue;
          if (original.eventNumber < this.nextReadNumber) continue;
          this.enqueue(this.messageFor(entry), false);
          this.nextReadNumber = original.eventNumber + 1;
        }
        if (result.nextEventNumber > this.nextReadNumber) this.nextReadNumber = result.nextEventNumber;
        if (result.isEndOfStream) this.live = true;
        return result.events.length > 0 || !result.isEndOfStream;
      }
      case 'NoStream':
      case 'StreamDeleted':
        // Nothing to read yet (or ever); commits to the stream will wake the group.
        this.live = true;
        return false;
      default:
        this.logger.warn({ result: result.result, error: result.error }, 'persistent subscription read failed; retrying shortly');
        this.readRetryAt = this.ctx.clock.now() + GROUP_TICK_MS;
        return false;
    }
  }

  private enqueue(message: Message, fromLive: boolean): void {
    this.pending.add(message.number);
    this.buffer.pushBack(message);
    if (fromLive) this.liveBuffered++;
  }

  private send(consumer: Consumer, message: Message): void {
    const o: Outstanding = { message, consumer, sentAt: this.ctx.clock.now(), seq: ++this.seq, sameId: undefined };
    this.outstandingBySeq.set(o.seq, o);
    const first = this.outstandingById.get(message.id);
    if (first) {
      let last = first;
      while (last.sameId) last = last.sameId;
      last.sameId = o;
    } else this.outstandingById.set(message.id, o);
    consumer.inFlight.add(o);
    this.freeSlots--;
    consumer.delivered++;
    this.totalDelivered++;
    let accepted: boolean;
    try {
      accepted = consumer.sink.eventAppeared(message.event, message.retryCount);
    } catch (err) {
      this.logger.error({ err }, 'persistent delivery failed');
      accepted = false;
    }
    if (!accepted) this.removeConsumer(consumer.id, 'SlowSubscriber');
  }

  /** Finds and removes the outstanding message with this id, preferring the given consumer's. */
  private take(id: string, consumer: Consumer | undefined): Outstanding | undefined {
    let o = this.outstandingById.get(id);
    if (!o) return undefined;
    if (consumer && o.consumer !== consumer) {
      for (let c: Outstanding | undefined = o; c; c = c.sameId) {
        if (c.consumer === consumer) {
          o = c;
          break;
        }
      }
    }
    this.forget(o);
    return o;
  }

  private forget(o: Outstanding): void {
    this.outstandingBySeq.delete(o.seq);
    const first = this.outstandingById.get(o.message.id);
    if (first === o) {
      if (o.sameId) this.outstandingById.set(o.message.id, o.sameId);
      else this.outstandingById.delete(o.message.id);
    } else {
      for (let c = first; c; c = c.sameId) {
        if (c.sameId === o) {
          c.sameId = o.sameId;
          break;
        }
      }
    }
    o.sameId = undefined;
    if (o.consumer.inFlight.delete(o) && this.consumers.has(o.consumer.id)) this.freeSlots++;
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
    this.totalProcessed++;
    if (message.replay) {
      message.replay.remaining--;
      this.truncateReplayedParked();
    } else this.pending.remove(message.number);
  }

  // ---- parking --------------------------------------------------------------------------------------

  private park(message: Message, reason: string): void {
    this.parking++;
    void this.writeParked(message, reason).then((ok) => {
      this.parking--;
      if (this.stopped) return;
      if (ok) this.completed(message);
      else this.retryQueue.pushBack(message); // could not park: keep it alive rather than lose it
      this.pump();
      this.maybeCheckpoint(false);
    });
  }

  private async writeParked(message: Message, reason: string): Promise<boolean> {
    const original = message.event.link ?? message.event.event;
    if (!original) return true;
    const metadata = { Added: new Date(this.ctx.clock.now()).toISOString(), Reason: reason, SubscriptionEventNumber: message.number };
    for (let attempt = 1; attempt <= PARK_WRITE_ATTEMPTS; attempt++) {
      try {
        const result = await this.ctx.store.appendToStream(
          this.parkedStreamId,
          ExpectedVersion.Any,
          [
            {
              eventId: randomUUID(),
              eventType: LINK_EVENT_TYPE,
              isJson: false,
              data: utf8.encode(`${original.eventNumber}@${original.streamId}`),
              metadata: utf8.encode(JSON.stringify(metadata)),
            },
          ],
          this.ctx.system,
        );
        if (result.result === 'Success') return true;
        this.logger.warn({ result: result.result, attempt }, 'could not park message');
      } catch (err) {
        this.logger.warn({ err, attempt }, 'could not park message');
      }
    }
    return false;
  }

  private refreshParkedState(): void {
    const metadata = this.ctx.store.getStreamMetadata(this.parkedStreamId);
    const tb = metadata.truncateBefore ?? 0;
    this.parkedTruncateBefore = tb === EVENT_NUMBER_DELETED ? this.ctx.store.lastEventNumber(this.parkedStreamId) + 1 : tb;
    if (this.replayCursor < this.parkedTruncateBefore) this.replayCursor = this.parkedTruncateBefore;
  }

  parkedMessageCount(): number {
    const last = this.ctx.store.lastEventNumber(this.parkedStreamId);
    if (last < 0 || last === EVENT_NUMBER_DELETED) return 0;
    this.refreshParkedState();
    return Math.max(0, last + 1 - this.replayCursor);
  }

  listParked(from: number, count: number): ParkedPage {
    this.refreshParkedState();
    const start = Math.max(from, this.parkedTruncateBefore);
    const total = this.parkedMessageCount();
    const result = this.ctx.store.readStreamForward(this.parkedStreamId, start, Math.min(Math.max(1, count), MAX_READ_COUNT), true, this.ctx.system);
    if (result.result !== 'Success') return { messages: [], nextEventNumber: null, total };
    const messages: ParkedMessage[] = result.events.map((entry) => {
      const parked = entry.link ?? entry.event;
      let meta: { Added?: string; Reason?: string; SubscriptionEventNumber?: number } = {};
      try {
        meta = parked && parked.metadata.length > 0 ? JSON.parse(utf8Decoder.decode(parked.metadata)) : {};
      } catch {
        /* not ours or damaged: show what we can */
      }
      const target = entry.link ? entry.event : undefined;
      return {
        parkedEventNumber: parked?.eventNumber ?? -1,
        event: target ? { event: target } : {},
        eventNumber: typeof meta.SubscriptionEventNumber === 'number' ? meta.SubscriptionEventNumber : (target?.eventNumber ?? -1),
        parkedAt: typeof meta.Added === 'string' ? meta.Added : null,
        reason: typeof meta.Reason === 'string' ? meta.Reason : null,
      };
    });
    return { messages, nextEventNumber: result.isEndOfStream ? null : result.nextEventNumber, total };
  }

  /**
   * Puts parked messages (all, or the oldest `stopAt`) back into the group ahead of new events. The
   * parked stream is truncated past them once each has been acked, skipped or parked again, so a
   * restart in between replays them again rather than losing them.
   */
  replayParked(stopAt?: number): number {
    if (this.stopped) return 0;
    this.refreshParkedState();
    const last = this.ctx.store.lastEventNumber(this.parkedStreamId);
    if (last < this.replayCursor || last === EVENT_NUMBER_DELETED) return 0;
    const limit = stopAt === undefined ? Number.POSITIVE_INFINITY : Math.max(0, stopAt);
    const messages: Message[] = [];
    let cursor = this.replayCursor;
    while (cursor <= last && messages.length < limit) {
      const count = Math.min(500, MAX_READ_COUNT, limit - messages.length, last - cursor + 1);
      const page = this.ctx.store.readStreamForward(this.parkedStreamId, cursor, count, true, this.ctx.system);
      if (page.result !== 'Success') break;
      for (const entry of page.events) {
        const parked = entry.link ?? entry.event;
        if (!parked || parked.eventNumber > last) continue;
        cursor = parked.eventNumber + 1;
        const target = entry.link ? entry.event : undefined;
        if (!target) continue; // the parked event is gone (deleted/truncated): nothing to redeliver
        const resolved =
          this.settings.resolveLinkTos && target.eventType === LINK_EVENT_TYPE ? this.ctx.store.resolveLink(target, this.ctx.system) : { event: target };
        const message = this.messageFor(resolved.link || resolved.event ? resolved : { event: target });
        message.number = target.eventNumber;
        messages.push(message);
      }
      if (page.events.length === 0) cursor = Math.max(cursor, page.nextEventNumber);
      if (page.isEndOfStream || page.events.length === 0) break;
    }
    if (cursor <= this.replayCursor) return 0;
    const slice: ReplaySlice = { parkedUpTo: cursor, remaining: messages.length };
    this.replayCursor = cursor;
    this.replaySlices.push(slice);
    for (const m of messages) {
      m.replay = slice;
      this.retryQueue.pushBack(m);
    }
    this.truncateReplayedParked();
    this.pump();
    return messages.length;
  }

  private truncateReplayedParked(): void {
    let upTo: number | null = null;
    while (this.replaySlices.length > 0 && this.replaySlices[0].remaining <= 0) upTo = this.replaySlices.shift()!.parkedUpTo;
    if (upTo === null || upTo <= this.parkedTruncateBefore) return;
    this.parkedTruncateBefore = upTo;
    const raw = { ...this.ctx.store.getStreamMetadata(this.parkedStreamId).raw, $tb: upTo };
    void this.writeMetadata(this.parkedStreamId, raw).catch((err: unknown) =>
      this.logger.warn({ err }, 'could not truncate the parked stream after replay'),
    );
  }

  // ---- checkpoints ----------------------------------------------------------------------------------

  /** The last event number before which everything is processed. */
  checkpointCandidate(): number {
    const lowest = this.pending.lowest();
    return lowest === undefined ? this.nextReadNumber - 1 : lowest - 1;
  }

  private maybeCheckpoint(timed: boolean): void {
    if (this.stopped) return;
    const candidate = this.checkpointCandidate();
    const since = this.lastCheckpointRequested ?? -1;
    const difference = candidate - since;
    if (difference <= 0 && this.lastCheckpointRequested !== null) return;
    const dueByTime =
      timed && this.settings.checkpointAfterMs > 0 && this.ctx.clock.now() - this.lastCheckpointAt >= this.settings.checkpointAfterMs;
    if (difference >= this.settings.maxCheckpointCount || (dueByTime && difference >= this.settings.minCheckpointCount)) {
      void this.requestCheckpoint(candidate);
    }
  }

  /** Writes `value` as the checkpoint (at most one write in flight; later requests coalesce). */
  private requestCheckpoint(value: number): Promise<void> {
    if (this.lastCheckpointRequested !== null && value <= this.lastCheckpointRequested && this.lastCheckpointWritten !== null) {
      return this.checkpointWriting ?? Promise.resolve();
    }
    this.lastCheckpointRequested = value;
    this.lastCheckpointAt = this.ctx.clock.now();
    this.checkpointToWrite = value;
    this.checkpointWriting ??= this.writeCheckpoints().finally(() => {
      this.checkpointWriting = null;
    });
    return this.checkpointWriting;
  }

  private async writeCheckpoints(): Promise<void> {
    while (this.checkpointToWrite !== null) {
      const value = this.checkpointToWrite;
      this.checkpointToWrite = null;
      try {
        if (!this.checkpointMetadataChecked) {
          this.checkpointMetadataChecked = true;
          const metadata = this.ctx.store.getStreamMetadata(this.checkpointStreamId);
          if (metadata.maxCount !== 2) {
            const { $tb, ...rest } = metadata.raw;
            const keep = $tb === EVENT_NUMBER_DELETED || $tb === '9223372036854775807' ? rest : metadata.raw;
            await this.writeMetadata(this.checkpointStreamId, {
              ...keep,
              $maxCount: 2,
              $acl: { $r: '$admins', $w: '$admins', $d: '$admins', $mr: '$all', $mw: '$admins' },
            });
          }
        }
        const result = await this.ctx.store.appendToStream(
          this.checkpointStreamId,
          ExpectedVersion.Any,
          [{ eventId: randomUUID(), eventType: CHECKPOINT_EVENT_TYPE, isJson: true, data: utf8.encode(JSON.stringify(value)), metadata: new Uint8Array(0) }],
          this.ctx.system,
        );
        if (result.result === 'Success') {
          if (this.lastCheckpointWritten === null || value > this.lastCheckpointWritten) this.lastCheckpointWritten = value;
        } else this.logger.warn({ result: result.result, checkpoint: value }, 'checkpoint write failed');
      } catch (err) {
        this.logger.warn({ err, checkpoint: value }, 'checkpoint write failed');
      }
    }
  }

  private async writeMetadata(streamId: string, raw: Record<string, unknown>): Promise<void> {
    const result = await this.ctx.store.appendToStream(
      `$$${streamId}`,
      ExpectedVersion.Any,
      [{ eventId: randomUUID(), eventType: METADATA_EVENT_TYPE, isJson: true, data: utf8.encode(JSON.stringify(raw)), metadata: new Uint8Array(0) }],
      this.ctx.system,
    );
    if (result.result !== 'Success') throw new Error(`metadata write to $$${streamId} failed: ${result.result}`);
  }

  private readCheckpoint(): number | null {
    const result = this.ctx.store.readStreamBackward(this.checkpointStreamId, -1, 1, false, this.ctx.system);
    if (result.result !== 'Success' || result.events.length === 0) return null;
    const record = result.events[0].event;
    if (!record) return null;
    try {
      // EventStoreDB 5 wrote a JSON number, 20+ a JSON string: accept both.
      const value = Number(JSON.parse(utf8Decoder.decode(record.data)));
      if (Number.isSafeInteger(value) && value >= -1) return value;
    } catch {
      /* fall through */
    }
    this.logger.warn({ stream: this.checkpointStreamId }, 'unreadable checkpoint; starting from the group settings');
    return null;
  }

  // ---- timer ----------------------------------------------------------------------------------------

  /** The 1 s housekeeping: message timeouts, timed checkpoints, rates. */
  tick(): void {
    if (this.stopped) return;
    const now = this.ctx.clock.now();
    const timeout = this.settings.messageTimeoutMs;
    if (timeout > 0) {
      // Insertion order is send order, so the first message not yet due ends the scan.
      for (const o of this.outstandingBySeq.values()) {
        if (o.sentAt + timeout > now) break;
        this.forget(o);
        this.retry(o.message, 'Message timed out.');
      }
    }
    this.pump();
    this.maybeCheckpoint(true);
    const seconds = (now - this.lastTickAt) / 1000;
    this.rate = seconds > 0 ? (this.totalProcessed - this.processedAtLastTick) / seconds : 0;
    this.processedAtLastTick = this.totalProcessed;
    this.lastTickAt = now;
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
  async settled(): Promise<void> {
    while (this.checkpointWriting) await this.checkpointWriting;
  }

  /** Writes the final checkpoint (after stop) and waits for checkpoint writes in flight. */
  async flush(): Promise<void> {
    const candidate = this.checkpointCandidate();
    if (this.lastCheckpointWritten === null || candidate > this.lastCheckpointWritten) await this.requestCheckpoint(candidate);
    while (this.checkpointWriting) await this.checkpointWriting;
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

  private messageFor(entry: ResolvedIndexedEvent): Message {
    const original = (entry.link ?? entry.event) as RecordedEvent;
    return {
      event: entry,
      id: original.eventId,
      number: original.eventNumber,
      retryCount: 0,
      pinKey: this.strategy.keyed ? this.pinKeyOf(entry) : '',
      replay: null,
    };
  }

  /** Pinned: the source stream (the target's, or parsed from an unresolved link); ByCorrelation: `$correlationId`. */
  private pinKeyOf(entry: ResolvedIndexedEvent): string {
    const event = entry.event;
    let source = event?.streamId ?? '';
    if (event && event.eventType === LINK_EVENT_TYPE && !entry.link) source = linkTargetStream(event) ?? source;
    else if (!event && entry.link) source = linkTargetStream(entry.link) ?? entry.link.streamId;
    if (this.strategy.name === 'PinnedByCorrelation') {
      const carrier = event ?? entry.link;
      if (carrier && carrier.metadata.length > 0) {
        try {
          const meta = JSON.parse(utf8Decoder.decode(carrier.metadata)) as { $correlationId?: unknown };
          if (typeof meta.$correlationId === 'string' && meta.$correlationId !== '') return meta.$correlationId;
        } catch {
          /* not JSON: fall back to the stream */
        }
      }
    }
    return source;
  }

  // ---- statistics -----------------------------------------------------------------------------------

  private status(): GroupStatus {
    if (this.consumers.size === 0) return 'Idle';
    return this.live ? 'Live' : 'CatchingUp';
  }

  info(): PersistentGroupInfo {
    const last = this.ctx.store.lastEventNumber(this.streamId);
    const lastKnown = last === EVENT_NUMBER_DELETED ? this.nextReadNumber - 1 : last;
    const checkpointed = this.lastCheckpointWritten ?? -1;
    const connections: PersistentConnectionInfo[] = [...this.consumers.values()].map((c) => ({
      id: c.id,
      connectionId: c.subscriber.connectionId,
      connectionName: c.subscriber.connectionName,
      remoteAddress: c.subscriber.remoteAddress,
      user: c.subscriber.caller?.name ?? null,
      connectedAt: c.connectedAt,
      allowedInFlightMessages: c.maxInFlight,
      inFlightMessages: c.inFlight.size,
      availableSlots: c.maxInFlight - c.inFlight.size,
      itemsDelivered: c.delivered,
      itemsAcked: c.acked,
      averageItemsPerSecond: round2(c.rate),
    }));
    return {
      streamId: this.streamId,
      groupName: this.groupName,
      subscriptionId: this.subscriptionId,
      status: this.status(),
      averageItemsPerSecond: round2(this.rate),
      totalItemsProcessed: this.totalProcessed,
      totalItemsDelivered: this.totalDelivered,
      totalInFlightMessages: this.outstandingBySeq.size,
      readBufferCount: this.buffer.length - Math.min(this.liveBuffered, this.buffer.length),
      liveBufferCount: Math.min(this.liveBuffered, this.buffer.length),
      retryBufferCount: this.retryQueue.length,
      outstandingMessagesCount: this.outstandingBySeq.size + this.parking,
      parkedMessageCount: this.parkedMessageCount(),
      lastCheckpointedEventNumber: checkpointed,
      lastProcessedEventNumber: this.nextReadNumber - 1,
      lastKnownEventNumber: lastKnown,
      behindByMessages: Math.max(0, lastKnown - checkpointed),
      connectionCount: connections.length,
      connections,
    };
  }

  detail(): PersistentGroupDetail {
    return { ...this.info(), settings: { ...this.settings }, parkedStreamId: this.parkedStreamId, checkpointStreamId: this.checkpointStreamId };
  }
}

function linkTargetStream(link: RecordedEvent): string | null {
  const parsed = parseLink(link.data);
  return parsed.kind === 'link' ? parsed.streamId : null;
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
