/**
 * One standard projection: its checkpoint, its handler and what it has written. It does not read the log
 * itself: the SharedSystemReader reads `$all` once for all of them and offers each event past the
 * projection's checkpoint; the projection writes its links with its checkpoint in one commit. It
 * checkpoints whenever it wrote links (so a restart never writes them twice) and otherwise every
 * CHECKPOINT_HANDLED_THRESHOLD events (so a restart does not re-read much).
 */
import type { Logger } from '../../../logger.ts';
import {
  SYSTEM_CALLER,
  forwardCursorAfter,
  position,
  type SystemWriter,
  type EventStore,
  type Position,
  type RecordedEvent,
} from '../../store/index.ts';
import { allOrder, parseTag, type CheckpointTag, type PositionTag, type ProjectionVersion } from '../checkpoint-tag.ts';
import type { EmittedEvent } from '../emitted.ts';
import { ProjectionEventTypes, ProjectionStreams } from '../names.ts';
import { writeProjectionOutput } from '../output-writer.ts';
import { decodeText, type SharedSourceEvent } from '../source-event.ts';
import { chargedToTurn } from '../turn-slicer.ts';
import { EpochStreams } from '../epoch-streams.ts';
import type { SystemHandler } from './handlers.ts';
import type { SharedReaderMember, SharedSystemReader } from './shared-reader.ts';

/** EventStoreDB's CheckpointHandledThreshold. */
const CHECKPOINT_HANDLED_THRESHOLD = 4000;

export interface ProjectionHost {
  store: EventStore;
  runSystemWrite<T>(fn: (w: SystemWriter) => T): Promise<T>;
  logger: Logger;
}

export type CoreStatus = 'Stopped' | 'Running' | 'Faulted' | 'Aborted' | 'Completed';

/** What the statistics show of a running projection. */
export interface RunnerProgress {
  status: CoreStatus;
  stateReason: string;
  position: CheckpointTag | null;
  lastCheckpoint: CheckpointTag | null;
  eventsProcessedAfterRestart: number;
  /** The end of the log when last read, for progress. */
  headPosition: number;
}

export function idleProgress(): RunnerProgress {
  return {
    status: 'Stopped',
    stateReason: '',
    position: null,
    lastCheckpoint: null,
    eventsProcessedAfterRestart: 0,
    headPosition: 0,
  };
}

/** Reads a projection's last checkpoint of its current epoch (older epochs are from before a reset). */
export function readCheckpoint(
  store: EventStore,
  name: string,
  version: ProjectionVersion,
): { tag: CheckpointTag; data: string } | null {
  const page = store.readStreamBackward(ProjectionStreams.checkpoint(name), -1, 10, false, SYSTEM_CALLER);
  if (page.result !== 'Success') return null;
  for (const { event } of page.events) {
    if (!event || event.eventType !== ProjectionEventTypes.Checkpoint) continue;
    const parsed = parseTag(decodeText(event.metadata));
    if (!parsed.tag) continue;
    if (parsed.version && parsed.version.version < version.epoch) return null;
    return { tag: parsed.tag, data: decodeText(event.data) };
  }
  return null;
}

export class SystemProjectionRunner implements SharedReaderMember {
  readonly progress: RunnerProgress = idleProgress();
  readonly name: string;
  /** Where this projection reads on: events before it were processed. null while not started. */
  cursor: Position | null = null;
  private readonly host: ProjectionHost;
  private readonly reader: SharedSystemReader;
  private readonly version: ProjectionVersion;
  private readonly handler: SystemHandler;
  private readonly epochStreams: EpochStreams;
  /** The page being offered: links so far, and the tag of the last event offered. */
  private pending: EmittedEvent[] = [];
  private pendingTag: CheckpointTag | null = null;
  private sinceCheckpoint = 0;
  /** The position processed past the last checkpoint, when nothing was written for it. */
  private unsaved: CheckpointTag | null = null;

  constructor(
    host: ProjectionHost,
    reader: SharedSystemReader,
    name: string,
    version: ProjectionVersion,
    handler: SystemHandler,
  ) {
    this.host = host;
    this.reader = reader;
    this.name = name;
    this.version = version;
    this.handler = handler;
    this.epochStreams = new EpochStreams(host.store, version);
  }

