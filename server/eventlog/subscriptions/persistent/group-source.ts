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
  /**
   * The checkpoint when no message is pending: everything read, for a stream; on `$all`, the last event that
   * became a message, so events the group leaves out (its own checkpoints among them) never move it, and a
   * checkpoint write cannot lead to the next.
   */
  readonly settledUpTo: number;
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

/** `ownStreams`: the group's checkpoint and parked streams, never messages of a group on `$all`. */
export function createGroupSource(
  store: EventStore,
  system: Principal,
  streamId: string,
  filter: EventFilter | null | undefined,
  ownStreams: readonly string[],
): GroupSource {
  return streamId === ALL_STREAM
    ? new AllSource(store, system, filter ?? null, ownStreams)
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

  get settledUpTo(): number {
    return this.next - 1;
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
  settledUpTo = -1;
  private readonly accepts: EventPredicate;
  private readonly store: EventStore;
  private readonly system: Principal;
  private readonly filter: EventFilter | null;
  constructor(store: EventStore, system: Principal, filter: EventFilter | null, ownStreams: readonly string[]) {
    this.store = store;
    this.system = system;
    this.filter = filter;
    const matches = compileEventFilter(filter);
    const own = new Set(ownStreams);
    this.accepts = (event) => !own.has(event.streamId) && matches(event);
  }

  get next(): number {
    return this.cursor.commitPosition;
  }

  resumeAfter(processed: number): void {
    this.cursor = afterCommit(processed);
    this.settledUpTo = processed;
  }

  startAt(startFrom: number): { after: number; pin: boolean } {
    if (startFrom >= 0) {
      // Inclusive, as a stream group's start revision: the event at that position is the first message.
      this.cursor = { commitPosition: startFrom, preparePosition: startFrom };
      this.settledUpTo = startFrom - 1;
      return { after: startFrom - 1, pin: false };
    }
    const last = this.store.lastCommitPosition();
    this.cursor = afterCommit(last);
    this.settledUpTo = last;
    return { after: last, pin: true };
  }

  readPage(maxCount: number, resolveLinkTos: boolean): SourcePage {
    const count = Math.min(maxCount, MAX_READ_COUNT);
    const result = this.filter
      ? // Examine a full window per page: a long run of events the filter leaves out is crossed in few pages.
        this.store.filteredReadAllForward(this.cursor, count, MAX_READ_COUNT, this.filter, resolveLinkTos, this.system)
      : this.store.readAllForward(this.cursor, count, resolveLinkTos, this.system);
    if (result.result !== 'Success') return { failed: result.error ?? result.result };
    const entries: SourcedEntry[] = [];
    for (const entry of result.events) {
      const record = entry.link ?? entry.event;
      if (record && !this.accepts(record)) continue; // the group's own streams
      entries.push({ entry, number: entry.commitPosition });
      this.settledUpTo = entry.commitPosition;
    }
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
    if (!this.accepts(event)) return false;
    this.settledUpTo = event.commitPosition;
    return true;
  }

  numberOf(event: RecordedEvent): number {
    return event.commitPosition;
  }

  lastKnown(): number {
    return this.store.lastCommitPosition();
  }
}
