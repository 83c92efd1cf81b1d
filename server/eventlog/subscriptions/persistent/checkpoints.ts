/**
 * A group's checkpoint stream: the event number before which everything is processed, written as
 * EventStoreDB does (`SubscriptionCheckpoint`, `$maxCount` 2, admin-only ACL), at most one write in
 * flight with later requests coalescing into the next.
 */
import type { Logger } from '../../../logger.ts';
import { EVENT_NUMBER_DELETED } from '../../store/index.ts';
import type { PersistentSubscriptionSettings } from '../types.ts';
import { appendGroupEvent, utf8, utf8Decoder, writeStreamMetadata, type GroupContext } from './group-streams.ts';

const CHECKPOINT_EVENT_TYPE = 'SubscriptionCheckpoint';
/** `$tb` values that mean "deleted": a recreated checkpoint stream must not keep them. */
const DELETED_TRUNCATE_BEFORE = new Set<unknown>([EVENT_NUMBER_DELETED, '9223372036854775807']);

export class Checkpoints {
  readonly streamId: string;
  /** Last value asked to be written (null: none yet). */
  private requested: number | null = null;
  /** Last value known on disk. */
  private written: number | null = null;
  private requestedAt: number;
  private toWrite: number | null = null;
  private writing: Promise<void> | null = null;
  private metadataChecked = false;
  private readonly ctx: GroupContext;
  private readonly settings: PersistentSubscriptionSettings;
  private readonly logger: Logger;

  constructor(ctx: GroupContext, streamId: string, settings: PersistentSubscriptionSettings, logger: Logger) {
    this.ctx = ctx;
    this.streamId = streamId;
    this.settings = settings;
    this.logger = logger;
    this.requestedAt = ctx.clock.now();
  }

  get lastWritten(): number | null {
    return this.written;
  }

  /** The stored checkpoint, or null when there is none (or it cannot be read). */
  read(): number | null {
    const result = this.ctx.store.readStreamBackward(this.streamId, -1, 1, false, this.ctx.system);
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
    this.logger.warn({ stream: this.streamId }, 'unreadable checkpoint; starting from the group settings');
    return null;
  }

  /** Starting from a value already on disk. */
  resumedFrom(stored: number): void {
    this.requested = stored;
    this.written = stored;
  }

  /** Starting from a group setting: nothing to write until progress is made past `value`. */
  startsAfter(value: number): void {
    this.requested = value;
  }

  /** Writes a checkpoint when enough progress was made (by count, or by count and time on the timer). */
  consider(candidate: number, timed: boolean): void {
    const since = this.requested ?? -1;
    const difference = candidate - since;
    if (difference <= 0 && this.requested !== null) return;
    const dueByTime =
      timed &&
      this.settings.checkpointAfterMs > 0 &&
      this.ctx.clock.now() - this.requestedAt >= this.settings.checkpointAfterMs;
    if (
      difference >= this.settings.maxCheckpointCount ||
      (dueByTime && difference >= this.settings.minCheckpointCount)
    ) {
      void this.request(candidate);
    }
  }

  /** Writes `value` as the checkpoint (at most one write in flight; later requests coalesce). */
  request(value: number): Promise<void> {
    if (this.requested !== null && value <= this.requested && this.written !== null)
      return this.writing ?? Promise.resolve();
    this.requested = value;
    this.requestedAt = this.ctx.clock.now();
    this.toWrite = value;
    this.writing ??= this.writeQueued().finally(() => {
      this.writing = null;
    });
    return this.writing;
  }

  /** Waits for checkpoint writes in flight. */
  async settled(): Promise<void> {
    while (this.writing) await this.writing;
  }

  /** Writes `candidate` unless something as far is on disk, and waits for every write in flight. */
  async flush(candidate: number): Promise<void> {
    if (this.written === null || candidate > this.written) await this.request(candidate);
    await this.settled();
  }

  private async writeQueued(): Promise<void> {
    while (this.toWrite !== null) {
      const value = this.toWrite;
      this.toWrite = null;
      try {
        if (!this.metadataChecked) {
          this.metadataChecked = true;
          await this.ensureMetadata();
        }
        const result = await appendGroupEvent(this.ctx, this.streamId, {
          eventType: CHECKPOINT_EVENT_TYPE,
          isJson: true,
          data: utf8.encode(JSON.stringify(value)),
        });
        if (result.result === 'Success') {
          if (this.written === null || value > this.written) this.written = value;
        } else this.logger.warn({ result: result.result, checkpoint: value }, 'checkpoint write failed');
      } catch (err) {
        this.logger.warn({ err, checkpoint: value }, 'checkpoint write failed');
      }
    }
  }

  private async ensureMetadata(): Promise<void> {
    const metadata = this.ctx.store.getStreamMetadata(this.streamId);
    if (metadata.maxCount === 2) return;
    const { $tb, ...rest } = metadata.raw;
    const keep = DELETED_TRUNCATE_BEFORE.has($tb) ? rest : metadata.raw;
    await writeStreamMetadata(this.ctx, this.streamId, {
      ...keep,
      $maxCount: 2,
      $acl: { $r: '$admins', $w: '$admins', $d: '$admins', $mr: '$all', $mw: '$admins' },
    });
  }
}
