import type { InboxContext, RequestContext, UnverifiedActivityReason } from '@fedify/fedify';
import {
  Accept,
  Activity,
  Add,
  Announce,
  Block,
  Create,
  Delete,
  EmojiReact,
  Flag,
  Follow,
  Like,
  Move,
  Note,
  QuoteRequest,
  Reject,
  Remove,
  Undo,
  Update,
  isActor,
} from '@fedify/vocab';
import type { Account } from '../store/index.ts';
import { INSTANCE_ACTOR, localAccountByUri, localStatusId, safeUrl, type Fed, type FedDeps } from './deps.ts';
import { actorUri } from './uris.ts';
import { accountForActorId, freshAccountForActorId, persistActor, recipientOf, RejectedDocument } from './remote.ts';
import {
  onAnnounce,
  onBlock,
  onFlag,
  onLike,
  onUntypedActivity,
  undoAnnounce,
  undoBlock,
  undoLike,
  untypedReactionTarget,
} from './interactions-inbound.ts';
import {
  createRemoteStatus,
  deleteRemoteStatus,
  fetchQuotedStatus,
  isStatusObject,
  updateRemoteStatus,
  type StatusObject,
} from './statuses-inbound.ts';
import { onFeaturedChange, syncFeatured } from './featured-inbound.ts';
import { oneObjectAtATime } from './inbound-object-locks.ts';
import { refreshIncomingQuote } from './quotes-inbound.ts';
import { answerQuoteRequest, onQuoteAnswer, revokeByStamp } from './quote-requests.ts';

type Ctx = InboxContext<FedDeps>;

/** The sender as an account (fetched and stored when new); null when it cannot be resolved. */
async function sender(c: Ctx, activity: { actorId: URL | null }): Promise<Account | null> {
  if (!activity.actorId) return null;
  const account = await accountForActorId(c, activity.actorId);
  return account && account.domain !== null ? account : null;
}

/** Sends Accept (or Reject) of a remote Follow from the local account it targets. */
export async function answerFollow(
  c: Ctx | Parameters<typeof accountForActorId>[0],
  kind: 'accept' | 'reject',
  local: Account,
  remote: Account,
  followUri: string | null,
): Promise<void> {
  const deps = c.data;
  const me = new URL(actorUri(deps, local));
  const follow = new Follow({ id: followUri ? new URL(followUri) : null, actor: new URL(remote.uri!), object: me });
  const Answer = kind === 'accept' ? Accept : Reject;
  const id = new URL(`${me.href}#${kind}s/follows/${deps.social.store.core.ids.next()}`);
  await c.sendActivity(
    { identifier: local.username },
    recipientOf(remote),
    new Answer({ id, actor: me, object: follow }),
  );
}

async function onFollow(c: Ctx, follow: Follow): Promise<void> {
  const deps = c.data;
  const store = deps.social.store;
  if (!follow.id || !follow.objectId) return;
  const target = localAccountByUri(deps, follow.objectId.href);
  const follower = await sender(c, follow);
  if (!target || !follower) return;
  if (store.relationships.blocking(target.id, follower.id) || target.suspendedAt !== null) {
    await answerFollow(c, 'reject', target, follower, follow.id.href);
    return;
  }
  const rel = store.relationships;
  if (rel.follow(follower.id, target.id)) {
    // Already following (their Accept got lost): answer again.
    await answerFollow(c, 'accept', target, follower, follow.id.href);
    return;
  }
  if (deps.social.remoteActivity.followedBy(follower, target, follow.id.href) === 'requested') return;
  await answerFollow(c, 'accept', target, follower, follow.id.href);
}

/** The local → remote follow an Accept or Reject answers: by the Follow's id, else by who follows whom. */
async function answeredFollow(c: Ctx, activity: Accept | Reject): Promise<{ local: Account; remote: Account } | null> {
  const deps = c.data;
  const remote = await sender(c, activity);
  if (!remote || !activity.objectId) return null;
  const known = deps.repo.followByUri(activity.objectId.href);
  if (known) {
    const local = deps.social.store.accounts.byId(known.accountId);
    return local && local.domain === null && known.targetId === remote.id ? { local, remote } : null;
  }
  const object = await activity.getObject().catch(() => null);
  if (!(object instanceof Follow) || !object.actorId || object.objectId?.href !== remote.uri) return null;
  const local = localAccountByUri(deps, object.actorId.href);
  return local ? { local, remote } : null;
}

