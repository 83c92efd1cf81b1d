import type { Account, SocialStore } from '../store/index.ts';

/** Most accounts kept (a burst comes from a few actors; a flood of many is bounded). */
const KNOWN_ACCOUNT_ENTRIES = 1_000;

/** Accounts by actor id under the account stamp they were read at. */
const knownAccounts = new WeakMap<SocialStore, { stamp: string; entries: Map<string, Account> }>();

/**
 * The stored account of an actor id (as `accounts.byUri`), reused while no account or user row has been
 * written since (the store's account stamp: a profile Update, a Delete or Move of the actor, a suspension, a
 * domain block's severity put on its accounts, a new key, any write by another connection or a lost write
 * group empties it): a burst of activities from one actor reads its row (40 columns and its user's) once, not
 * once per activity. Blocks, mutes and domain policies are not part of an account: they are read for each
 * activity where they matter. Accounts are not changed by their readers (frozen here, so one that tried would
 * throw instead of changing what others read).
 */
export function knownAccountByUri(store: SocialStore, uri: string): Account | null {
  const stamp = store.accountStamp();
  // Inside a write (never an inbox listener's case): read as it is, not kept.
  if (stamp === null) return store.accounts.byUri(uri);
  let cache = knownAccounts.get(store);
  if (!cache || cache.stamp !== stamp) knownAccounts.set(store, (cache = { stamp, entries: new Map() }));
  const cached = cache.entries.get(uri);
  if (cached) return cached;
  const account = store.accounts.byUri(uri);
  if (!account) return null;
  if (cache.entries.size >= KNOWN_ACCOUNT_ENTRIES) cache.entries.delete(cache.entries.keys().next().value as string);
  cache.entries.set(uri, Object.freeze(account));
  return account;
}
