import type { InboxContext } from '@fedify/fedify';
import { Activity, type Announce, type Block, type EmojiReact, type Flag, type Like, type Undo } from '@fedify/vocab';
import type { Account, StatusRow } from '../store/index.ts';
import { localAccountByUri, localStatusId, type FedDeps } from './deps.ts';
import { accountForActorId } from './remote.ts';
import { createRemoteStatus, isStatusObject, visibilityOf } from './statuses-inbound.ts';
import { isJsonRecord as isRecord } from '../json-record.ts';

/*
 * Favourites, boosts and blocks from other servers: Like (and Misskey's and Pleroma's emoji reactions, taken
 * as favourites), Announce, Block, and their Undo. Each lands as the same rows a local action makes, with
 * its notification and domain event, so timelines, counts and streams see it.
 */

type Ctx = InboxContext<FedDeps>;

/** The remote account sending an activity (fetched when new); null for unknown or local actors. */
async function remoteSender(c: Ctx, actorId: URL | null): Promise<Account | null> {
  if (!actorId) return null;
  const account = await accountForActorId(c, actorId);
  return account && account.domain !== null ? account : null;
}

/** A status of ours the sender may see, by its ActivityPub id. */
function localStatusFor(deps: FedDeps, objectId: URL | null, sender: Account): StatusRow | null {
  const id = objectId ? localStatusId(deps, objectId.href) : null;
  if (!id) return null;
  const status = deps.social.store.timelines.readable(sender.id, id);
  return status && status.reblogOfId === null ? status : null;
}

/** Like, or an emoji reaction (received as a favourite, as Mastodon does). */
export async function onLike(c: Ctx, like: Like | EmojiReact | Activity): Promise<void> {
  const deps = c.data;
  const sender = await remoteSender(c, like.actorId);
  if (!sender) return;
  const status = localStatusFor(deps, like.objectId, sender);
  if (!status) return;
  deps.social.remoteActivity.favourited(sender, status);
}

/**
 * An activity of a type Fedify could not read. Pleroma's and Akkoma's emoji reactions sent with Mastodon's
 * context (which does not define EmojiReact) arrive so; Pleroma, Misskey and Mastodon's forks read `type` as
 * written, so an `EmojiReact` is taken as the reaction it is. Anything else stays ignored.
 */
export async function onUntypedActivity(c: Ctx, activity: Activity): Promise<void> {
  if (await isUntypedEmojiReact(activity)) await onLike(c, activity);
}

/** An activity Fedify could not type (a plain Activity) whose `type` is written EmojiReact. */
async function isUntypedEmojiReact(activity: Activity): Promise<boolean> {
  if (Object.getPrototypeOf(activity) !== Activity.prototype) return false;
  const json = await activity.toJsonLd().catch(() => null);
  return isRecord(json) && json.type === 'EmojiReact';
}

/**
 * What the EmojiReact an Undo takes back reacted to, when the reaction's type is one its context does not
 * define (Pleroma, Akkoma): Fedify reads the embedded reaction as a bare Object without its target, so the
 * Undo's own document is read. The reaction must be the sender's own. Null for any other Undo.
 */
export async function untypedReactionTarget(undo: Undo): Promise<URL | null> {
  const json = await undo.toJsonLd().catch(() => null);
  const reaction = isRecord(json) ? json.object : null;
  if (!isRecord(reaction) || reaction.type !== 'EmojiReact' || reaction.actor !== undo.actorId?.href) return null;
  const target = isRecord(reaction.object) ? reaction.object.id : reaction.object;
  return typeof target === 'string' && URL.canParse(target) ? new URL(target) : null;
}

export async function undoLike(c: Ctx, sender: Account, objectId: URL | null): Promise<void> {
  const deps = c.data;
  const id = objectId ? localStatusId(deps, objectId.href) : null;
  if (!id) return;
  deps.social.remoteActivity.unfavourited(sender, id);
}