async function onAccept(c: Ctx, accept: Accept): Promise<void> {
  if (await onQuoteAnswer(c, accept)) return;
  const found = await answeredFollow(c, accept);
  if (!found) return;
  c.data.social.remoteActivity.followAccepted(found.local, found.remote);
}

async function onReject(c: Ctx, reject: Reject): Promise<void> {
  if (await onQuoteAnswer(c, reject)) return;
  const found = await answeredFollow(c, reject);
  if (!found) return;
  c.data.social.remoteActivity.followRejected(found.local, found.remote);
}

async function onUndo(c: Ctx, undo: Undo): Promise<void> {
  const deps = c.data;
  const remote = await sender(c, undo);
  if (!remote) return;
  const object = await undo.getObject().catch(() => null);
  if (object instanceof Like || object instanceof EmojiReact) return undoLike(c, remote, object.objectId);
  // A reaction under a context that does not define EmojiReact (Pleroma, Akkoma) is taken back too.
  const reacted = await untypedReactionTarget(undo);
  if (reacted) return undoLike(c, remote, reacted);
  if (object instanceof Announce) return undoAnnounce(c, remote, object.id);
  if (object instanceof Block) return undoBlock(c, remote, object.objectId);
  const followUri = object instanceof Follow ? object.id?.href : undo.objectId?.href;
  const byUri = followUri ? deps.repo.followByUri(followUri) : null;
  let target: Account | null = null;
  if (byUri && byUri.accountId === remote.id) target = deps.social.store.accounts.byId(byUri.targetId);
  else if (object instanceof Follow && object.actorId?.href === remote.uri && object.objectId)
    target = localAccountByUri(deps, object.objectId.href);
  if (!target || target.domain !== null) return;
  deps.social.relationships.unfollow(remote, target);
}

/** Mastodon keeps a remote status only when someone here has a reason to see it. */
function relevant(deps: FedDeps, author: Account, object: StatusObject): boolean {
  return relevantStatus(
    deps,
    author,
    object.replyTargetId?.href ?? null,
    [...object.toIds, ...object.ccIds].map((u) => u.href),
  );
}

/** The same from the addresses: its author followed here, a reply to a post here, or addressed to someone here. */
export function relevantStatus(deps: FedDeps, author: Account, inReplyTo: string | null, addressed: string[]): boolean {
  if (deps.repo.hasLocalFollower(author.id)) return true;
  if (inReplyTo && localStatusId(deps, inReplyTo)) return true;
  return addressed.some((u) => localAccountByUri(deps, u) !== null);
}

/** A vote: a Note with a name and no content replying to a local poll (how Mastodon, Misskey and Akkoma vote). */
function votedPoll(deps: FedDeps, note: Note): string | null {
  if (!note.name || note.content?.toString().trim() || !note.replyTargetId) return null;
  const statusId = localStatusId(deps, note.replyTargetId.href);
  const status = statusId ? deps.social.store.statuses.byId(statusId) : null;
  return status && status.local && status.deletedAt === null ? status.pollId : null;
}

async function onCreate(c: Ctx, create: Create): Promise<void> {
  const author = await sender(c, create);
  if (!author) return;
  const object = await create.getObject().catch(() => null);
  const pollId = object instanceof Note ? votedPoll(c.data, object) : null;
  if (pollId) {
    c.data.social.polls.remoteVote(author, pollId, (object as Note).name!.toString().trim());
    return;
  }
  if (!isStatusObject(object) || !object.id || !relevant(c.data, author, object)) return;
  const uri = object.id.href;
  await oneObjectAtATime(c.data, uri, async () => {
    if (await deletedBeforeArrival(c.data, author, uri)) return;
    await createRemoteStatus(c, object, author, { embeddedIn: create });
  });
}

