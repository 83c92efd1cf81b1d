import type { Logger } from '../../logger.ts';
import type { SocialStore } from '../store/index.ts';
import type { PollService } from './polls.ts';
import type { StatusService } from './statuses/index.ts';

/** The longest the timer sleeps before looking again (a changed clock or another writer is noticed by then). */
const MAX_WAIT_MS = 60_000;

/**
 * Work that falls due at a time: scheduled statuses to publish and polls that end. Everything due by the
 * store's clock runs in `runDue` (at start, so a restart that missed a time catches up, and whenever the
 * timer fires); the timer sleeps until the next due time, at most a minute.
 */
export class DueJobs {
  private readonly store: SocialStore;
  private readonly statuses: StatusService;
  private readonly polls: PollService;
  private readonly logger: Logger;
  private timer: NodeJS.Timeout | null = null;
  private stopped = true;
  private readonly maxWaitMs: number;

  /** `maxWaitMs`: the longest sleep between looks (tests with a moved clock make it short). */
  constructor(
    store: SocialStore,
    statuses: StatusService,
    polls: PollService,
    logger: Logger,
    maxWaitMs = MAX_WAIT_MS,
  ) {
    this.store = store;
    this.statuses = statuses;
    this.polls = polls;
    this.logger = logger;
    this.maxWaitMs = maxWaitMs;
  }

  /** Publishes due scheduled statuses and notifies ended polls; returns what it did. */
  runDue(): { published: number; pollsEnded: number } {
    let published = 0;
    for (;;) {
      const due = this.store.scheduled.due(this.store.now(), 50);
      if (due.length === 0) break;
      for (const scheduled of due) {
        try {
          if (this.statuses.publishScheduled(scheduled)) published++;
        } catch (err) {
          // A status that can no longer be published (its text no longer valid…) is dropped, as Mastodon does.
          this.logger.warn(
            { err, scheduledStatusId: scheduled.id },
            'scheduled status could not be published; dropped',
          );
          this.store.scheduled.delete(scheduled.id);
        }
      }
    }
    const pollsEnded = this.polls.notifyExpired();
    return { published, pollsEnded };
  }

  start(): void {
    this.stopped = false;
    this.tick();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Looks again at the next due time (after something was scheduled). */
  reschedule(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.arm();
  }

  private tick(): void {
    try {
      this.runDue();
    } catch (err) {
      this.logger.error({ err }, 'due jobs failed');
    }
    this.arm();
  }

  private arm(): void {
    if (this.stopped) return;
    const next = [this.store.scheduled.nextDue(), this.store.polls.nextExpiry()].filter((t): t is number => t !== null);
    const wait = next.length
      ? Math.min(Math.max(Math.min(...next) - this.store.now(), 0), this.maxWaitMs)
      : this.maxWaitMs;
    this.timer = setTimeout(() => this.tick(), wait);
    this.timer.unref();
  }
}
