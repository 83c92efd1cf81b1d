/**
 * Reads a user projection's input from where it stopped: `$all` (fromAll, with EventStoreDB's filter)
 * or the named streams with links resolved (fromStream(s), fromCategory), merged in log order. Each
 * item comes with the checkpoint tag that says the input was processed up to and including it.
 */
import {
  SYSTEM_CALLER,
  isMetastream,
  originalStreamOf,
  forwardCursorAfter,
  position,
  type EventStore,
  type Position,
  type RecordedEvent,
} from '../../store/index.ts';
import { allOrder, type CheckpointTag } from '../checkpoint-tag.ts';
import { decodeText, deletionOf, passesAllFilter, passesValidation } from '../source-event.ts';
import { lastEventTag } from '../system/shared-reader.ts';
import { sourceStreams, type SourceDefinition } from './source-definition.ts';

export interface InputItem {
  /** The event the handlers see (the link's target for a resolved link). */
  event: RecordedEvent;
  /** The link that delivered it, when read through one. */
  link?: RecordedEvent;
  tag: CheckpointTag;
  /** false: read but not for the handlers (filtered out); its tag still counts. */
  handled: boolean;
  /** A deletion marker of this stream (partition) for a `$deleted` handler, instead of an event. */
  deletedPartition?: string;
}

/** Small enough to read within a turn's share of the event loop (turn-slicer.ts). */
const PAGE = 250;
const PAGE_BYTES = 1024 * 1024;

export class InputReader {
  private readonly store: EventStore;
  private readonly def: SourceDefinition;
  private cursor: Position = position(0, 0);
  private readonly streams: Record<string, number> = {};

  constructor(store: EventStore, def: SourceDefinition, from: CheckpointTag | null) {
    this.store = store;
    this.def = def;
    if (def.allStreams) {
      if (from?.kind === 'position') this.cursor = forwardCursorAfter(from.commitPosition, from.preparePosition);
    } else {
      for (const s of sourceStreams(def)) this.streams[s] = from?.kind === 'streams' ? (from.streams[s] ?? -1) : -1;
    }
  }

  /**
   * The stream a deletion marker is about, when the query has a `$deleted` handler (foreachStream only, as
   * EventStoreDB): a tombstone or a `$$x` metadata with the deleted `$tb` (fromAll), or a `$ce-` link
   * `$by_category` stamped `$deleted` (its target, a tombstone, no longer resolves).
   */
  private deletedStream(event: RecordedEvent | undefined, link?: RecordedEvent): string | null {
    if (!this.def.byStream || !this.def.options.handlesDeletedNotifications) return null;
    if (link && link.metadata.length > 0) {
      const meta = parseObject(decodeText(link.metadata));
      if (meta && '$deleted' in meta) return typeof meta.$o === 'string' ? meta.$o : streamOfLink(link);
    }
    if (!event) return null;
    const deletion = deletionOf(event);
    return deletion.deleted ? deletion.streamId : null;
  }

  private wanted(event: RecordedEvent): boolean {
    const def = this.def;
    if (!passesValidation(event)) return false;
    if (event.isJson && decodeText(event.data).trim() === '') return false;
    return def.allEvents || def.events.includes(event.eventType);
  }

  /** The next items (empty at the end of the input for now). */
  read(): InputItem[] {
    return this.def.allStreams ? this.readAll() : this.readStreams();
  }

  /**
   * At the end of the input for now: how far it has looked. `fromAll` reads without the `$` streams (their
   * events never pass its filter), so the end of the log is past the last event it was given.
   */
  reachedEnd(at: CheckpointTag | null): CheckpointTag | null {
    if (!this.def.allStreams) return at;
    const tail = lastEventTag(this.store);
    if (!tail || (at?.kind === 'position' && allOrder(at, tail) >= 0)) return at;
    return tail;
  }

  private readAll(): InputItem[] {
    // The `$` streams (the standard projections' links among them) are left out in SQL, never loaded.
    const page = this.store.readAllForward(this.cursor, PAGE, false, SYSTEM_CALLER, {
      maxBytes: PAGE_BYTES,
      userStreamsOnly: true,
    });
    if (page.result !== 'Success') throw new Error(`Reading $all failed: ${page.error ?? page.result}`);
    this.cursor = page.nextPosition;
    const items: InputItem[] = [];
    for (const { event } of page.events) {
      if (!event) continue;
      const tag: CheckpointTag = {
        kind: 'position',
        commitPosition: event.commitPosition,
        preparePosition: event.preparePosition,
      };
      const passes = passesAllFilter(event, this.def.options.includeLinks);
      const deleted = passes ? this.deletedStream(event) : null;
      if (deleted !== null) items.push({ event, tag, handled: true, deletedPartition: deleted });
      else items.push({ event, tag, handled: passes && this.wanted(event) });
    }
    return items;
  }

  private readStreams(): InputItem[] {
    const read: { streamId: string; event?: RecordedEvent; link?: RecordedEvent; record: RecordedEvent }[] = [];
    let limit = Number.POSITIVE_INFINITY;
    for (const [streamId, last] of Object.entries(this.streams)) {
      const page = this.store.readStreamForward(streamId, last + 1, PAGE, true, SYSTEM_CALLER, {
        maxBytes: PAGE_BYTES,
      });
      if (page.result === 'NoStream' || page.result === 'StreamDeleted') continue;
      if (page.result !== 'Success') throw new Error(`Reading ${streamId} failed: ${page.error ?? page.result}`);
      for (const entry of page.events) {
        const record = entry.link ?? entry.event;
        if (record) read.push({ streamId, event: entry.event, link: entry.link, record });
      }
      // A stream with more to read bounds how far the others may go, so the merge stays in log order.
      if (!page.isEndOfStream && page.events.length > 0) {
        const lastRecord = page.events[page.events.length - 1];
        limit = Math.min(limit, (lastRecord.link ?? lastRecord.event)?.preparePosition ?? limit);
      }
    }
    read.sort((a, b) => a.record.preparePosition - b.record.preparePosition);
    const items: InputItem[] = [];
    for (const r of read) {
      if (r.record.preparePosition > limit) break;
      this.streams[r.streamId] = r.record.eventNumber;
      const tag: CheckpointTag = { kind: 'streams', streams: { ...this.streams } };
      const event = r.event;
      const deleted = this.deletedStream(event, r.link);
      if (deleted !== null) {
        items.push({ event: event ?? r.record, link: r.link, tag, handled: true, deletedPartition: deleted });
        continue;
      }
      if (!event) {
        // A link whose target is gone: nothing to handle, but the position moves on.
        items.push({ event: r.record, tag, handled: false });
        continue;
      }
      items.push({ event, link: r.link, tag, handled: this.wanted(event) });
    }
    return items;
  }
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The stream a `$>` link's data `N@stream` names. */
function streamOfLink(link: RecordedEvent): string {
  const data = decodeText(link.data);
  const at = data.indexOf('@');
  return at < 0 ? data : data.slice(at + 1);
}

/** foreachStream's partition: the `$o` of the link (category readers), else the stream (`x` for `$$x`). */
export function streamPartitionOf(item: InputItem): string {
  if (item.link && item.link.metadata.length > 0) {
    const o = parseObject(decodeText(item.link.metadata))?.$o;
    if (typeof o === 'string') return o;
  }
  const s = item.event.streamId;
  return isMetastream(s) ? originalStreamOf(s) : s;
}
