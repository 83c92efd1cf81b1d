import crypto from 'node:crypto';
import {
  Application,
  Endpoints,
  Image,
  Person,
  PropertyValue,
  Service,
  Tombstone,
  type Actor,
  type Recipient,
} from '@fedify/vocab';
import { Temporal } from '@js-temporal/polyfill';
import type { Account } from '../store/index.ts';
import { escapeHtml, formatInline } from '../text/index.ts';
import { INSTANCE_ACTOR, localAccount, type Fed, type FedContext, type FedDeps } from './deps.ts';
import { emojiTags } from './emojis.ts';

const RSA = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as const;

/** Imported key pairs by account id (PEM parsing costs more than a signature). */
const keyCache = new WeakMap<FedDeps, Map<string, Promise<CryptoKeyPair>>>();

async function importKeyPair(publicPem: string, privatePem: string): Promise<CryptoKeyPair> {
  const der = (pem: string) => crypto.createPublicKey(pem).export({ type: 'spki', format: 'der' });
  const privateDer = crypto.createPrivateKey(privatePem).export({ type: 'pkcs8', format: 'der' });
  const [publicKey, privateKey] = await Promise.all([
    crypto.subtle.importKey('spki', der(publicPem), RSA, true, ['verify']),
    crypto.subtle.importKey('pkcs8', privateDer, RSA, true, ['sign']),
  ]);
  return { publicKey, privateKey };
}

function generateRsaPem(): { publicKey: string; privateKey: string } {
  return crypto.generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
}

/** The RSA key pair an actor signs with (accounts keep theirs in social.db; the instance actor in settings). */
function deletedLocalAccount(deps: FedDeps, username: string): Account | null {
  const account = deps.social.store.accounts.byHandle(username, null);
  return account && account.domain === null && account.deletedAt !== null ? account : null;
}

export function actorKeyPairs(deps: FedDeps, identifier: string): Promise<CryptoKeyPair[]> {
  let cache = keyCache.get(deps);
  if (!cache) keyCache.set(deps, (cache = new Map()));
  let pems: { publicKey: string; privateKey: string | null } | null;
  let cacheKey: string;
  if (identifier === INSTANCE_ACTOR) {
    pems = deps.repo.instanceKeys(generateRsaPem);
    cacheKey = INSTANCE_ACTOR;
  } else {
    // A deleted account still signs its own Delete (its key is wiped once that is queued).
    const account = localAccount(deps, identifier) ?? deletedLocalAccount(deps, identifier);
    if (!account) return Promise.resolve([]);
    pems = deps.social.store.accounts.keyPair(account.id);
    cacheKey = `${account.id}:${pems?.publicKey.length ?? 0}`;
  }
  if (!pems?.privateKey) return Promise.resolve([]);
  let pair = cache.get(cacheKey);
  if (!pair) {
    pair = importKeyPair(pems.publicKey, pems.privateKey);
    cache.set(cacheKey, pair);
  }
  return pair.then((p) => [p]);
}

function instant(ms: number) {
  return Temporal.Instant.fromEpochMilliseconds(ms) as unknown as globalThis.Temporal.Instant;
}

function imageOf(url: string | null, mediaType: string | null): Image | null {
  return url ? new Image({ url: new URL(url), mediaType }) : null;
}

function mediaTypeOf(file: string): string {
  const ext = file.split('.').pop()?.toLowerCase();
  return ext === 'png' ? 'image/png' : ext === 'gif' ? 'image/gif' : ext === 'webp' ? 'image/webp' : 'image/jpeg';
}

/** Where a moved account went (as:movedTo), or null. */
function movedToUri(deps: FedDeps, account: Account): URL | null {
  const target = account.movedToAccountId ? deps.social.store.accounts.byId(account.movedToAccountId) : null;
  return target ? new URL(target.uri ?? deps.social.urls.accountUri(target.username)) : null;
}

