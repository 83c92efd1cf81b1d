import {
  Application,
  Emoji,
  Group,
  Image,
  isActor,
  Link,
  Organization,
  PropertyValue,
  Service,
  type Actor,
  type Recipient,
} from '@fedify/vocab';
import { exportSpki } from '@fedify/vocab-runtime';
import type { Account } from '../store/index.ts';
import type { FedContext, FedDeps } from './deps.ts';
import { INSTANCE_ACTOR, localAccountByUri } from './deps.ts';
import { emojiOf } from './emojis.ts';
import { knownAccountByUri } from './known-accounts.ts';
import { refuseToFetch } from './inbound-limits.ts';
import { sanitizeRemoteHtml, stripHtml } from './html.ts';
import { RejectedDocument } from './rejected-document.ts';
import { fetchObject, lookupRemote } from './lookup.ts';
import { RemoteFetchError } from './remote-fetch.ts';
import type { RemoteActorData, RemoteRecipient } from '../store/index.ts';

/** A remote profile older than this is read again when someone looks it up (Mastodon: a day). */
export const REFRESH_AFTER_MS = 24 * 60 * 60 * 1000;
/** Longest profile texts kept (bytes of HTML); longer ones are cut, not refused. */
const MAX_NOTE = 20_000;
const MAX_FIELDS = 16;

// Its own file so the API can tell it apart without loading Fedify (index.ts).
export { RejectedDocument };

function linkHref(value: URL | Link | null | undefined): string | null {
  if (!value) return null;
  if (value instanceof URL) return value.href;
  return value.href?.href ?? null;
}

function actorType(actor: Actor): string {
  if (actor instanceof Service) return 'Service';
  if (actor instanceof Application) return 'Application';
  if (actor instanceof Group) return 'Group';
  if (actor instanceof Organization) return 'Organization';
  return 'Person';
}

async function imageUrl(get: () => Promise<Image | null>): Promise<string | null> {
  try {
    const image = await get();
    const url = image ? linkHref(image.url as URL | Link | null) : null;
    return url && /^https?:\/\//.test(url) ? url : null;
  } catch {
    return null;
  }
}

/** What we keep of a remote actor document; throws RejectedDocument when it cannot be followed or shown. */
export async function actorData(actor: Actor): Promise<RemoteActorData> {
  const id = actor.id;
  if (!id || (id.protocol !== 'https:' && id.protocol !== 'http:'))
    throw new RejectedDocument('the actor has no http(s) id');
  const username = actor.preferredUsername?.toString();
  if (!username || username.length > 255)
    throw new RejectedDocument(
      'the actor has no preferredUsername (an OStatus-only or legacy account cannot be followed)',
    );
  if (!actor.inboxId) throw new RejectedDocument('the actor has no inbox');
  const key = await actor.getPublicKey().catch(() => null);
  if (!key?.publicKey) throw new RejectedDocument('the actor has no usable public key');
  if (key.ownerId && key.ownerId.href !== id.href)
    throw new RejectedDocument('the public key belongs to another actor');
  const fields: RemoteActorData['fields'] = [];
  try {
    for await (const attachment of actor.getAttachments()) {
      if (fields.length >= MAX_FIELDS) break;
      if (attachment instanceof PropertyValue) {
        fields.push({
          name: stripHtml(attachment.name?.toString() ?? '').slice(0, 255),
          value: sanitizeRemoteHtml(attachment.value?.toString() ?? '').slice(0, 2_000),
          verified_at: null,
        });
      }
    }
  } catch {
    // Attachments that cannot be read (a link to nowhere) leave the profile without fields.
  }
  return {
    username,
    domain: id.host.toLowerCase(),
    uri: id.href,
    url: linkHref(actor.url as URL | Link | null) ?? id.href,
    actorType: actorType(actor),
    displayName: stripHtml(actor.name?.toString() ?? '').slice(0, 255),
    note: sanitizeRemoteHtml(actor.summary?.toString() ?? '').slice(0, MAX_NOTE),
    fields,
    locked: actor.manuallyApprovesFollowers ?? false,
    discoverable: actor.discoverable ?? null,
    indexable: actor.indexable ?? false,
    inboxUrl: actor.inboxId.href,
    sharedInboxUrl: actor.endpoints?.sharedInbox?.href ?? null,
    outboxUrl: actor.outboxId?.href ?? null,
    followersUrl: actor.followersId?.href ?? null,
    followingUrl: actor.followingId?.href ?? null,
    featuredUrl: actor.featuredId?.href ?? null,
    publicKey: await exportSpki(key.publicKey),
    avatarRemoteUrl: await imageUrl(() => actor.getIcon()),
    headerRemoteUrl: await imageUrl(() => actor.getImage()),
    alsoKnownAs: actor.aliasIds.map((u) => u.href),
    suspended: actor.suspended ?? false,
    counts: null,
  };
}

