import { Collection, Hashtag, isActor, type Add, type Object as APObject, type Remove } from '@fedify/vocab';
import type { Account, StatusRow } from '../store/index.ts';
import type { FedContext } from './deps.ts';
import { accountForActorId } from './remote.ts';
import { createRemoteStatus, isStatusObject } from './statuses-inbound.ts';
import { fetchObject } from './lookup.ts';

/** More pinned posts than Mastodon allows (5) but a bound all the same. */
const MAX_FEATURED = 20;

/*
 * Pinned posts of remote accounts, as Mastodon shows them on profiles: read from the account's `featured`
 * collection when the account is looked up, and kept current by the Add and Remove activities its server
 * sends when a post is pinned or unpinned. Fetched posts are stored quietly (they are old: no feed, no
 * notification).
 */

/**
 * A featured item as a stored status, when it is a post by `account` (fetched if it is only a link).
 * `embeddedIn`: the collection or activity that carried it, whose JSON keeps what Fedify's vocabulary drops of
 * its attachments (blurhash, focal point).
 */
async function featuredStatus(
  c: FedContext,
  account: Account,
  item: unknown,
  embeddedIn: APObject,
): Promise<StatusRow | null> {
  const object = item instanceof URL ? await fetchObject(c, item).catch(() => null) : item;
  if (!isStatusObject(object) || !object.id || object.attributionId?.href !== account.uri) return null;
  const deps = c.data;
  const known = deps.repo.statusByUri(object.id.href);
  if (known) return deps.social.store.statuses.byId(known);
  try {
    return await createRemoteStatus(c, object, account, { quiet: true, embeddedIn });
  } catch (err) {
    deps.logger.info({ err, status: object.id.href }, 'a pinned post could not be stored');
    return null;
  }
}

/** Replaces what is known of a remote account's featured hashtags with its `featuredTags` collection. */
async function syncFeaturedTags(c: FedContext, account: Account): Promise<void> {
  const actor = account.uri ? await fetchObject(c, account.uri).catch(() => null) : null;
  if (!isActor(actor) || !actor.featuredTagsId) return;
  const collection = await fetchObject(c, actor.featuredTagsId).catch(() => null);
  if (!(collection instanceof Collection)) return;
  const store = c.data.social.store;
  const names: string[] = [];
  for await (const item of collection.getItems()) {
    if (names.length >= MAX_FEATURED) break;
    const name = item instanceof Hashtag ? item.name?.toString().replace(/^#/, '') : null;
    if (name && /^[\p{L}\p{N}_]{1,100}$/u.test(name)) names.push(name);
  }
  store.transaction(() => {
    for (const f of store.tags.featured(account.id)) store.tags.unfeature(account.id, f.tag.id);
    for (const name of names) store.tags.feature(account.id, store.statuses.ensureTag(name));
  });
}

/** Replaces what is known of a remote account's pinned posts and hashtags with its featured collections. */
export async function syncFeatured(c: FedContext, account: Account): Promise<void> {
  if (account.domain === null) return;
  await syncFeaturedTags(c, account);
  if (!account.featuredUrl) return;
  const collection = await fetchObject(c, account.featuredUrl).catch(() => null);
  if (!(collection instanceof Collection)) return;
  const items = collection.getItems();
  const ids: string[] = [];
  let seen = 0;
  for await (const item of items) {
    if (++seen > MAX_FEATURED) break;
    const status = await featuredStatus(c, account, item, collection);
    if (status && status.deletedAt === null) ids.push(status.id);
  }
  c.data.social.store.interactions.replacePins(account.id, ids);
}

/** Add (a post pinned) or Remove (unpinned) aimed at the sender's own featured collection. */
export async function onFeaturedChange(c: FedContext, activity: Add | Remove, added: boolean): Promise<void> {
  if (!activity.actorId || !activity.targetId) return;
  const sender = await accountForActorId(c, activity.actorId);
  if (!sender || sender.domain === null || activity.targetId.href !== sender.featuredUrl) return;
  const store = c.data.social.store;
  if (added) {
    const status = await featuredStatus(c, sender, await activity.getObject().catch(() => null), activity);
    if (status) store.interactions.pin(sender.id, status.id);
    return;
  }
  const id = activity.objectId ? c.data.repo.statusByUri(activity.objectId.href) : null;
  if (id) store.interactions.unpin(sender.id, id);
}
