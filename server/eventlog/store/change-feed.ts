/**
 * Tells listeners what was committed, in `$all` order: this process's commits as they happen, and
 * commits another process (the admin CLI) made, noticed through `PRAGMA data_version`, read back from
 * the log. Noticing an outside commit also drops the stream cache.
 */
import type { StoreContext } from './context.ts';
import { isMetastream, originalStreamOf, parseStreamMetadata, SystemEventTypes } from './metadata.ts';
import { Column, toRecorded, type AllEventColumns } from './statements.ts';
import type { WriteBatch } from './stream-cache.ts';
import { EVENT_NUMBER_DELETED, type CommittedBatch } from './types.ts';

export class ChangeFeed {
  private readonly ctx: StoreContext;
  /** False while emitting would interleave with a commit (or after close). */
  private readonly canEmitNow: () => boolean;
  private readonly listeners = new Set<(batch: CommittedBatch) => void>();
  private readonly externalChangeListeners = new Set<() => void>();
  /** Highest position whose events went to onCommitted listeners. */
  private emittedPosition: number;
  private dataVersion: number;
  private externalEmitScheduled = false;

  constructor(ctx: StoreContext, canEmitNow: () => boolean) {
    this.ctx = ctx;
    this.canEmitNow = canEmitNow;
    this.emittedPosition = ctx.lastPosition;
    this.dataVersion = ctx.sql.dataVersion.get() as number;
  }

  onCommitted(listener: (batch: CommittedBatch) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onExternalChange(listener: () => void): () => void {
    this.externalChangeListeners.add(listener);
    return () => this.externalChangeListeners.delete(listener);
  }

  /** A commit of this process is on disk. */
  committed(b: WriteBatch): void {
    // Commits another process made before ours go out first, so listeners see `$all` order.
    if (b.startPosition > this.emittedPosition) this.emitStored(this.emittedPosition, b.startPosition);
    this.emittedPosition = b.lastPosition;
    if (b.events.length > 0 || b.deleted.length > 0) this.emit({ events: b.events, deleted: b.deleted });
  }

  /** Notices commits by another process: drops caches and catches up the log head. */
  sync(): void {
    const { ctx } = this;
    const version = ctx.sql.dataVersion.get() as number;
    if (version === this.dataVersion) return;
    this.dataVersion = version;
    ctx.streams.clear();
    const last = ctx.sql.lastPosition.get() as number;
    if (last > ctx.lastPosition) ctx.lastPosition = last;
    for (const listener of this.externalChangeListeners) {
      try {
        listener();
      } catch (err) {
        ctx.logger.error({ err }, 'an external-change listener threw');
      }
    }
    if (!this.externalEmitScheduled && ctx.lastPosition > this.emittedPosition) {
      this.externalEmitScheduled = true;
      setImmediate(() => {
        this.externalEmitScheduled = false;
        if (!this.canEmitNow()) return;
        if (ctx.lastPosition > this.emittedPosition) {
          const to = ctx.lastPosition;
          this.emitStored(this.emittedPosition, to);
          this.emittedPosition = to;
        }
      });
    }
  }

  private emit(batch: CommittedBatch): void {
    for (const listener of this.listeners) {
      try {
        listener(batch);
      } catch (err) {
        this.ctx.logger.error({ err }, 'an onCommitted listener threw');
      }
    }
  }

  /** Emits stored events in (from, to] (commits made by another process), in chunks. */
  private emitStored(from: number, to: number): void {
    let cursor = from;
    while (cursor < to) {
      const rows = this.ctx.sql.allRange.all(cursor, to, 1000) as AllEventColumns[];
      if (rows.length === 0) break;
      const events = rows.map((r) => toRecorded(r, r[Column.streamId]));
      const deleted: { streamId: string; hard: boolean }[] = [];
      for (const e of events) {
        if (e.eventType === SystemEventTypes.StreamDeleted && e.eventNumber === EVENT_NUMBER_DELETED) {
          deleted.push({ streamId: e.streamId, hard: true });
        } else if (e.eventType === SystemEventTypes.Metadata && isMetastream(e.streamId)) {
          if (parseStreamMetadata(e.isJson, e.data).metadata.truncateBefore === EVENT_NUMBER_DELETED) {
            deleted.push({ streamId: originalStreamOf(e.streamId), hard: false });
          }
        }
      }
      this.emit({ events, deleted });
      cursor = rows[rows.length - 1][Column.position];
    }
  }
}