/** Stores (or refreshes) a remote actor; a local actor id gives the local account. */
export async function persistActor(deps: FedDeps, actor: Actor): Promise<Account> {
  if (actor.id) {
    const local = localAccountByUri(deps, actor.id.href);
    if (local) return local;
  }
  const data = await actorData(actor);
  const id = deps.repo.upsertRemoteAccount(data);
  // Accounts of blocked domains carry the block (suspended or limited) from their first arrival.
  const host = actor.id?.hostname;
  if (host) {
    const policy = deps.social.moderation.domainPolicy(host);
    const known = deps.social.store.accounts.byId(id)!;
    if (policy.refused && known.suspendedAt === null) deps.social.store.accounts.setSuspended(id, true);
    if (policy.silenced && known.silencedAt === null) deps.social.store.accounts.setSilenced(id, true);
  }
  // Custom emojis of the profile (name, bio, fields), kept with the account's domain.
  if (host) {
    let count = 0;
    for await (const tag of actor.getTags({ documentLoader: refuseToFetch })) {
      if (++count > MAX_PROFILE_TAGS) break;
      const emoji = tag instanceof Emoji ? await emojiOf(tag) : null;
      if (emoji) deps.social.store.emojis.putRemote({ ...emoji, domain: data.domain ?? host });
    }
  }
  deps.repo.recordFederatedOrigin(deps.social.urls.base);
  deps.social.remoteActivity.accountRefreshed(id);
  return deps.social.store.accounts.byId(id)!;
}

const MAX_PROFILE_TAGS = 100;

/**
 * The account a handle (`user@host`, `@user@host`, `acct:user@host`) or an actor/profile URL names: known
 * ones from the database (refreshed when older than a day), unknown ones through WebFinger and the actor
 * document. Null when nothing is there; RejectedDocument when what is there cannot be used.
 */
export async function resolveAccount(
  c: FedContext,
  input: string,
  options: { refresh?: boolean } = {},
): Promise<Account | null> {
  const deps = c.data;
  const text = input
    .trim()
    .replace(/^acct:/i, '')
    .replace(/^@/, '');
  let known: Account | null = null;
  let lookup: string;
  if (/^https?:\/\//i.test(text)) {
    const local = localAccountByUri(deps, text);
    if (local) return local;
    known = deps.social.store.accounts.byUri(text);
    lookup = text;
  } else {
    const at = text.indexOf('@');
    if (at <= 0) return null;
    const username = text.slice(0, at);
    const domain = text.slice(at + 1).toLowerCase();
    if (!/^[a-z0-9.-]+(:\d+)?$/.test(domain)) return null;
    if (domain === deps.social.urls.domain.toLowerCase() || domain === deps.social.urls.hostname.toLowerCase())
      return deps.social.store.accounts.byHandle(username, null);
    known = deps.social.store.accounts.byHandle(username, domain);
    lookup = `acct:${username}@${domain}`;
  }
  if (known && known.domain !== null) {
    const fetched = deps.repo.fetchedAt(known.id);
    const stale = fetched === null || deps.social.store.now() - fetched > REFRESH_AFTER_MS;
    if (!stale && !options.refresh) return known;
    lookup = known.uri ?? lookup;
  }
  // Servers the domain policy refuses are not looked up at all.
  const lookupHost = /^https?:\/\//i.test(lookup)
    ? new URL(lookup).hostname
    : lookup.slice(lookup.lastIndexOf('@') + 1);
  if (deps.social.moderation.domainPolicy(lookupHost).refused) return known;
  let found;
  try {
    found = await lookupRemote(c, lookup, options.refresh ? await signedLoader(c) : undefined);
  } catch (err) {
    deps.logger.info({ err, lookup }, 'remote account lookup failed');
    // A server past the fetch bounds (size, time, redirects) is told apart from one that is just not there.
    if (err instanceof RemoteFetchError && err.bounds) throw new RejectedDocument(`${lookupHost}: ${err.message}`);
    return known;
  }
  if (!found || !isActor(found)) return known;
  return persistActor(deps, found);
}

/** The account behind an actor id, fetched (and stored) if unknown. */
export async function accountForActorId(c: FedContext, id: URL): Promise<Account | null> {
  const deps = c.data;
  const local = localAccountByUri(deps, id.href);
  if (local) return local;
  const known = knownAccountByUri(deps.social.store, id.href);
  if (known) return known;
  const actor = await fetchObject(c, id).catch(() => null);
  return actor && isActor(actor) ? persistActor(deps, actor) : null;
}

/** A remote actor fetched again now (not from what is stored): a Move is judged on the new account's current aliases. */
export async function freshAccountForActorId(c: FedContext, id: URL): Promise<Account | null> {
  const deps = c.data;
  const local = localAccountByUri(deps, id.href);
  if (local) return local;
  const actor = await fetchObject(c, id, await signedLoader(c)).catch(() => null);
  return actor && isActor(actor) ? persistActor(deps, actor) : null;
}

/** A loader signing as the instance actor: what it fetches is the server's answer now (servers may require it). */
function signedLoader(c: FedContext) {
  return c.getDocumentLoader({ identifier: INSTANCE_ACTOR });
}

/** Where activities for a remote account go (its inbox, and its server's shared inbox). */
export function recipientOf(account: Account): Recipient {
  return {
    id: account.uri ? new URL(account.uri) : null,
    inboxId: account.inboxUrl ? new URL(account.inboxUrl) : null,
    endpoints: account.sharedInboxUrl ? { sharedInbox: new URL(account.sharedInboxUrl) } : null,
  };
}

/** Recipients for stored remote accounts, one per account. */
export function recipientsOf(list: RemoteRecipient[]): Recipient[] {
  const seen = new Set<string>();
  const out: Recipient[] = [];
  for (const r of list) {
    if (seen.has(r.accountId)) continue;
    seen.add(r.accountId);
    out.push({
      id: new URL(r.uri),
      inboxId: new URL(r.inboxUrl),
      endpoints: r.sharedInboxUrl ? { sharedInbox: new URL(r.sharedInboxUrl) } : null,
    });
  }
  return out;
}
