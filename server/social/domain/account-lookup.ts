import type { Account, SocialStore } from '../store/index.ts';
import type { SocialUrls } from '../urls.ts';

/** What finding accounts needs: the store, this server's names, and federation to ask other servers (when it runs). */
export interface AccountFinder {
  store: SocialStore;
  urls: SocialUrls;
  federation?: { resolveAccount(input: string, options?: { refresh?: boolean }): Promise<Account | null> };
}

/**
 * An account by address (`user`, `user@domain`, `@user@domain`): this server's by name, another server's
 * through federation (`refresh`: fetched again even when known). Null when there is none or it is deleted.
 */
export async function accountByAddress(
  finder: AccountFinder,
  address: string,
  options: { refresh?: boolean } = {},
): Promise<Account | null> {
  const handle = address.trim().replace(/^@/, '');
  const [username, domain] = handle.split('@');
  if (!username) return null;
  const { urls } = finder;
  const local = !domain || [urls.domain, urls.hostname].some((d) => d.toLowerCase() === domain.toLowerCase());
  const found = local
    ? finder.store.accounts.byHandle(username, null)
    : ((await finder.federation?.resolveAccount(handle, options)) ?? null);
  return found && found.deletedAt === null ? found : null;
}