  start(): void {
    if (this.cursor !== null) return;
    Object.assign(this.progress, { status: 'Running', stateReason: '', eventsProcessedAfterRestart: 0 });
    const saved = readCheckpoint(this.host.store, this.name, this.version);
    this.progress.lastCheckpoint = saved?.tag ?? null;
    this.progress.position = saved?.tag ?? null;
    this.cursor =
      saved?.tag.kind === 'position'
        ? forwardCursorAfter(saved.tag.commitPosition, saved.tag.preparePosition)
        : position(0, 0);
    this.reader.join(this);
  }

  /** Stops after the write in flight; with `checkpoint` the position reached is saved (Disable), else not (Abort). */
  async stop(checkpoint: boolean, status: CoreStatus = 'Stopped'): Promise<void> {
    await this.reader.leave(this);
    if (checkpoint && this.progress.status === 'Running' && this.unsaved) {
      try {
        await this.write([], this.unsaved, false);
      } catch (err) {
        this.host.logger.warn({ err, projection: this.name }, 'the final checkpoint of a projection failed');
      }
    }
    if (this.progress.status === 'Running') this.progress.status = status;
  }

  fault(err: unknown): void {
    this.progress.status = 'Faulted';
    this.progress.stateReason = err instanceof Error ? err.message : String(err);
    this.host.logger.warn({ err, projection: this.name }, 'projection faulted');
  }

  /** Whether this projection has yet to process `event` (the shared reader may be behind it). */
  wants(event: RecordedEvent): boolean {
    return this.cursor !== null && allOrder(event, this.cursor) >= 0;
  }

  /** One event of the page (a user stream's, valid or not: invalid ones count as read, as EventStoreDB's reader). */
  offer(source: SharedSourceEvent, valid: boolean, tag: CheckpointTag): void {
    this.pendingTag = tag;
    this.sinceCheckpoint++;
    if (!valid || (!this.handler.includeLinks && source.event.eventType === '$>')) return;
    this.progress.eventsProcessedAfterRestart++;
    this.handler.process(source, tag, this.pending);
  }

  /**
   * The page ended (`next`: where the reader goes on): writes the links and the checkpoint when there is
   * something to write or the threshold is reached. A refused write faults the projection.
   */
  async endPage(next: Position): Promise<void> {
    const tag = this.pendingTag;
    const emitted = this.pending;
    this.pendingTag = null;
    this.pending = [];
    if (this.cursor !== null && allOrder(next, this.cursor) > 0) this.cursor = next;
    if (!tag) return;
    const thresholdReached = this.sinceCheckpoint >= CHECKPOINT_HANDLED_THRESHOLD;
    if (emitted.length > 0 || thresholdReached) {
      await this.write(emitted, tag, thresholdReached);
      this.sinceCheckpoint = 0;
      this.unsaved = null;
    } else this.unsaved = tag;
    // Only once written: a projection has processed an event when its links are in the log.
    this.progress.position = tag;
  }

  /** The reader found nothing more for it: what the log holds past its last event is `$` streams only. */
  reachedEnd(tail: PositionTag | null, next: Position): void {
    if (this.cursor !== null && allOrder(next, this.cursor) > 0) this.cursor = next;
    const at = this.progress.position;
    if (tail && (at === null || at.kind !== 'position' || allOrder(at, tail) < 0)) this.progress.position = tail;
  }

  private async write(emitted: EmittedEvent[], tag: CheckpointTag, periodic: boolean): Promise<void> {
    const extra = periodic && this.handler.onCheckpoint ? this.handler.onCheckpoint(tag) : [];
    const output = {
      version: this.version,
      emitted: extra.length > 0 ? [...emitted, ...extra] : emitted,
      checkpoint: { streamId: ProjectionStreams.checkpoint(this.name), data: '[]', tag },
    };
    const restart = this.epochStreams.starts(output.emitted);
    await this.host.runSystemWrite((w) =>
      chargedToTurn(() => writeProjectionOutput(w, output, { logicalStreamStart: (s) => restart.get(s) ?? null })),
    );
    this.epochStreams.written(output.emitted);
    this.progress.lastCheckpoint = tag;
  }
}
