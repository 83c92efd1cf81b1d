/**
 * The read side of a persistent group: the messages waiting to be delivered, in order. Pages from the store while
 * behind, takes events straight from commits once caught up (within the live buffer), and remembers which numbers
 * are still unfinished, so the group knows the checkpoint (the event before the lowest of them).
 */
import { LINK_EVENT_TYPE, MAX_READ_COUNT, type RecordedEvent, type ResolvedIndexedEvent } from '../../store/index.ts';
import type { PersistentGroupSettings } from '../types.ts';
import { Deque, PendingNumbers } from './deque.ts';
import { createGroupSource, type GroupSource } from './group-source.ts';
import { checkpointStreamOf, parkedStreamOf, type GroupContext } from './group-streams.ts';
import { messageFor, type Message, type PinKeying } from './messages.ts';

/** After a failed read, how long paging waits (the group's tick: the next tick tries again). */
const READ_RETRY_MS = 1_000;

export class GroupFeed {
  /** The stream or `$all`, and the read cursor in it. */
  readonly source: GroupSource;
  private readonly ctx: GroupContext;
  private readonly settings: PersistentGroupSettings;
  private readonly keying: PinKeying;
  private readonly buffer = new Deque<Message>();
  /** Numbers read and not yet acked, skipped or parked. */
  private readonly pending = new PendingNumbers();
  /** How many of the buffered messages came from commits (bounded by liveBufferSize). */
  private liveBuffered = 0;
  /** True when caught up: new events are taken straight from commits. */
  private live = false;
  private readRetryAt = 0;

  /** `ctx.logger`: the group's own. */
  constructor(
    ctx: GroupContext,
    ids: { streamId: string; groupName: string },
    settings: PersistentGroupSettings,
    keying: PinKeying,
  ) {
    this.ctx = ctx;
    this.settings = settings;
    this.keying = keying;
    this.source = createGroupSource(ctx.store, ctx.system, ids.streamId, settings.filter, [
      checkpointStreamOf(ids.streamId, ids.groupName),
      parkedStreamOf(ids.streamId, ids.groupName),
    ]);
  }

  /** Events just committed to the group's stream (every event, for a group on `$all`), in order. */
  committed(events: readonly RecordedEvent[]): void {
    for (const event of events) {
      const place = this.source.placeOf(event);
      if (place === 'old') continue; // already read while paging
      if (this.live && place === 'next' && this.liveBuffered < this.settings.liveBufferSize) {
        if (this.source.advancePast(event))
          this.enqueue(messageFor(this.resolve(event), this.keying, this.source.numberOf(event)), true);
      } else {
        // Behind, a gap (e.g. a recreated stream) or the live buffer is full: page from the store instead.
        this.live = false;
      }
    }
  }

  /** The next message in stream order, paging from the store while behind. */
  next(): Message | undefined {
    // A page can come back empty without reaching the end (truncated stream); keep paging a little.
    for (let pages = 0; this.buffer.length === 0 && pages < 16; pages++) if (!this.readPage()) break;
    const next = this.buffer.popFront();
    if (next && this.liveBuffered > 0 && this.buffer.length < this.liveBuffered) this.liveBuffered = this.buffer.length;
    return next;
  }

  /** The message numbered `number` is acked, skipped or parked. */
  finished(number: number): void {
    this.pending.remove(number);
  }

  /** The last event number before which everything is processed. */
  checkpointCandidate(): number {
    const lowest = this.pending.lowest();
    return lowest === undefined ? this.source.settledUpTo : lowest - 1;
  }

  /** What the group's statistics show of the read side. */
  state(): { live: boolean; buffered: number; liveBuffered: number; lastProcessed: number; lastKnown: number } {
    return {
      live: this.live,
      buffered: this.buffer.length,
      liveBuffered: this.liveBuffered,
      lastProcessed: this.source.next - 1,
      lastKnown: this.source.lastKnown(),
    };
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
      this.ctx.logger.warn({ error: page.failed }, 'persistent subscription read failed; retrying shortly');
      this.readRetryAt = this.ctx.clock.now() + READ_RETRY_MS;
      return false;
    }
    for (const { entry, number } of page.entries) this.enqueue(messageFor(entry, this.keying, number), false);
    if (page.end) this.live = true;
    return page.entries.length > 0 || !page.end;
  }

  private enqueue(message: Message, fromLive: boolean): void {
    this.pending.add(message.number);
    this.buffer.pushBack(message);
    if (fromLive) this.liveBuffered++;
  }

  private resolve(event: RecordedEvent): ResolvedIndexedEvent {
    if (!this.settings.resolveLinkTos || event.eventType !== LINK_EVENT_TYPE) return { event };
    const target = this.ctx.store.resolveLink(event, this.ctx.system);
    if (target.event === event && !target.link) return { event };
    return { event: target.event, link: target.link ?? event };
  }
}