/** Its author deleted the post before it arrived (see inbound-tombstones.ts): it is not created. */
export async function deletedBeforeArrival(deps: FedDeps, author: Account, uri: string): Promise<boolean> {
  if (!(await deps.tombstones.deletedFirst(author.id, uri))) return false;
  deps.logger.info({ uri }, 'a post deleted before it arrived was not created');
  return true;
}

/** An Update of a post never seen creates it when it is this recent (Mastodon's bound: older ones are not news). */
const UPDATE_CREATES_WITHIN_MS = 3 * 24 * 60 * 60 * 1000;

async function onUpdate(c: Ctx, update: Update): Promise<void> {
  const author = await sender(c, update);
  if (!author) return;
  const object = await update.getObject().catch(() => null);
  if (isStatusObject(object)) {
    const uri = object.id?.href;
    if (!uri) return;
    // After any Create of the same post still in its listener (see oneObjectAtATime).
    await oneObjectAtATime(c.data, uri, async () => {
      if (c.data.repo.statusByUri(uri) || localStatusId(c.data, uri)) {
        const updated = await updateRemoteStatus(c, object, author, update);
        if (updated) await refreshIncomingQuote(c, object, author, updated, fetchQuotedStatus);
        return;
      }
      // The Update came before its Create (deliveries are not ordered): the post as it is now, as Mastodon does.
      const published = object.published?.epochMilliseconds ?? null;
      const recent = published === null || c.data.social.store.now() - published < UPDATE_CREATES_WITHIN_MS;
      if (recent && relevant(c.data, author, object) && !(await deletedBeforeArrival(c.data, author, uri)))
        await createRemoteStatus(c, object, author, { embeddedIn: update });
    });
  } else if (isActor(object) && object.id?.href === author.uri) {
    await syncFeatured(c, await persistActor(c.data, object));
  }
}

async function onDelete(c: Ctx, del: Delete): Promise<void> {
  const deps = c.data;
  if (!del.actorId || !del.objectId) return;
  // Mastodon ignores deletes of accounts it never knew (no fetch storm when a big server deletes someone).
  const author = deps.social.store.accounts.byUri(del.actorId.href);
  if (!author || author.domain === null) return;
  if (del.objectId.href === author.uri) {
    deps.social.remoteActivity.accountDeleted(author.id);
    deps.gone.actorGone(del.objectId.href);
    return;
  }
  // Not a status: perhaps a QuoteAuthorization stamp its author takes back.
  const uri = del.objectId.href;
  await oneObjectAtATime(deps, uri, async () => {
    if (deleteRemoteStatus(c, uri, author)) return;
    // A post of the author's server never seen here: perhaps its Create is still on the way (as Mastodon does).
    if (!deps.repo.statusByUri(uri) && safeUrl(uri)?.origin === safeUrl(author.uri)?.origin)
      await deps.tombstones.remember(author.id, uri);
    await revokeByStamp(c, uri, author);
  });
}

/**
 * A remote account moved (Mastodon's rule): the Move comes from the old account about itself, and the new
 * account, fetched afresh, names the old one in alsoKnownAs. Then followers here follow the new account.
 */
async function onMove(c: Ctx, move: Move): Promise<void> {
  const deps = c.data;
  const old = await sender(c, move);
  if (!old || !old.uri || move.objectId?.href !== old.uri || !move.targetId) return;
  const target = await freshAccountForActorId(c, move.targetId);
  if (!target || target.id === old.id) return;
  if (!target.alsoKnownAs.includes(old.uri)) {
    deps.logger.info(
      { from: old.uri, to: target.uri },
      'a Move was refused: the new account does not name the old one as an alias',
    );
    return;
  }
  if (deps.social.moves.remoteMoved(old, target))
    deps.logger.info({ from: old.uri, to: target.uri }, 'a followed account moved');
}

/** A listener whose refusals (RejectedDocument) are logged, not retried: the same document would fail again. */
function refusing<T>(listener: (c: Ctx, activity: T) => Promise<void>): (c: Ctx, activity: T) => Promise<void> {
  return async (c, activity) => {
    const id = (activity as { id?: URL | null }).id?.href ?? null;
    const actorHost = (activity as { actorId?: URL | null }).actorId?.hostname;
    if (actorHost && refusedByDomainPolicy(c.data, actorHost, id, activity instanceof Flag)) return;
    await refusalsLogged(c.data, id, () => listener(c, activity));
  };
}

