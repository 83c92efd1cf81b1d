/**
 * Runs one standard projection: reads `$all` forward from its checkpoint, hands each event that passes
 * EventStoreDB's filters to the handler, and writes the links with the checkpoint in one commit. It
 * checkpoints whenever it wrote links (so a restart never writes them twice) and otherwise every
 * CHECKPOINT_HANDLED_THRESHOLD events read (so a restart does not re-read much); its own links and
 * checkpoints, in `$` streams, are read but never handled, so the loop settles once it is caught up.
 */
import type { Logger } from '../../../logger.ts';
import {
  SYSTEM_CALLER,
  forwardCursorAfter,
  position,
  type SystemWriter,
  type EventStore,
  type Position,
} from '../../store/index.ts';
import { parseTag, type CheckpointTag, type ProjectionVersion } from '../checkpoint-tag.ts';
import type { EmittedEvent } from '../emitted.ts';
import { ProjectionEventTypes, ProjectionStreams } from '../names.ts';
import { writeProjectionOutput } from '../output-writer.ts';
import { decodeText, passesAllFilter, passesValidation } from '../source-event.ts';
import { RunLoop } from '../run-loop.ts';
import { chargedToTurn, shareTurn } from '../turn-slicer.ts';
import { EpochStreams } from '../epoch-streams.ts';
import type { SystemHandler } from './handlers.ts';

/** EventStoreDB's CheckpointHandledThreshold. */
export const CHECKPOINT_HANDLED_THRESHOLD = 4000;
/** Pages small enough that reading, handling and writing one stays well within a turn's budget. */
const PAGE_EVENTS = 250;
const PAGE_BYTES = 1024 * 1024;

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

export class SystemProjectionRunner {
  readonly progress: RunnerProgress = idleProgress();
  private readonly host: ProjectionHost;
  private readonly name: string;
  private readonly version: ProjectionVersion;
  private readonly handler: SystemHandler;
  private readonly loop = new RunLoop();
  private readonly epochStreams: EpochStreams;

  constructor(host: ProjectionHost, name: string, version: ProjectionVersion, handler: SystemHandler) {
    this.host = host;
    this.name = name;
    this.version = version;
    this.handler = handler;
    this.epochStreams = new EpochStreams(host.store, version);
  }

  start(): void {
    if (this.loop.running) return;
    Object.assign(this.progress, { status: 'Running', stateReason: '', eventsProcessedAfterRestart: 0 });
    void this.loop.start(
      this.host.store,
      () => this.run(),
      (err) => this.fault(err),
    );
  }

  /** Stops after the write in flight; with `checkpoint` the position reached is saved (Disable), else not (Abort). */
  async stop(checkpoint: boolean, status: CoreStatus = 'Stopped'): Promise<void> {
    await this.loop.stop();
    if (checkpoint && this.progress.status === 'Running' && this.unsaved) {
      try {
        await this.write([], this.unsaved, false);
      } catch (err) {
        this.host.logger.warn({ err, projection: this.name }, 'the final checkpoint of a projection failed');
      }
    }
    if (this.progress.status === 'Running') this.progress.status = status;
  }

  /** The position read past the last checkpoint, when nothing was written for it. */
  private unsaved: CheckpointTag | null = null;

  private fault(err: unknown): void {
    this.progress.status = 'Faulted';
    this.progress.stateReason = err instanceof Error ? err.message : String(err);
    this.host.logger.warn({ err, projection: this.name }, 'projection faulted');
  }

  private async run(): Promise<void> {
    const { store } = this.host;
    const saved = readCheckpoint(store, this.name, this.version);
    this.progress.lastCheckpoint = saved?.tag ?? null;
    this.progress.position = saved?.tag ?? null;
    let cursor: Position =
      saved?.tag.kind === 'position'
        ? forwardCursorAfter(saved.tag.commitPosition, saved.tag.preparePosition)
        : position(0, 0);
    let sinceCheckpoint = 0;
    while (!this.loop.stopping) {
      await shareTurn();
      if (this.loop.stopping) break;
      const page = store.readAllForward(cursor, PAGE_EVENTS, false, SYSTEM_CALLER, { maxBytes: PAGE_BYTES });
      if (page.result !== 'Success') throw new Error(`Reading $all failed: ${page.error ?? page.result}`);
      this.progress.headPosition = store.lastCommitPosition();
      if (page.events.length === 0) {
        await this.loop.wake.wait();
        continue;
      }
      const emitted: EmittedEvent[] = [];
      let last: CheckpointTag | null = null;
      for (const entry of page.events) {
        const event = entry.event;
        if (!event) continue;
        last = { kind: 'position', commitPosition: event.commitPosition, preparePosition: event.preparePosition };
        if (!passesAllFilter(event, this.handler.includeLinks) || !passesValidation(event)) continue;
        this.progress.eventsProcessedAfterRestart++;
        for (const e of this.handler.process(event, last)) emitted.push(e);
      }
      cursor = page.nextPosition;
      if (!last) continue;
      sinceCheckpoint += page.events.length;
      const thresholdReached = sinceCheckpoint >= CHECKPOINT_HANDLED_THRESHOLD;
      if (emitted.length > 0 || thresholdReached) {
        await this.write(emitted, last, thresholdReached);
        sinceCheckpoint = 0;
        this.unsaved = null;
      } else this.unsaved = last;
      // Only once written: a projection has processed an event when its links are in the log.
      this.progress.position = last;
    }
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
