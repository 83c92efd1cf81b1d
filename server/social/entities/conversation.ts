import type { Account, AccountConversationRow, SocialStore } from '../store/index.ts';
import type { AccountPresenter } from './account.ts';
import type { StatusPresenter } from './status.ts';

/** The Conversation entity: the other participants (oneself when alone), unread, and the last status. */
export function presentConversations(
  store: SocialStore,
  accounts: AccountPresenter,
  statuses: StatusPresenter,
  rows: readonly AccountConversationRow[],
  viewer: Account,
): Record<string, unknown>[] {
  const participantIds = [...new Set(rows.flatMap((r) => r.participantIds))];
  const participants = new Map(accounts.present(store.accounts.byIds(participantIds)).map((json) => [json.id, json]));
  const viewerJson = accounts.one(viewer);
  const lastRows = store.statuses.byIds(rows.map((r) => r.lastStatusId).filter((id): id is string => id !== null));
  const last = new Map(statuses.present(lastRows, viewer).map((json) => [json.id, json]));
  return rows.map((r) => {
    const others = r.participantIds.map((id) => participants.get(id)).filter((a) => a !== undefined);
    return {
      id: r.id,
      unread: r.unread,
      accounts: others.length ? others : [viewerJson],
      last_status: r.lastStatusId ? (last.get(r.lastStatusId) ?? null) : null,
    };
  });
}
