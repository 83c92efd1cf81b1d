import { ValidationFailure } from '../errors.ts';
import { owned } from './owned.ts';
import type { Account, ScheduledStatusRow, SocialStore } from '../store/index.ts';
import { MIN_SCHEDULE_OFFSET_MS } from './statuses/index.ts';

/** Statuses waiting for their time: their author moves or cancels them. */
export class ScheduledStatusService {
  private readonly store: SocialStore;
  /** Called when a due time moved, so the job timer looks again. */
  private readonly onScheduleChange: () => void;
  constructor(store: SocialStore, onScheduleChange: () => void) {
    this.store = store;
    this.onScheduleChange = onScheduleChange;
  }

  /** The author's own scheduled status; anyone else's is a 404. */
  own(me: Account, id: string): ScheduledStatusRow {
    return owned(this.store.scheduled.byId(id), me);
  }

  /** Moves it to `at` (milliseconds since the epoch; NaN is refused), at least five minutes ahead. */
  reschedule(me: Account, id: string, at: number): ScheduledStatusRow {
    const row = this.own(me, id);
    if (Number.isNaN(at)) throw ValidationFailure.single('scheduled_at', 'ERR_INVALID', 'is not a valid date and time');
    if (at < this.store.now() + MIN_SCHEDULE_OFFSET_MS)
      throw ValidationFailure.single('scheduled_at', 'ERR_INVALID', 'must be at least 5 minutes in the future');
    this.store.scheduled.reschedule(row.id, at);
    this.onScheduleChange();
    return this.store.scheduled.byId(row.id)!;
  }

  cancel(me: Account, id: string): void {
    this.store.scheduled.delete(this.own(me, id).id);
  }
}
