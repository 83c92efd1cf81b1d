import { Block, Follow, Undo } from '@fedify/vocab';
import type { SocialEventMap } from '../events.ts';
import { answerFollow } from './inbox.ts';
import { localAccount, remoteAccount, OutboundPart } from './outbound-support.ts';
import { recipientOf } from './remote.ts';
import { actorUri } from './uris.ts';

/** Outgoing activities of a local account's ties to a remote one: Follow, its Accept or Reject, Block, and their Undo. */
export class RelationshipOutbound extends OutboundPart {
  async changed(e: SocialEventMap['relationship.changed']): Promise<void> {
    const repo = this.deps.repo;
    const me = localAccount(this.deps, e.accountId);
    const other = remoteAccount(this.deps, e.targetAccountId);
    if (!me || !other) return;
    const meUri = new URL(actorUri(this.deps, me));
    const store = this.deps.social.store;
    switch (e.change) {
      case 'follow': {
        // A remote follow starts as a request the other server answers; options changes send nothing.
        if (!store.relationships.followRequest(me.id, other.id)) return;
        const uri = repo.followUri(me.id, other.id) ?? `${meUri.href}#follows/${store.core.ids.next()}`;
        repo.setFollowRequestUri(me.id, other.id, uri);
        repo.rememberSentFollow(me.id, other.id, uri);
        await this.send(
          me,
          [recipientOf(other)],
          new Follow({ id: new URL(uri), actor: meUri, object: new URL(other.uri!) }),
        );
        return;
      }
      case 'unfollow': {
        const uri = repo.sentFollowUri(me.id, other.id);
        const follow = new Follow({ id: uri ? new URL(uri) : null, actor: meUri, object: new URL(other.uri!) });
        await this.send(
          me,
          [recipientOf(other)],
          new Undo({
            id: new URL(`${meUri.href}#follows/undo/${store.core.ids.next()}`),
            actor: meUri,
            object: follow,
          }),
        );
        return;
      }
      case 'follow_request_authorized':
        await answerFollow(this.context(), 'accept', me, other, repo.followUri(other.id, me.id));
        return;
      case 'follow_request_rejected':
      case 'follower_removed':
        await answerFollow(this.context(), 'reject', me, other, e.followUri ?? null);
        return;
      case 'block':
      case 'unblock': {
        // One id per pair, so the Undo names the Block it undoes.
        const block = new Block({
          id: new URL(`${meUri.href}#blocks/${other.id}`),
          actor: meUri,
          object: new URL(other.uri!),
        });
        await this.send(
          me,
          [recipientOf(other)],
          e.change === 'block'
            ? block
            : new Undo({
                id: new URL(`${meUri.href}#blocks/${other.id}/undo/${store.core.ids.next()}`),
                actor: meUri,
                object: block,
              }),
        );
        return;
      }
      default:
        return;
    }
  }
}