/** The server's domain policy first: nothing from refused domains, no reports where reports are refused. */
export function refusedByDomainPolicy(deps: FedDeps, actorHost: string, activityId: string | null, report: boolean) {
  const policy = deps.social.moderation.domainPolicy(actorHost);
  if (!policy.refused && !(report && policy.rejectReports)) return false;
  deps.logger.info({ domain: actorHost, activity: activityId }, 'an inbox activity from a blocked domain was dropped');
  return true;
}

/** Runs a listener; its refusal (RejectedDocument) is logged, not retried: the same document would fail again. */
export async function refusalsLogged(deps: FedDeps, activityId: string | null, listen: () => Promise<void>) {
  try {
    await listen();
  } catch (err) {
    if (!(err instanceof RejectedDocument)) throw err;
    deps.logger.info({ reason: err.message, activity: activityId }, 'an inbox activity was refused');
  }
}

/**
 * An account deleted on its server signs its Delete with a key nobody can fetch any more: its actor answers
 * 410 Gone. That answer, from the account's own server, is the proof (Mastodon treats it the same way): the
 * account is forgotten here. The inbox intake finds most of these before Fedify (see InboxIntake.verify).
 */
export function forgetGoneActor(deps: FedDeps, actorId: URL): void {
  deps.gone.actorGone(actorId.href);
  const account = deps.social.store.accounts.byUri(actorId.href);
  if (account && account.domain !== null && !deps.social.moderation.domainPolicy(actorId.hostname).refused) {
    deps.social.remoteActivity.accountDeleted(account.id);
    deps.logger.info({ actor: actorId.href }, 'a remote account was deleted on its server');
  }
}

/**
 * The same, for a request the intake let through with a key it still had but Fedify could no longer fetch.
 * Any other unverified activity keeps Fedify's 401.
 */
async function deletedActorGone(
  c: RequestContext<FedDeps>,
  activity: Activity,
  reason: UnverifiedActivityReason,
): Promise<Response | void> {
  if (!(activity instanceof Delete) || !activity.actorId || activity.objectId?.href !== activity.actorId.href) return;
  if (reason.type !== 'keyFetchError' || !('status' in reason.result) || reason.result.status !== 410) return;
  if (reason.keyId.origin !== activity.actorId.origin) return;
  forgetGoneActor(c.data, activity.actorId);
  return new Response(null, { status: 202 });
}

/** Inbox listeners (personal inboxes and the shared one); signatures are verified by Fedify before any runs. */
export function registerInbox(federation: Fed): void {
  federation
    .setInboxListeners('/users/{identifier}/inbox', '/inbox')
    .setSharedKeyDispatcher(() => ({ identifier: INSTANCE_ACTOR }))
    .on(Follow, refusing(onFollow))
    .on(Accept, refusing(onAccept))
    .on(Reject, refusing(onReject))
    .on(Undo, refusing(onUndo))
    .on(Create, refusing(onCreate))
    .on(Update, refusing(onUpdate))
    .on(Delete, refusing(onDelete))
    .on(Like, refusing(onLike))
    .on(EmojiReact, refusing(onLike))
    .on(Announce, refusing(onAnnounce))
    .on(Block, refusing(onBlock))
    .on(Flag, refusing(onFlag))
    .on(Move, refusing(onMove))
    .on(QuoteRequest, refusing(answerQuoteRequest))
    .on(
      Add,
      refusing((c, add: Add) => onFeaturedChange(c, add, true)),
    )
    .on(
      Remove,
      refusing((c, remove: Remove) => onFeaturedChange(c, remove, false)),
    )
    // Any other activity (the types above are matched first): an emoji reaction Fedify could not type.
    .on(Activity, refusing(onUntypedActivity))
    .onUnverifiedActivity(deletedActorGone)
    .onError((c, error) => c.data.logger.warn({ err: error }, 'an inbox activity could not be handled'));
}