/** The Person (or Service for bots) Mastodon expects of a local account; a suspended one shows only its keys. */
export async function personOf(c: FedContext, deps: FedDeps, account: Account): Promise<Actor> {
  const identifier = account.username;
  const keys = await c.getActorKeyPairs(identifier);
  const urls = deps.social.urls;
  const suspended = account.suspendedAt !== null;
  const values = {
    id: c.getActorUri(identifier),
    preferredUsername: account.username,
    url: new URL(urls.profileUrl(account.username)),
    inbox: c.getInboxUri(identifier),
    outbox: c.getOutboxUri(identifier),
    followers: c.getFollowersUri(identifier),
    following: c.getFollowingUri(identifier),
    featured: c.getFeaturedUri(identifier),
    featuredTags: c.getFeaturedTagsUri(identifier),
    endpoints: new Endpoints({ sharedInbox: c.getInboxUri() }),
    publicKey: keys[0]?.cryptographicKey ?? null,
    assertionMethods: keys.map((k) => k.multikey),
    manuallyApprovesFollowers: account.locked,
    published: instant(account.createdAt),
    aliases: account.alsoKnownAs.flatMap((u) => (URL.canParse(u) ? [new URL(u)] : [])),
    successor: movedToUri(deps, account),
    ...(suspended
      ? { suspended: true, name: account.username }
      : {
          name: account.displayName || account.username,
          summary: deps.social.presenter.noteHtml(account),
          discoverable: account.discoverable ?? false,
          indexable: account.indexable,
          memorial: account.memorial,
          icon: imageOf(
            account.avatarFile ? urls.media(account.avatarFile) : null,
            account.avatarFile ? mediaTypeOf(account.avatarFile) : null,
          ),
          image: imageOf(
            account.headerFile ? urls.media(account.headerFile) : null,
            account.headerFile ? mediaTypeOf(account.headerFile) : null,
          ),
          tags: emojiTags(deps, account.displayName, account.note, ...account.fields.flatMap((f) => [f.name, f.value])),
          attachments: account.fields.map(
            (f) =>
              new PropertyValue({
                name: escapeHtml(f.name),
                value: formatInline(f.value, { mentionUrl: () => null, tagUrl: (n) => urls.tagUrl(n.toLowerCase()) }),
              }),
          ),
        }),
  };
  return account.actorType === 'Service' ? new Service(values) : new Person(values);
}

/** Recipients (actor id, inbox, shared inbox) of the accounts a collection lists. */
function asRecipients(
  deps: FedDeps,
  c: FedContext,
  rows: { id: string; username: string; uri: string | null }[],
  remoteOnly: boolean,
): Recipient[] {
  const remote = new Map(
    deps.repo.remoteRecipients(rows.filter((r) => r.uri !== null).map((r) => r.id)).map((r) => [r.accountId, r]),
  );
  const out: Recipient[] = [];
  for (const r of rows) {
    const recipient = remote.get(r.id);
    if (recipient)
      out.push({
        id: new URL(recipient.uri),
        inboxId: new URL(recipient.inboxUrl),
        endpoints: recipient.sharedInboxUrl ? { sharedInbox: new URL(recipient.sharedInboxUrl) } : null,
      });
    else if (!remoteOnly && r.uri === null)
      out.push({ id: c.getActorUri(r.username), inboxId: c.getInboxUri(r.username), endpoints: null });
  }
  return out;
}

/** Actor, keys, WebFinger and the followers/following collections. */
export function registerActors(federation: Fed): void {
  federation
    .setActorDispatcher('/users/{identifier}', async (c, identifier) => {
      const deps = c.data;
      if (identifier === INSTANCE_ACTOR) {
        const keys = await c.getActorKeyPairs(identifier);
        return new Application({
          id: c.getActorUri(identifier),
          preferredUsername: deps.social.urls.hostname,
          url: new URL(deps.social.urls.absolute('/about/more?instance_actor=true')),
          inbox: c.getInboxUri(identifier),
          outbox: c.getOutboxUri(identifier),
          endpoints: new Endpoints({ sharedInbox: c.getInboxUri() }),
          publicKey: keys[0]?.cryptographicKey ?? null,
          manuallyApprovesFollowers: true,
        });
      }
      const account = deps.social.store.accounts.byHandle(identifier, null);
      if (!account || account.domain !== null) return null;
      // A deleted account answers 410 Gone: peers then drop their copy.
      if (account.deletedAt !== null)
        return new Tombstone({ id: c.getActorUri(identifier), deleted: instant(account.deletedAt) });
      if (!localAccount(deps, identifier)) return null;
      return personOf(c, deps, account);
    })
    .mapActorAlias('/actor', INSTANCE_ACTOR)
    .mapHandle((c, username) => {
      if (username.toLowerCase() === c.data.social.urls.hostname.toLowerCase()) return INSTANCE_ACTOR;
      return localAccount(c.data, username)?.username ?? null;
    })
    .setKeyPairsDispatcher((c, identifier) => actorKeyPairs(c.data, identifier));

  // Followers and following: every item for delivery fan-out; for a request, nothing but the count when the
  // owner hides the collections (Mastodon shows totalItems then).
  for (const direction of ['followers', 'following'] as const) {
    const dispatch = (c: FedContext & { request?: Request }, identifier: string) => {
      const account = localAccount(c.data, identifier);
      if (!account) return null;
      const forRequest = 'request' in c && c.request !== undefined;
      if (forRequest && account.hideCollections) return { items: [] };
      return { items: asRecipients(c.data, c, c.data.repo.followActorIds(account.id, direction), !forRequest) };
    };
    const count = (c: FedContext, identifier: string) => {
      const account = localAccount(c.data, identifier);
      return account ? c.data.repo.followActorIds(account.id, direction).length : null;
    };
    if (direction === 'followers')
      federation.setFollowersDispatcher('/users/{identifier}/followers', dispatch).setCounter(count);
    else
      federation
        .setFollowingDispatcher('/users/{identifier}/following', (c, identifier) => {
          const page = dispatch(c, identifier);
          return page ? { items: page.items.map((r) => r.id!) } : null;
        })
        .setCounter(count);
  }
}
