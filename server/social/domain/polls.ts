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
    if (!poll || poll.statusId === null || !this.store.timelines.readable(viewer?.id ?? null, poll.statusId))
      throw notFound();
    return poll;
  }

  expired(poll: PollRow): boolean {
    return poll.expiresAt !== null && poll.expiresAt <= this.store.now();
  }

  vote(me: Account, id: string, choices: number[]): PollRow {
    const poll = this.readable(me, id);
    if (this.expired(poll)) throw ValidationFailure.single('poll', 'ERR_INVALID', 'has already ended');
    if (poll.accountId === me.id)
      throw ValidationFailure.single('poll', 'ERR_INVALID', 'is your own: you cannot vote in it');
    const details = new DetailsCollector();
    if (choices.length === 0) details.add('choices', 'ERR_BLANK', "can't be blank");
    if (choices.some((c) => !Number.isInteger(c) || c < 0 || c >= poll.options.length))
      details.add('choices', 'ERR_INVALID', `must be option indexes from 0 to ${poll.options.length - 1}`);
    if (new Set(choices).size !== choices.length)
      details.add('choices', 'ERR_TAKEN', 'cannot contain the same option twice');
    if (!poll.multiple && choices.length > 1)
      details.add('choices', 'ERR_TOO_LONG', 'must be a single option in a single-choice poll');
    details.throwIfAny();
    this.store.transaction(() => {
      if (this.store.polls.hasVoted(poll.id, me.id))
        throw ValidationFailure.single('poll', 'ERR_TAKEN', 'has already been voted on by you');
      this.recordVotes(poll, me.id, choices);
    });
    return this.store.polls.byId(poll.id)!;
  }

  /**
   * A vote another server sent for a local poll (one choice per Note, as Mastodon sends them). Ignored when
   * the poll ended, the voter is its author, the option is unknown, or a single-choice poll has their vote.
   */
  remoteVote(voter: Account, pollId: string, optionName: string): boolean {
    const poll = this.store.polls.byId(pollId);
    if (!poll || poll.cachedTallies.length > 0 || this.expired(poll) || poll.accountId === voter.id) return false;
    const choice = poll.options.indexOf(optionName);
    if (choice < 0) return false;
    return this.store.transaction(() => {
      const mine = this.store.polls.ownVotes(voter.id, [poll.id]).get(poll.id) ?? [];
      if (mine.includes(choice) || (!poll.multiple && mine.length > 0)) return false;
      this.recordVotes(poll, voter.id, [choice]);
      return true;
    });
  }

  /** Stores votes; a remote poll's reported counts include them at once (its server confirms with an Update). */
  private recordVotes(poll: PollRow, accountId: string, choices: number[]): void {
    this.store.polls.insertVotes(poll.id, accountId, choices);
    if (poll.cachedTallies.length > 0) {
      const tallies = poll.options.map((_, i) => (poll.cachedTallies[i] ?? 0) + (choices.includes(i) ? 1 : 0));
      this.store.polls.setRemoteTallies(poll.id, tallies, poll.votersCount === null ? null : poll.votersCount + 1);
    }
    this.store.events.emit('poll.voted', { pollId: poll.id, accountId, choices });
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
          // The author when local, and every local voter (a remote poll notifies the voters here).
          const authorIsLocal = this.store.accounts.byId(poll.accountId)?.domain === null;
          const recipients = new Set([
            ...(authorIsLocal ? [poll.accountId] : []),
            ...this.store.polls.localVoters(poll.id),
          ]);
          for (const accountId of recipients) {
            if (!this.store.notifications.exists(accountId, poll.accountId, 'poll', status.id))
              this.notifications.notify(accountId, poll.accountId, 'poll', status.id);
          }
        });
        count++;
      }
      this.logger.debug({ count }, 'poll expiry notifications sent');
    }
  }
}