/**
 * A boost: of a status of ours (counted and notified), or of a status we hold because someone here follows
 * the booster. It becomes a reblog row in the booster's name, delivered to local followers' home feeds.
 */
export async function onAnnounce(c: Ctx, announce: Announce): Promise<void> {
  const deps = c.data;
  const store = deps.social.store;
  const booster = await remoteSender(c, announce.actorId);
  if (!booster || !announce.id || !announce.objectId) return;
  if (deps.repo.statusByUri(announce.id.href)) return;
  const objectHref = announce.objectId.href;
  const localId = localStatusId(deps, objectHref);
  let original: StatusRow | null = null;
  if (localId) original = store.timelines.readable(booster.id, localId);
  else {
    // A boost of someone else's status matters here only to those who follow the booster.
    if (!deps.repo.hasLocalFollower(booster.id)) return;
    const known = deps.repo.statusByUri(objectHref);
    original = known ? store.statuses.byId(known) : await fetchBoosted(c, announce);
  }
  if (!original || original.reblogOfId !== null || original.deletedAt !== null) return;
  if (original.visibility !== 'public' && original.visibility !== 'unlisted') return;
  // A boost is public, unlisted or to the booster's followers; one addressed to nobody is not one.
  const visibility = visibilityOf(announce, booster.followersUrl ?? null);
  if (visibility === 'direct') return;
  deps.social.remoteActivity.boosted(booster, original, { uri: announce.id.href, visibility });
}

/** The boosted status from its origin, stored with its author (fetched through the guarded document loader). */
async function fetchBoosted(c: Ctx, announce: Announce): Promise<StatusRow | null> {
  const object = await announce.getObject().catch(() => null);
  if (!isStatusObject(object) || !object.attributionId) return null;
  const author = await accountForActorId(c, object.attributionId);
  if (!author || author.domain === null) return null;
  return createRemoteStatus(c, object, author);
}

export async function undoAnnounce(c: Ctx, sender: Account, announceId: URL | null): Promise<void> {
  const deps = c.data;
  const store = deps.social.store;
  const id = announceId ? deps.repo.statusByUri(announceId.href) : null;
  const reblog = id ? store.statuses.byId(id) : null;
  if (!reblog || reblog.accountId !== sender.id || reblog.reblogOfId === null || reblog.deletedAt !== null) return;
  deps.social.remoteActivity.unboosted(sender, reblog);
}

/** A remote account blocks one of ours: follows end both ways and its posts and ours stay apart (Mastodon keeps the block). */
export async function onBlock(c: Ctx, block: Block): Promise<void> {
  const deps = c.data;
  const blocker = await remoteSender(c, block.actorId);
  const target = block.objectId ? localAccountByUri(deps, block.objectId.href) : null;
  if (!blocker || !target) return;
  deps.social.remoteActivity.blockedBy(blocker, target);
}

export async function undoBlock(c: Ctx, sender: Account, objectId: URL | null): Promise<void> {
  const deps = c.data;
  const target = objectId ? localAccountByUri(deps, objectId.href) : null;
  if (target) deps.social.remoteActivity.unblockedBy(sender, target);
}

/** A report forwarded by another server about accounts of ours: filed in the name of its sender (its instance actor), for our staff. */
export async function onFlag(c: Ctx, flag: Flag): Promise<void> {
  const deps = c.data;
  const from = await remoteSender(c, flag.actorId);
  if (!from) return;
  const objects = flag.objectIds.map((u) => u.href);
  const target = objects.map((u) => localAccountByUri(deps, u)).find((a) => a !== null) ?? null;
  if (!target) return;
  const statusIds = objects.flatMap((u) => {
    const id = localStatusId(deps, u);
    const status = id ? deps.social.store.statuses.byId(id) : null;
    return status && status.accountId === target.id ? [status.id] : [];
  });
  const comment = typeof flag.content === 'string' ? flag.content : (flag.content?.toString() ?? '');
  deps.social.store.transaction(() => deps.social.reports.receive(from, target.id, statusIds, comment));
}
