/**
 * One pass over `$all` for all the standard projections (EventStoreDB's projections share one event
 * reader too). Each page is read once, from the earliest checkpoint among them, with the `$` streams left
 * out in SQL: the links the projections write (3-4 per user event) are never loaded or decoded, since
 * EventStoreDB's `$all` filter would skip them anyway. Each event is validated and its metadata parsed
 * once, then offered to every projection that has yet to process it; their writes (links with checkpoint,
 * one request each) share a group commit, and a refused one faults only its projection.
 */
import { SYSTEM_CALLER, position, type EventStore, type Position, type RecordedEvent } from '../../store/index.ts';
import { allOrder, type CheckpointTag, type PositionTag } from '../checkpoint-tag.ts';
import { passesValidation, SharedSourceEvent } from '../source-event.ts';
import { shareTurn } from '../turn-slicer.ts';
import { WakeSignal } from '../wake-signal.ts';

/** A standard projection as the reader drives it (system/runner.ts). */
export interface SharedReaderMember {
  /** Where it reads on; null: not started. */
  readonly cursor: Position | null;
  readonly progress: { headPosition: number };
  wants(event: RecordedEvent): boolean;
  offer(source: SharedSourceEvent, valid: boolean, tag: CheckpointTag): void;
  /** Writes what the page produced; rejects when the write was refused. */
  endPage(next: Position): Promise<void>;
  reachedEnd(tail: PositionTag | null, next: Position): void;
  fault(err: unknown): void;
}

/** Pages small enough that reading, handling and writing one stays well within a turn's budget. */
const PAGE_EVENTS = 250;
const PAGE_BYTES = 1024 * 1024;

export class SharedSystemReader {
  private readonly store: EventStore;
  private readonly members = new Set<SharedReaderMember>();
  private readonly wake = new WakeSignal();
  private readonly source = new SharedSourceEvent();
  private loop: Promise<void> | null = null;
  /** The writes of the page in flight: a projection leaving waits for them. */
  private inFlight: Promise<unknown> = Promise.resolve();

  constructor(store: EventStore) {
    this.store = store;
  }

  join(member: SharedReaderMember): void {
    this.members.add(member);
    this.wake.wake();
    if (this.loop) return;
    const unsubscribe = this.store.onCommitted(() => this.wake.wake());
    this.loop = this.run()
      .catch((err) => {
        for (const m of this.members) m.fault(err);
        this.members.clear();
      })
      .finally(() => {
        unsubscribe();
        this.loop = null;
      });
  }

  /** Resolves once the member is out and no write of it is in flight. */
  async leave(member: SharedReaderMember): Promise<void> {
    this.members.delete(member);
    this.wake.wake();
    await this.inFlight;
  }

  private async run(): Promise<void> {
    const { store } = this;
    while (this.members.size > 0) {
      await shareTurn();
      const members = [...this.members];
      if (members.length === 0) break;
      let from = members[0].cursor ?? position(0, 0);
      for (const m of members) {
        const c = m.cursor ?? position(0, 0);
        if (allOrder(c, from) < 0) from = c;
      }
      const page = store.readAllForward(from, PAGE_EVENTS, false, SYSTEM_CALLER, {
        maxBytes: PAGE_BYTES,
        userStreamsOnly: true,
      });
      if (page.result !== 'Success') throw new Error(`Reading $all failed: ${page.error ?? page.result}`);
      const head = store.lastCommitPosition();
      for (const m of members) m.progress.headPosition = head;
      if (page.events.length === 0) {
        const tail = lastEventTag(store);
        for (const m of members) m.reachedEnd(tail, page.nextPosition);
        await this.wake.wait();
        continue;
      }
      for (const entry of page.events) {
        const event = entry.event;
        if (!event) continue;
        const tag: CheckpointTag = {
          kind: 'position',
          commitPosition: event.commitPosition,
          preparePosition: event.preparePosition,
        };
        const source = this.source.reset(event);
        let valid: boolean | undefined;
        for (const m of members) {
          if (!m.wants(event)) continue;
          valid ??= passesValidation(event);
          m.offer(source, valid, tag);
        }
      }
      const writes = members.map((m) =>
        m.endPage(page.nextPosition).catch((err) => {
          m.fault(err);
          this.members.delete(m);
        }),
      );
      this.inFlight = Promise.all(writes);
      await this.inFlight;
    }
  }
}

/** The position of the last event in the log (a `$` stream's, usually): how far a projection has looked. */
function lastEventTag(store: EventStore): PositionTag | null {
  const last = store.readAllBackward(position(-1, -1), 1, false, SYSTEM_CALLER).events[0]?.event;
  return last ? { kind: 'position', commitPosition: last.commitPosition, preparePosition: last.preparePosition } : null;
}
