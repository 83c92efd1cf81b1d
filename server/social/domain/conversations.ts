import type { Account, AccountConversationRow, SocialStore } from '../store/index.ts';
import { owned } from './owned.ts';

/**
 * A direct message enters its conversation for each local participant (its author when local, and the
 * local accounts it mentions), listing the others as participants; unread for all but its author. The
 * local posting path and the federation (direct messages from other servers) both call it, inside the
 * transaction that stores the message. A participant who blocks the author or the author's server gets nothing.
 */
export function recordDirectMessage(
  store: SocialStore,
  message: { statusId: string; conversationId: string; author: Account; mentioned: readonly Account[] },
): void {
  const { author, conversationId, statusId } = message;
  const participants = [author, ...message.mentioned.filter((a) => a.id !== author.id)];
  for (const account of participants) {
    if (account.domain !== null) continue;
    if (
      account.id !== author.id &&
      (store.relationships.blocking(account.id, author.id) ||
        (author.domain !== null && store.userDomainBlocks.domainBlocked(account.id, author.domain)))
    )
      continue;
    store.conversations.touch(
      account.id,
      conversationId,
      participants.filter((x) => x.id !== account.id).map((x) => x.id),
      statusId,
      account.id !== author.id,
    );
    store.events.emit('conversation.updated', { conversationId, accountId: account.id });
  }
}

/** A user's direct-message threads: read or unread, and removed from their list. */
export class ConversationService {
  private readonly store: SocialStore;
  constructor(store: SocialStore) {
    this.store = store;
  }

  /** The user's own thread; anyone else's is a 404. */
  own(me: Account, id: string): AccountConversationRow {
    return owned(this.store.conversations.byId(id), me);
  }

  setUnread(me: Account, id: string, unread: boolean): AccountConversationRow {
    const row = this.own(me, id);
    this.store.conversations.setUnread(row.id, unread);
    return this.store.conversations.byId(row.id)!;
  }

  remove(me: Account, id: string): void {
    this.store.conversations.delete(this.own(me, id).id);
  }
}
