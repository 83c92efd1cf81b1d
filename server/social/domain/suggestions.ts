import type { Account, SocialStore, SuggestedAccount } from '../store/index.ts';

/**
 * Follow suggestions as Mastodon makes them: the owner's staff picks first, then authors the user often
 * replies to, favourites and reblogs, then accounts followed by those the user follows, then the most
 * followed accounts (what a user who follows no one starts from). An account suggested by several
 * sources appears once, with all of them.
 */
export class SuggestionService {
  private readonly store: SocialStore;
  constructor(store: SocialStore) {
    this.store = store;
  }

  suggest(viewer: Account, limit: number): SuggestedAccount[] {
    const s = this.store.suggestions;
    const featured = this.store.settings
      .owner('featured_accounts')
      .split(',')
      .map((u) => u.trim())
      .filter(Boolean);
    const merged = new Map<string, SuggestedAccount>();
    for (const found of [
      s.featured(viewer.id, featured, limit),
      s.pastInteractions(viewer.id, limit),
      s.friendsOfFriends(viewer.id, limit),
      s.mostFollowed(viewer.id, limit),
    ]) {
      for (const suggestion of found) {
        const known = merged.get(suggestion.account.id);
        if (known) known.sources.push(...suggestion.sources.filter((x) => !known.sources.includes(x)));
        else merged.set(suggestion.account.id, { ...suggestion, sources: [...suggestion.sources] });
      }
    }
    return [...merged.values()].slice(0, limit);
  }

  dismiss(viewer: Account, accountId: string): void {
    this.store.suggestions.dismiss(viewer.id, accountId);
  }
}
