/**
 * The replication loop: resume from the target's checkpoint, copy `$all` page by page (one append at a time,
 * checkpoint after each page), then, in continuous mode, follow the source live. Any failure of either side
 * closes both and starts over from the checkpoint after a backoff; what a failure cannot fix
 * (ReplicationError) ends the run.
 */
import {
  checkpointEvent,
  checkpointStream,
  checkpointStreamMetadata,
  parseCheckpoint,
  type Checkpoint,
} from './checkpoint.ts';
import { NO_FILTER, planWrites, type ReplicationFilter } from './plan.ts';
import { ProgressMeter, type ReplicationPhase, type ReplicationProgress } from './progress.ts';
import { eventsAlreadyOnTarget, RESUME_WINDOW } from './resume.ts';
import {
  ReplicationError,
  type LogPosition,
  type ReplicationSource,
  type ReplicationTarget,
  type SourceEvent,
  type TargetWrite,
} from './types.ts';

export interface ReplicateOptions {
  /** Opens a fresh connection to the source (called again after every failure). */
  openSource(): Promise<ReplicationSource>;
  openTarget(): Promise<ReplicationTarget>;
  /** Names the checkpoint stream `$replication-<name>` on the target. */
  name: string;
  filter?: ReplicationFilter;
  /** Follow the source after catching up, until `signal` aborts. */
  continuous?: boolean;
  /** Allow a target that already holds events of its own. */
  intoExisting?: boolean;
  signal?: AbortSignal;
  onProgress?(progress: ReplicationProgress): void;
  /** One-shot runs give up once failures went on this long without progress (default a minute; 0: at the first). */
  giveUpAfterMs?: number;
  backoff?: { initialMs: number; maxMs: number };
}

export interface ReplicationSummary {
  /** Source events looked at by this run (copied or skipped). */
  handled: number;
  /** Source events this run applied on the target (appended, metadata, deletions). */
  copied: number;
  position: LogPosition | null;
  retries: number;
  seconds: number;
}

const PAGE_SIZE = RESUME_WINDOW;
const MAX_IN_FLIGHT = 64;
const DEFAULT_BACKOFF = { initialMs: 100, maxMs: 2000 };

export async function replicate(options: ReplicateOptions): Promise<ReplicationSummary> {
  const run = new ReplicationRun(options);
  return run.run();
}

class ReplicationRun {
  private readonly filter: ReplicationFilter;
  private readonly meter: ProgressMeter;
  private readonly started = Date.now();
  private handled = 0;
  private copied = 0;
  private retries = 0;
  private checkpoint: Checkpoint = { position: null, source: '', handled: 0, copied: 0 };

  private readonly options: ReplicateOptions;

  constructor(options: ReplicateOptions) {
    this.options = options;
    this.filter = options.filter ?? NO_FILTER;
    this.meter = new ProgressMeter(options.onProgress);
  }

  private get aborted(): boolean {
    return this.options.signal?.aborted === true;
  }

  async run(): Promise<ReplicationSummary> {
    const backoff = this.options.backoff ?? DEFAULT_BACKOFF;
    const giveUpAfterMs = this.options.giveUpAfterMs ?? 60_000;
    let delay = backoff.initialMs;
    let progressAt = Date.now();
    while (!this.aborted) {
      const before = this.handled;
      try {
        await this.attempt();
        break;
      } catch (err) {
        if (err instanceof ReplicationError || this.aborted) {
          if (this.aborted && !(err instanceof ReplicationError)) break;
          throw err;
        }
        if (this.handled > before) {
          progressAt = Date.now();
          delay = backoff.initialMs;
        }
        if (!this.options.continuous && Date.now() - progressAt >= giveUpAfterMs) throw err;
        this.retries++;
        this.meter.update({ phase: 'retrying', error: (err as Error).message });
        await sleep(delay, this.options.signal);
        delay = Math.min(delay * 2, backoff.maxMs);
      }
    }
    this.meter.update({ phase: 'done' });
    return {
      handled: this.handled,
      copied: this.copied,
      position: this.checkpoint.position,
      retries: this.retries,
      seconds: (Date.now() - this.started) / 1000,
    };
  }

  private report(phase: ReplicationPhase, extra: Partial<ReplicationProgress> = {}): void {
    this.meter.update({
      phase,
      position: this.checkpoint.position,
      handled: this.handled,
      copied: this.copied,
      ...extra,
    });
  }

