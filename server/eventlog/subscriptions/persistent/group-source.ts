/**
 * Where a persistent group's messages come from: one stream, numbered by event number, or `$all` (KurrentDB's
 * groups "to $all"), numbered by commit position and optionally filtered. A number is what the group keeps
 * pending and checkpoints: "everything before it is processed". A transaction's events share their commit
 * position, so a checkpoint never lands inside one (a restart redelivers the whole transaction).
 */
import {
  EVENT_NUMBER_DELETED,
  forwardCursorAfter,
  MAX_READ_COUNT,
  type EventFilter,
  type EventStore,
  type Position,
  type Principal,
  type RecordedEvent,
  type ResolvedIndexedEvent,
} from '../../store/index.ts';
import { compileEventFilter, type EventPredicate } from '../filter.ts';

export const ALL_STREAM = '$all';

export interface SourcedEntry {
  entry: ResolvedIndexedEvent;
  number: number;
}

/** A page read while behind; 'failed' = try again later (e.g. the store is closing). */
export type SourcePage = { entries: SourcedEntry[]; end: boolean } | { failed: string };

/** Where a committed event stands against the read cursor. */
export type Placement = 'old' | 'next' | 'ahead';

export interface GroupSource {
  /** The number before which everything has been read. */
  readonly next: number;
  /** Reads on just after `processed`, a number already handled (a checkpoint). */
  resumeAfter(processed: number): void;
  /**
   * A first start from the group's `startFrom` (-1: the current end). Returns the checkpoint base, and
   * whether it must be written at once (the end, pinned, so a restart cannot skip what comes meanwhile).
   */
  startAt(startFrom: number): { after: number; pin: boolean };
  readPage(maxCount: number, resolveLinkTos: boolean): SourcePage;
  placeOf(event: RecordedEvent): Placement;
  /** Moves the cursor past a committed event placed `next`; false when the group's filter leaves it out. */
  advancePast(event: RecordedEvent): boolean;
  numberOf(event: RecordedEvent): number;
  lastKnown(): number;
}

export function createGroupSource(
  store: EventStore,
  system: Principal,
  streamId: string,
  filter: EventFilter | null | undefined,
): GroupSource {
  return streamId === ALL_STREAM
    ? new AllSource(store, system, filter ?? null)
    : new StreamSource(store, system, streamId);
}

class StreamSource implements GroupSource {
  next = 0;
  private readonly store: EventStore;
  private readonly system: Principal;
  private readonly streamId: string;
  constructor(store: EventStore, system: Principal, streamId: string) {
    this.store = store;
    this.system = system;
    this.streamId = streamId;
  }

  resumeAfter(processed: number): void {
    this.next = processed + 1;
  }

  startAt(startFrom: number): { after: number; pin: boolean } {
    if (startFrom >= 0) {
      this.next = startFrom;
      return { after: startFrom - 1, pin: false };
    }
    const last = this.store.lastEventNumber(this.streamId);
    const current = last === EVENT_NUMBER_DELETED ? -1 : last;
    this.next = current + 1;
    return { after: current, pin: true };
  }

  readPage(maxCount: number, resolveLinkTos: boolean): SourcePage {
    const result = this.store.readStreamForward(this.streamId, this.next, maxCount, resolveLinkTos, this.system);
    switch (result.result) {
      case 'Success': {
        const entries: SourcedEntry[] = [];
        for (const entry of result.events) {
          const original = entry.link ?? entry.event;
          if (!original || original.eventNumber === EVENT_NUMBER_DELETED) continue;
          if (original.eventNumber < this.next) continue;
          entries.push({ entry, number: original.eventNumber });
          this.next = original.eventNumber + 1;
        }
        if (result.nextEventNumber > this.next) this.next = result.nextEventNumber;
        return { entries, end: result.isEndOfStream };
      }
      case 'NoStream':
      case 'StreamDeleted':
        // Nothing to read yet (or ever); commits to the stream wake the group.
        return { entries: [], end: true };
      default:
        return { failed: result.error ?? result.result };
    }
  }

  placeOf(event: RecordedEvent): Placement {
    if (event.eventNumber === EVENT_NUMBER_DELETED) return 'old'; // a hard-delete tombstone is not a message
    if (event.eventNumber < this.next) return 'old';
    return event.eventNumber === this.next ? 'next' : 'ahead';
  }

  advancePast(event: RecordedEvent): boolean {
    this.next = event.eventNumber + 1;
    return true;
  }

  numberOf(event: RecordedEvent): number {
    return event.eventNumber;
  }

  lastKnown(): number {
    const last = this.store.lastEventNumber(this.streamId);
    return last === EVENT_NUMBER_DELETED ? this.next - 1 : last;
  }
}

/** The forward cursor just past every event of commits up to `commit`. */
const afterCommit = (commit: number): Position => ({ commitPosition: commit + 1, preparePosition: 0 });

class AllSource implements GroupSource {
  private cursor: Position = afterCommit(-1);
  private readonly accepts: EventPredicate;
  private readonly store: EventStore;
  private readonly system: Principal;
  private readonly filter: EventFilter | null;
  constructor(store: EventStore, system: Principal, filter: EventFilter | null) {
    this.store = store;
    this.system = system;
    this.filter = filter;
    this.accepts = compileEventFilter(filter);
  }

  get next(): number {
    return this.cursor.commitPosition;
  }

  resumeAfter(processed: number): void {
    this.cursor = afterCommit(processed);
  }

  startAt(startFrom: number): { after: number; pin: boolean } {
    if (startFrom >= 0) {
      // Inclusive, as a stream group's start revision: the event at that position is the first message.
      this.cursor = { commitPosition: startFrom, preparePosition: startFrom };
      return { after: startFrom - 1, pin: false };
    }
    const last = this.store.lastCommitPosition();
    this.cursor = afterCommit(last);
    return { after: last, pin: true };
  }

  readPage(maxCount: number, resolveLinkTos: boolean): SourcePage {
    const count = Math.min(maxCount, MAX_READ_COUNT);
    const result = this.filter
      ? this.store.filteredReadAllForward(this.cursor, count, count, this.filter, resolveLinkTos, this.system)
      : this.store.readAllForward(this.cursor, count, resolveLinkTos, this.system);
    if (result.result !== 'Success') return { failed: result.error ?? result.result };
    const entries = result.events.map((entry) => ({ entry, number: entry.commitPosition }));
    if (result.nextPosition.commitPosition >= 0) this.cursor = result.nextPosition;
    return { entries, end: result.isEndOfStream };
  }

  placeOf(event: RecordedEvent): Placement {
    const behind =
      event.commitPosition < this.cursor.commitPosition ||
      (event.commitPosition === this.cursor.commitPosition && event.preparePosition < this.cursor.preparePosition);
    // While live every commit is seen in order, so whatever is not behind the cursor comes next.
    return behind ? 'old' : 'next';
  }

  advancePast(event: RecordedEvent): boolean {
    this.cursor = forwardCursorAfter(event.commitPosition, event.preparePosition);
    return this.accepts(event);
  }

  numberOf(event: RecordedEvent): number {
    return event.commitPosition;
  }

  lastKnown(): number {
    return this.store.lastCommitPosition();
  }
}
