/**
 * After a reset (epoch >= 0) a projection's emitted stream whose last event an earlier epoch wrote
 * starts over: `$tb` hides the old events, as EventStoreDB's soft truncation does. Worked out before
 * the write: only the projection writes its streams.
 */
import { SYSTEM_CALLER, type EventStore } from '../store/index.ts';
import { parseTag, type ProjectionVersion } from './checkpoint-tag.ts';
import type { EmittedEvent } from './emitted.ts';
import { decodeText } from './source-event.ts';

export class EpochStreams {
  /** Streams known to hold this epoch's events already. */
  private readonly current = new Set<string>();
  private readonly store: EventStore;
  private readonly version: ProjectionVersion;

  constructor(store: EventStore, version: ProjectionVersion) {
    this.store = store;
    this.version = version;
  }

  /** The `$tb` each emitted stream needs before this write (streams absent need none). */
  starts(emitted: EmittedEvent[]): Map<string, number> {
    const starts = new Map<string, number>();
    if (this.version.epoch < 0) return starts;
    for (const { streamId } of emitted) {
      if (this.current.has(streamId) || starts.has(streamId)) continue;
      const last = this.store.readStreamBackward(streamId, -1, 1, false, SYSTEM_CALLER);
      const event = last.result === 'Success' ? last.events[0]?.event : undefined;
      if (!event) continue;
      const written = parseTag(decodeText(event.metadata)).version;
      if (!written || written.version < this.version.epoch) starts.set(streamId, event.eventNumber + 1);
      else this.current.add(streamId);
    }
    return starts;
  }

  /** After the write committed. */
  written(emitted: EmittedEvent[]): void {
    for (const e of emitted) this.current.add(e.streamId);
  }
}
