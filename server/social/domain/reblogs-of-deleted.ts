import type { SocialStore } from '../store/index.ts';

/**
 * The boosts others made of a deleted account's statuses go with them, as Mastodon removes a status's reblogs with
 * it: marked deleted, out of every feed, their notifications gone, each told as a deletion (streaming clients, and
 * the followers of a local booster). Runs inside the deletion's transaction.
 */
export function deleteReblogsOfAccount(store: SocialStore, accountId: string): void {
  const reblogs = store.statuses.reblogsOfAccount(accountId);
  if (reblogs.length === 0) return;
  for (const reblog of reblogs) store.statuses.markDeleted(reblog);
  const ids = reblogs.map((r) => r.id);
  const homeRecipients = store.feeds.holders(ids);
  store.feeds.remove(ids);
  store.notifications.deleteForStatuses(ids);
  for (const reblog of reblogs) store.events.emit('status.deleted', { status: reblog, homeRecipients, tags: [] });
}
