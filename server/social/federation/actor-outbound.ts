import { Delete, Move, PUBLIC_COLLECTION, Update } from '@fedify/vocab';
import { personOf } from './actors.ts';
import { localAccount, OutboundPart } from './outbound-support.ts';
import { recipientsOf } from './remote.ts';
import { actorUri } from './uris.ts';

/** Outgoing activities about a local actor itself: its profile updated, its move to another account, its deletion. */
export class ActorOutbound extends OutboundPart {
  async updated(accountId: string): Promise<void> {
    const account = localAccount(this.deps, accountId);
    if (!account) return;
    const c = this.context();
    const actor = await personOf(c, this.deps, account);
    await this.send(
      account,
      recipientsOf(this.deps.repo.remoteFollowers(account.id)),
      new Update({
        id: new URL(`${actor.id!.href}#updates/${this.deps.social.store.core.ids.next()}`),
        actor: actor.id,
        object: actor,
        tos: [PUBLIC_COLLECTION],
      }),
    );
  }

  /** A local account moved: its profile (now pointing to the new account) and a Move go to its remote followers. */
  async moved(accountId: string, targetAccountId: string): Promise<void> {
    const account = localAccount(this.deps, accountId);
    const target = this.deps.social.store.accounts.byId(targetAccountId);
    if (!account || !target) return;
    await this.updated(accountId);
    const c = this.context();
    const me = c.getActorUri(account.username);
    const move = new Move({
      id: new URL(`${me.href}#moves/${this.deps.social.store.core.ids.next()}`),
      actor: me,
      object: me,
      target: new URL(actorUri(this.deps, target)),
      tos: [c.getFollowersUri(account.username)],
    });
    await this.send(account, recipientsOf(this.deps.repo.remoteFollowers(account.id)), move);
  }

  /**
   * A local account was deleted: Delete of the actor to every server this one knows (Mastodon does the same),
   * signed with the account's key; once that is queued (the queue keeps the signing key with each delivery)
   * the key is wiped. Also run at start for deletions made while federation was not running.
   */
  async deleted(accountId: string): Promise<void> {
    const store = this.deps.social.store;
    const account = store.accounts.byId(accountId);
    if (!account || account.domain !== null || account.deletedAt === null) return;
    const c = this.context();
    const me = c.getActorUri(account.username);
    const recipients = recipientsOf(this.deps.repo.knownInboxes());
    await this.send(
      account,
      recipients,
      new Delete({ id: new URL(`${me.href}#delete`), actor: me, object: me, tos: [PUBLIC_COLLECTION] }),
    );
    store.accounts.wipePrivateKey(account.id);
  }
}