  /** One connection to each side: resume, catch up, and (continuous) follow until stopped or failed. */
  private async attempt(): Promise<void> {
    this.report('connecting');
    const target = await this.options.openTarget();
    let source: ReplicationSource | null = null;
    let watch: { stop(): void } | null = null;
    try {
      source = await this.options.openSource();
      await this.loadCheckpoint(target, source);
      await this.resume(source, target);
      const bell = new Doorbell();
      const reader: ReplicationSource = source;
      // The next page is read while the current one is written.
      const readAfter = (position: LogPosition | null) => {
        bell.clear();
        const page = reader.read(position, PAGE_SIZE);
        page.catch(() => {});
        return page;
      };
      let next = readAfter(this.checkpoint.position);
      let lastHeadCheck = 0;
      while (!this.aborted) {
        if (Date.now() - lastHeadCheck > 1000 && !watch) {
          lastHeadCheck = Date.now();
          this.meter.head = await source.headPosition();
        }
        const events = await next;
        if (events.length > 0) {
          next = readAfter(events[events.length - 1].position);
          await this.apply(target, events, 0, watch ? 'live' : 'catching-up');
          continue;
        }
        if (!this.options.continuous) return;
        if (!watch) {
          // Subscribe, then read once more: nothing committed between the last read and the subscription is missed.
          watch = await source.watch(bell.ring, bell.fail);
        } else {
          this.meter.head = this.checkpoint.position;
          this.report('live');
          await bell.wait(this.options.signal);
        }
        next = readAfter(this.checkpoint.position);
      }
    } finally {
      watch?.stop();
      await source?.close().catch(() => {});
      await target.close().catch(() => {});
    }
  }

  private async loadCheckpoint(target: ReplicationTarget, source: ReplicationSource): Promise<void> {
    const stream = checkpointStream(this.options.name);
    const found = parseCheckpoint(await target.lastJson(stream));
    if (found) {
      this.checkpoint = found;
      return;
    }
    if (!this.options.intoExisting && (await target.hasUserEvents()))
      throw new ReplicationError(
        `the target ${target.description} already holds events; pass --into-existing to copy into it anyway`,
      );
    await target.write({
      kind: 'append',
      streamId: `$$${stream}`,
      events: [checkpointStreamMetadata(this.options.name)],
    });
    this.checkpoint = { position: null, source: source.description, handled: 0, copied: 0 };
    await this.saveCheckpoint(target);
  }

  private async saveCheckpoint(target: ReplicationTarget): Promise<void> {
    const event = checkpointEvent(this.options.name, this.checkpoint);
    await target.write({ kind: 'append', streamId: event.streamId, events: [event] });
  }

  /** The first events after the checkpoint may be on the target already (a crash before the checkpoint moved). */
  private async resume(source: ReplicationSource, target: ReplicationTarget): Promise<void> {
    const window: SourceEvent[] = [];
    let from = this.checkpoint.position;
    while (window.length < RESUME_WINDOW) {
      const page = await source.read(from, RESUME_WINDOW - window.length);
      if (page.length === 0) break;
      window.push(...page);
      from = page[page.length - 1].position;
    }
    if (window.length === 0) return;
    const present = await eventsAlreadyOnTarget(target, this.filter, window);
    await this.apply(target, window, present, 'catching-up');
  }

  /** Writes `events` (the first `alreadyOnTarget` of them are there already), then moves the checkpoint. */
  private async apply(
    target: ReplicationTarget,
    events: SourceEvent[],
    alreadyOnTarget: number,
    phase: ReplicationPhase,
  ): Promise<void> {
    await this.writeAll(target, planWrites(this.filter, events.slice(alreadyOnTarget)));
    const last = events[events.length - 1];
    this.handled += events.length;
    this.checkpoint = {
      position: last.position,
      source: this.checkpoint.source,
      handled: this.checkpoint.handled + events.length,
      copied: this.checkpoint.copied + (this.copied - this.checkpointedCopies),
    };
    this.checkpointedCopies = this.copied;
    await this.saveCheckpoint(target);
    this.meter.sample(this.handled, last);
    this.report(phase, { lagMs: phase === 'live' ? Math.max(0, Date.now() - last.created) : null });
  }

  private checkpointedCopies = 0;

  /** One after the other, or up to MAX_IN_FLIGHT at once on a target that commits them in order. */
  private async writeAll(target: ReplicationTarget, writes: TargetWrite[]): Promise<void> {
    const limit = target.ordered ? MAX_IN_FLIGHT : 1;
    const inFlight = new Set<Promise<void>>();
    let failure: unknown = null;
    for (const write of writes) {
      if (failure) break;
      const done: Promise<void> = target.write(write).then(
        () => {
          this.copied += write.kind === 'append' ? write.events.length : 1;
          inFlight.delete(done);
        },
        (err: unknown) => {
          failure ??= err;
          inFlight.delete(done);
        },
      );
      inFlight.add(done);
      if (inFlight.size >= limit) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    if (failure) throw failure;
  }
}

/** Rung by the live subscription; `wait` returns at once when it rang since the last `clear`. */
class Doorbell {
  private rung = false;
  private waiter: { resolve(): void; reject(err: Error): void } | null = null;
  private failure: Error | null = null;

  readonly ring = (): void => {
    this.rung = true;
    this.waiter?.resolve();
  };
  readonly fail = (err: Error): void => {
    this.failure = err;
    this.waiter?.reject(err);
  };
  clear(): void {
    this.rung = false;
  }
  wait(signal?: AbortSignal): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.rung || signal?.aborted) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const done = () => {
        this.waiter = null;
        signal?.removeEventListener('abort', done);
        resolve();
      };
      signal?.addEventListener('abort', done, { once: true });
      this.waiter = {
        resolve: done,
        reject: (err) => {
          this.waiter = null;
          signal?.removeEventListener('abort', done);
          reject(err);
        },
      };
    });
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
