/**
 * A group's parked-message stream: messages that failed too often (or were nak'ed with Park) are
 * written there as links with EventStoreDB's metadata (Added, Reason, SubscriptionEventNumber), listed,
 * and replayed; the stream is truncated past a replayed slice once every message of it is finished.
 */
import type { Logger } from '../../../logger.ts';
import { LINK_EVENT_TYPE, EVENT_NUMBER_DELETED, MAX_READ_COUNT, type ResolvedIndexedEvent } from '../../store/index.ts';
import type { ParkedMessage, ParkedPage } from '../types.ts';
import { appendGroupEvent, utf8, utf8Decoder, writeStreamMetadata, type GroupContext } from './group-streams.ts';
import type { Message, ReplaySlice } from './messages.ts';

const PARK_WRITE_ATTEMPTS = 5;

export class ParkedMessages {
  readonly streamId: string;
  private readonly ctx: GroupContext;
  private readonly logger: Logger;
  private readonly slices: ReplaySlice[] = [];
  /** First parked event number not yet taken for replay. */
  private replayCursor = 0;
  private truncateBefore = 0;

  constructor(ctx: GroupContext, streamId: string, logger: Logger) {
    this.ctx = ctx;
    this.streamId = streamId;
    this.logger = logger;
  }

  /** Writes a message to the parked stream (a few attempts); false if it could not be written. */
  async park(message: Message, reason: string): Promise<boolean> {
    const original = message.event.link ?? message.event.event;
    if (!original) return true;
    const metadata = {
      Added: new Date(this.ctx.clock.now()).toISOString(),
      Reason: reason,
      SubscriptionEventNumber: message.number,
    };
    for (let attempt = 1; attempt <= PARK_WRITE_ATTEMPTS; attempt++) {
      try {
        const result = await appendGroupEvent(this.ctx, this.streamId, {
          eventType: LINK_EVENT_TYPE,
          isJson: false,
          data: utf8.encode(`${original.eventNumber}@${original.streamId}`),
          metadata: utf8.encode(JSON.stringify(metadata)),
        });
        if (result.result === 'Success') return true;
        this.logger.warn({ result: result.result, attempt }, 'could not park message');
      } catch (err) {
        this.logger.warn({ err, attempt }, 'could not park message');
      }
    }
    return false;
  }

  /** Re-reads the stream's `$tb` (someone may have truncated or deleted it). */
  refresh(): void {
    const metadata = this.ctx.store.getStreamMetadata(this.streamId);
    const tb = metadata.truncateBefore ?? 0;
    this.truncateBefore = tb === EVENT_NUMBER_DELETED ? this.ctx.store.lastEventNumber(this.streamId) + 1 : tb;
    if (this.replayCursor < this.truncateBefore) this.replayCursor = this.truncateBefore;
  }

  count(): number {
    const last = this.ctx.store.lastEventNumber(this.streamId);
    if (last < 0 || last === EVENT_NUMBER_DELETED) return 0;
    this.refresh();
    return Math.max(0, last + 1 - this.replayCursor);
  }

  list(from: number, count: number): ParkedPage {
    this.refresh();
    const start = Math.max(from, this.truncateBefore);
    const total = this.count();
    const result = this.ctx.store.readStreamForward(
      this.streamId,
      start,
      Math.min(Math.max(1, count), MAX_READ_COUNT),
      true,
      this.ctx.system,
    );
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
        eventNumber:
          typeof meta.SubscriptionEventNumber === 'number' ? meta.SubscriptionEventNumber : (target?.eventNumber ?? -1),
        parkedAt: typeof meta.Added === 'string' ? meta.Added : null,
        reason: typeof meta.Reason === 'string' ? meta.Reason : null,
      };
    });
    return { messages, nextEventNumber: result.isEndOfStream ? null : result.nextEventNumber, total };
  }

  /**
   * Takes parked messages (all, or the oldest `stopAt`) for redelivery, as one slice: each comes back
   * with `replay` set, and `finished` must be called for each once it is acked, skipped or parked again.
   */
  takeForReplay(
    stopAt: number | undefined,
    resolveLinkTos: boolean,
    toMessage: (entry: ResolvedIndexedEvent) => Message,
  ): Message[] {
    this.refresh();
    const { store, system } = this.ctx;
    const last = store.lastEventNumber(this.streamId);
    if (last < this.replayCursor || last === EVENT_NUMBER_DELETED) return [];
    const limit = stopAt === undefined ? Number.POSITIVE_INFINITY : Math.max(0, stopAt);
    const messages: Message[] = [];
    let cursor = this.replayCursor;
    while (cursor <= last && messages.length < limit) {
      const count = Math.min(500, MAX_READ_COUNT, limit - messages.length, last - cursor + 1);
      const page = store.readStreamForward(this.streamId, cursor, count, true, system);
      if (page.result !== 'Success') break;
      for (const entry of page.events) {
        const parked = entry.link ?? entry.event;
        if (!parked || parked.eventNumber > last) continue;
        cursor = parked.eventNumber + 1;
        const target = entry.link ? entry.event : undefined;
        if (!target) continue; // the parked event is gone (deleted/truncated): nothing to redeliver
        const resolved =
          resolveLinkTos && target.eventType === LINK_EVENT_TYPE
            ? store.resolveLink(target, system)
            : { event: target };
        const message = toMessage(resolved.link || resolved.event ? resolved : { event: target });
        message.number = target.eventNumber;
        messages.push(message);
      }
      if (page.events.length === 0) cursor = Math.max(cursor, page.nextEventNumber);
      if (page.isEndOfStream || page.events.length === 0) break;
    }
    if (cursor <= this.replayCursor) return [];
    const slice: ReplaySlice = { parkedUpTo: cursor, remaining: messages.length };
    this.replayCursor = cursor;
    this.slices.push(slice);
    for (const m of messages) m.replay = slice;
    this.truncateReplayed();
    return messages;
  }

  /** A replayed message is finished with. */
  finished(slice: ReplaySlice): void {
    slice.remaining--;
    this.truncateReplayed();
  }

  private truncateReplayed(): void {
    let upTo: number | null = null;
    while (this.slices.length > 0 && this.slices[0].remaining <= 0) upTo = this.slices.shift()!.parkedUpTo;
    if (upTo === null || upTo <= this.truncateBefore) return;
    this.truncateBefore = upTo;
    const raw = { ...this.ctx.store.getStreamMetadata(this.streamId).raw, $tb: upTo };
    void writeStreamMetadata(this.ctx, this.streamId, raw).catch((err: unknown) =>
      this.logger.warn({ err }, 'could not truncate the parked stream after replay'),
    );
  }
}
