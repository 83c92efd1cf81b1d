import type { Context, Federation } from '@fedify/fedify';
import type { Logger } from '../../logger.ts';
import type { SocialContext } from '../context.ts';
import { isListed, type Account } from '../store/index.ts';
import type { GoneActors } from './gone-actors.ts';
import type { InboundTombstones } from './inbound-tombstones.ts';
import type { RemoteFetcher } from './remote-fetch.ts';
import type { FederationRepository } from '../store/index.ts';

/** What every dispatcher and inbox listener gets as Fedify's context data. */
export interface FedDeps {
  social: SocialContext;
  repo: FederationRepository;
  logger: Logger;
  /** Every remote document, key and WebFinger answer is fetched through it (bounded; see remote-fetch.ts). */
  fetcher: RemoteFetcher;
  /** Deletions of remote posts that arrived before the posts (see inbound-tombstones.ts). */
  tombstones: InboundTombstones;
  /** Remote actors deleted on their servers, and gone keys: the inbox refuses what they sign (gone-actors.ts). */
  gone: GoneActors;
}

export type Fed = Federation<FedDeps>;
export type FedContext = Context<FedDeps>;

/** The identifier of the instance actor (it has a dot, so no username can take it); served at /actor too. */
export const INSTANCE_ACTOR = 'instance.actor';

/** A local account that federates: listed, not deleted. */
export function localAccount(deps: Pick<FedDeps, 'social'>, username: string): Account | null {
  const account = deps.social.store.accounts.byHandle(username, null);
  return account && account.domain === null && isListed(account) ? account : null;
}

/** Path patterns of our ActivityPub ids (see SocialUrls). */
const STATUS_PATH = /^\/users\/([A-Za-z0-9_]+)\/statuses\/(\d+)$/;
const ACTOR_PATH = /^\/users\/([A-Za-z0-9_]+)$/;

/** The local status an id of ours names, or null when the id is not ours. */
export function localStatusId(deps: FedDeps, uri: string): string | null {
  const url = safeUrl(uri);
  if (!url || url.origin !== deps.social.urls.base) return null;
  return STATUS_PATH.exec(url.pathname)?.[2] ?? null;
}

/** The local account an actor id (or profile URL) of ours names. */
export function localAccountByUri(deps: FedDeps, uri: string): Account | null {
  const url = safeUrl(uri);
  if (!url || url.origin !== deps.social.urls.base) return null;
  const name = ACTOR_PATH.exec(url.pathname)?.[1] ?? /^\/@([A-Za-z0-9_]+)$/.exec(url.pathname)?.[1];
  return name ? localAccount(deps, name) : null;
}

export function safeUrl(value: string | URL | null | undefined): URL | null {
  if (!value) return null;
  try {
    return new URL(value);
  } catch {
    return null;
  }
}
