/** What a replication reports as it goes: rate, position, time to catch up, lag once live. */
import type { LogPosition, SourceEvent } from './types.ts';

export type ReplicationPhase = 'connecting' | 'catching-up' | 'live' | 'retrying' | 'done';

export interface ReplicationProgress {
  phase: ReplicationPhase;
  /** Source position of the last event handled (the checkpoint). */
  position: LogPosition | null;
  /** The source's last position when last asked (catching up). */
  head: LogPosition | null;
  handled: number;
  copied: number;
  /** Source events handled per second over the last few seconds. */
  eventsPerSecond: number;
  /** Seconds until the position reaches the head at the current pace; null when unknown. */
  etaSeconds: number | null;
  /** Live: milliseconds from the source's commit of the last event to its arrival on the target. */
  lagMs: number | null;
  /** The failure that caused the current retry. */
  error: string | null;
}

const RATE_WINDOW_MS = 5000;

export class ProgressMeter {
  head: LogPosition | null = null;
  private samples: { at: number; handled: number; commit: bigint }[] = [];
  private current: ReplicationProgress = {
    phase: 'connecting',
    position: null,
    head: null,
    handled: 0,
    copied: 0,
    eventsPerSecond: 0,
    etaSeconds: null,
    lagMs: null,
    error: null,
  };

  private readonly listener?: (progress: ReplicationProgress) => void;

  constructor(listener?: (progress: ReplicationProgress) => void) {
    this.listener = listener;
  }

  sample(handled: number, last: SourceEvent): void {
    const now = Date.now();
    this.samples.push({ at: now, handled, commit: last.position.commit });
    while (this.samples.length > 2 && now - this.samples[0].at > RATE_WINDOW_MS) this.samples.shift();
  }

  update(change: Partial<ReplicationProgress>): void {
    const next = { ...this.current, ...change, head: this.head };
    if (change.phase && change.phase !== 'retrying') next.error = null;
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    const seconds = first && last ? (last.at - first.at) / 1000 : 0;
    next.eventsPerSecond = seconds > 0 ? Math.round((last.handled - first.handled) / seconds) : 0;
    const commitsPerSecond = seconds > 0 ? Number(last.commit - first.commit) / seconds : 0;
    next.etaSeconds =
      next.phase === 'catching-up' && this.head && next.position && commitsPerSecond > 0
        ? Math.max(0, Number(this.head.commit - next.position.commit) / commitsPerSecond)
        : next.phase === 'live'
          ? 0
          : null;
    if (next.phase !== 'live') next.lagMs = null;
    this.current = next;
    this.listener?.(next);
  }

  get progress(): ReplicationProgress {
    return this.current;
  }
}
