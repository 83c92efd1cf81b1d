import { ValidationFailure } from '../errors.ts';
import type { Account, SocialStore } from '../store/index.ts';
import type { SocialUrls } from '../urls.ts';
import type { RelationshipService } from './relationships.ts';

/** Mastodon allows this many aliases per account. */
export const MAX_ALIASES = 10;

/**
 * Moving accounts, as Mastodon does. Aliases: the accounts a local account may be moved from (the new
 * account must name the old one before a move is accepted anywhere). Moving a local account: it points to
 * the new one, its followers get a Move (federation, from the `account.moved` event), and followers on this
 * server follow the new account at once. A remote account's verified Move does the same for the followers
 * here. Either way follow options, private notes, blocks and mutes carry over to the new account.
 */
export class AccountMoves {
  private readonly store: SocialStore;
  private readonly urls: SocialUrls;
  private readonly relationships: RelationshipService;

  constructor(store: SocialStore, urls: SocialUrls, relationships: RelationshipService) {
    this.store = store;
    this.urls = urls;
    this.relationships = relationships;
  }

  /** The actor URI other servers know an account by. */
  uriOf(account: Account): string {
    return account.uri ?? this.urls.accountUri(account.username);
  }

  addAlias(me: Account, from: Account): string[] {
    if (from.id === me.id) throw ValidationFailure.single('acct', 'ERR_INVALID', 'cannot be this account');
    const uri = this.uriOf(from);
    if (me.alsoKnownAs.includes(uri)) return me.alsoKnownAs;
    if (me.alsoKnownAs.length >= MAX_ALIASES)
      throw ValidationFailure.single('acct', 'ERR_TOO_MANY', `at most ${MAX_ALIASES} aliases`);
    const aliases = [...me.alsoKnownAs, uri];
    this.store.transaction(() => {
      this.store.accounts.setAliases(me.id, aliases);
      this.store.events.emit('account.updated', { accountId: me.id });
    });
    return aliases;
  }

  removeAlias(me: Account, uri: string): string[] {
    const aliases = me.alsoKnownAs.filter((u) => u !== uri);
    if (aliases.length === me.alsoKnownAs.length) return aliases;
    this.store.transaction(() => {
      this.store.accounts.setAliases(me.id, aliases);
      this.store.events.emit('account.updated', { accountId: me.id });
    });
    return aliases;
  }

  /** Moves a local account to `target`, which must already name it as an alias. */
  moveTo(me: Account, target: Account): void {
    if (target.id === me.id) throw ValidationFailure.single('acct', 'ERR_INVALID', 'cannot be this account');
    if (target.movedToAccountId !== null) throw ValidationFailure.single('acct', 'ERR_INVALID', 'has moved itself');
    if (!target.alsoKnownAs.includes(this.uriOf(me))) {
      throw ValidationFailure.single('acct', 'ERR_INVALID', 'must name this account as an alias (also known as) first');
    }
    this.store.transaction(() => {
      this.store.accounts.setMovedTo(me.id, target.id);
      this.carryOver(me, target);
      this.store.events.emit('account.moved', { accountId: me.id, targetAccountId: target.id });
    });
  }

  /** Ends a local account's redirect (Mastodon lets a moved account cancel it; followers stay where they went). */
  cancelMove(me: Account): void {
    if (me.movedToAccountId === null) return;
    this.store.transaction(() => {
      this.store.accounts.setMovedTo(me.id, null);
      this.store.events.emit('account.updated', { accountId: me.id });
    });
  }

  /**
   * A remote account moved to `target` (the caller checked the Move: sent by the old account, and the new one
   * names it as an alias). Returns false when it was already recorded.
   */
  remoteMoved(old: Account, target: Account): boolean {
    if (old.movedToAccountId === target.id) return false;
    this.store.transaction(() => {
      this.store.accounts.setMovedTo(old.id, target.id);
      this.carryOver(old, target);
    });
    return true;
  }

  /** Local followers follow the new account (same options) and leave the old; notes, blocks and mutes follow. */
  private carryOver(old: Account, target: Account): void {
    const rel = this.store.relationships;
    for (const follow of this.store.moveCarryOver.localFollowsOf(old.id)) {
      const follower = this.store.accounts.byId(follow.accountId);
      if (!follower || follower.id === target.id) continue;
      try {
        this.relationships.follow(follower, target, {
          reblogs: follow.showReblogs,
          notify: follow.notify,
          languages: follow.languages,
        });
      } catch {
        // Blocked either way, or the new account is suspended: the follower stays with the old account only.
        continue;
      }
      this.relationships.unfollow(follower, old);
    }
    const { blockers, muters } = this.store.moveCarryOver.localBlockersAndMuters(old.id);
    for (const id of blockers) {
      const blocker = this.store.accounts.byId(id);
      if (blocker && blocker.id !== target.id && !rel.blocking(id, target.id))
        this.relationships.block(blocker, target);
    }
    for (const { accountId, mute } of muters) {
      if (accountId !== target.id && !rel.mute(accountId, target.id))
        rel.upsertMute(accountId, target.id, mute.hideNotifications, mute.expiresAt);
    }
    this.copyNotes(old, target);
  }

  private copyNotes(old: Account, target: Account): void {
    const rel = this.store.relationships;
    for (const { accountId, comment } of this.store.moveCarryOver.notesAbout(old.id)) {
      if (!rel.note(accountId, target.id)) rel.setNote(accountId, target.id, comment);
    }
  }
}
