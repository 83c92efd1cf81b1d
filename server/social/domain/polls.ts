import type { Logger } from '../../logger.ts';
import { DetailsCollector, notFound, ValidationFailure } from '../errors.ts';
import type { Account, PollRow, SocialStore } from '../store/index.ts';
import type { NotificationService } from './notifications.ts';

/** Voting, and the notifications when polls end (exactly once per poll, driven by the store's clock). */
export class PollService {
  private readonly store: SocialStore;
  private readonly notifications: NotificationService;
  private readonly logger: Logger;

  constructor(store: SocialStore, notifications: NotificationService, logger: Logger) {
    this.store = store;
    this.notifications = notifications;
    this.logger = logger;
  }

  /** A poll the viewer may see (its status must be readable). */
  readable(viewer: Account | null, id: string): PollRow {
    const poll = this.store.polls.byId(id);
    if (!poll || poll.statusId === null || !this.store.timelines.readable(viewer?.id ?? null, poll.statusId)) throw notFound();
    return poll;
  }

  expired(poll: PollRow): boolean {
    return poll.expiresAt !== null && poll.expiresAt <= this.store.now();
  }

  vote(me: Account, id: string, choices: number[]): PollRow {
    const poll = this.readable(me, id);
    if (this.expired(poll)) throw ValidationFailure.single('poll', 'ERR_INVALID', 'has already ended');
    if (poll.accountId === me.id) throw ValidationFailure.single('poll', 'ERR_INVALID', 'is your own: you cannot vote in it');
    const details = new DetailsCollector();
    if (choices.length === 0) details.add('choices', 'ERR_BLANK', "can't be blank");
    if (choices.some((c) => !Number.isInteger(c) || c < 0 || c >= poll.options.length)) details.add('choices', 'ERR_INVALID', `must be option indexes from 0 to ${poll.options.length - 1}`);
    if (new Set(choices).size !== choices.length) details.add('choices', 'ERR_TAKEN', 'cannot contain the same option twice');
    if (!poll.multiple && choices.length > 1) details.add('choices', 'ERR_TOO_LONG', 'must be a single option in a single-choice poll');
    details.throwIfAny();
    this.store.transaction(() => {
      if (this.store.polls.hasVoted(poll.id, me.id)) throw ValidationFailure.single('poll', 'ERR_TAKEN', 'has already been voted on by you');
      this.store.polls.insertVotes(poll.id, me.id, choices);
    });
    return this.store.polls.byId(poll.id)!;
  }

  /** Notifies the author and every local voter of each poll that has ended; returns how many polls. */
  notifyExpired(): number {
    let count = 0;
    for (;;) {
      const due = this.store.polls.dueForExpiry(this.store.now(), 100);
      if (due.length === 0) return count;
      for (const poll of due) {
        this.store.transaction(() => {
          if (!this.store.polls.claimExpiry(poll.id)) return;
          const status = poll.statusId ? this.store.statuses.byId(poll.statusId) : null;
          if (!status || status.deletedAt !== null) return;
          const recipients = new Set([poll.accountId, ...this.store.polls.localVoters(poll.id)]);
          for (const accountId of recipients) {
            if (!this.store.notifications.exists(accountId, poll.accountId, 'poll', status.id)) this.notifications.notify(accountId, poll.accountId, 'poll', status.id);
          }
        });
        count++;
      }
      this.logger.debug({ count }, 'poll expiry notifications sent');
    }
  }
}
