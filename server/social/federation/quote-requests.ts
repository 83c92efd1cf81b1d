import type { InboxContext } from '@fedify/fedify';
import { Accept, QuoteRequest, Reject } from '@fedify/vocab';
import type { Account, QuoteRow, StatusRow } from '../store/index.ts';
import { localStatusId, safeUrl, type FedContext, type FedDeps } from './deps.ts';
import { refuseToFetch } from './inbound-limits.ts';
import { actorUri, localApprovalUri, statusUri } from './uris.ts';
import { accountForActorId, recipientOf, recipientsOf } from './remote.ts';
import { createRemoteStatus, fetchQuotedStatus, isStatusObject } from './statuses-inbound.ts';
import { refreshIncomingQuote } from './quotes-inbound.ts';
import { fetchObject } from './lookup.ts';

/*
 * The approval flow of FEP-044f as Mastodon 4.5 runs it. A remote server asks to quote one of our posts
 * (QuoteRequest): it is answered at once by the post's policy, with an Accept carrying the address of the
 * QuoteAuthorization stamp, or a Reject. Answers to our own requests set our quotes accepted or rejected, and
 * a Delete of a stamp we hold revokes the quote it approved.
 */

/** A remote account behind an activity's actor; null for unknown or local actors. */
async function remoteSender(c: FedContext, actorId: URL | null): Promise<Account | null> {
  const account = actorId ? await accountForActorId(c, actorId) : null;
  return account && account.domain !== null && account.uri ? account : null;
}

/** The status a QuoteRequest offers as the quote: known here, embedded in the request, or fetched. */
async function requestedQuotingStatus(
  c: FedContext,
  request: QuoteRequest,
  requester: Account,
): Promise<StatusRow | null> {
  const deps = c.data;
  const store = deps.social.store;
  const uri = request.instrumentId;
  if (!uri || uri.origin !== new URL(requester.uri!).origin) return null;
  const known = deps.repo.statusByUri(uri.href);
  // Mastodon embeds public posts; others are fetched from their server (signed, so followers-only ones load too).
  const embedded = await request.getInstrument({ documentLoader: refuseToFetch }).catch(() => null);
  if (known) {
    const status = store.statuses.byId(known);
    // Hollo leaves a pending quote out of its Create, so the copy stored from it quotes nothing: the request's
    // own copy of the post (same id, from the requester's server) says what it quotes.
    if (
      status?.accountId === requester.id &&
      !store.quotes.ofStatus(status.id) &&
      isStatusObject(embedded) &&
      embedded.id?.href === uri.href
    )
      await refreshIncomingQuote(c, embedded, requester, status, fetchQuotedStatus);
    return status;
  }
  const object = isStatusObject(embedded) ? embedded : await fetchObject(c, uri).catch(() => null);
  if (!isStatusObject(object) || object.id?.href !== uri.href) return null;
  return createRemoteStatus(c, object, requester, object === embedded ? { embeddedIn: request } : {}).catch(() => null);
}

/**
 * A remote server asks to quote a post of ours. Accepted when the post's policy lets the requester quote it
 * (the same rule local quotes follow), rejected otherwise; the quoted author is notified of accepted quotes.
 */
export async function answerQuoteRequest(c: FedContext, request: QuoteRequest): Promise<void> {
  const deps = c.data;
  const store = deps.social.store;
  const requester = await remoteSender(c, request.actorId);
  if (!requester || !request.id || request.id.origin !== new URL(requester.uri!).origin || !request.objectId) return;
  const quotedId = localStatusId(deps, request.objectId.href);
  const quoted = quotedId ? store.statuses.byId(quotedId) : null;
  const author = quoted ? store.accounts.byId(quoted.accountId) : null;
  if (!quoted || !author || author.domain !== null || quoted.reblogOfId !== null || quoted.deletedAt !== null) return;
  let allowed = true;
  try {
    deps.social.statuses.quoteTarget(requester, quoted.id);
  } catch {
    allowed = false;
  }
  const quoting = allowed ? await requestedQuotingStatus(c, request, requester) : null;
  const quote = quoting ? store.quotes.ofStatus(quoting.id) : null;
  // The offered post must be the requester's and quote this very post.
  if (!quoting || quoting.accountId !== requester.id || !quote || quote.quotedStatusId !== quoted.id) {
    if (quote && quote.quotedStatusId === quoted.id) store.quotes.setState(quote, 'rejected');
    await sendAnswer(c, 'reject', author, requester, request, null);
    return;
  }
  deps.social.remoteActivity.quoteRequestAccepted(
    quote,
    quoting,
    { authorId: author.id, requesterId: requester.id },
    request.id!.href,
  );
  await sendAnswer(c, 'accept', author, requester, request, store.quotes.byId(quote.id));
}

/** Accept (with the stamp's address as `result`) or Reject, embedding the request as Mastodon does. */
async function sendAnswer(
  c: FedContext,
  kind: 'accept' | 'reject',
  author: Account,
  requester: Account,
  request: QuoteRequest,
  quote: QuoteRow | null,
): Promise<void> {
  const deps = c.data;
  const me = new URL(actorUri(deps, author));
  const embedded = new QuoteRequest({
    id: request.id,
    actor: request.actorId,
    object: request.objectId,
    instrument: request.instrumentId,
  });
  const id = new URL(`${me.href}#${kind}s/quote_requests/${deps.social.store.core.ids.next()}`);
  const answer =
    kind === 'accept' && quote
      ? new Accept({ id, actor: me, object: embedded, result: new URL(localApprovalUri(deps, author, quote)) })
      : new Reject({ id, actor: me, object: embedded });
  await c.sendActivity({ identifier: author.username }, recipientOf(requester), answer);
}

/** The quote of ours an Accept or Reject answers: by the request's id, else by the embedded request's instrument. */
async function answeredQuote(c: FedContext, answer: Accept | Reject): Promise<QuoteRow | null> {
  const deps = c.data;
  const store = deps.social.store;
  const byId = answer.objectId ? store.quotes.byActivityUri(answer.objectId.href) : null;
  if (byId) return byId;
  const embedded = await answer.getObject({ documentLoader: refuseToFetch }).catch(() => null);
  if (!(embedded instanceof QuoteRequest) || !embedded.instrumentId) return null;
  const statusId = localStatusId(deps, embedded.instrumentId.href);
  return statusId ? store.quotes.ofStatus(statusId) : null;
}

/**
 * An Accept or Reject of a QuoteRequest we sent; false when the activity is about something else (a follow).
 * Only the quoted author may answer, and only a quote still waiting (Mastodon's rule) is changed; an accepted
 * quote is sent again to followers' servers with its stamp.
 */
export async function onQuoteAnswer(c: FedContext, answer: Accept | Reject): Promise<boolean> {
  const deps = c.data;
  const store = deps.social.store;
  const quote = await answeredQuote(c, answer);
  if (!quote) return false;
  const author = await remoteSender(c, answer.actorId);
  const quoting = store.statuses.byId(quote.statusId);
  if (!author || quote.quotedAccountId !== author.id || !quoting?.local) return true;
  if (answer instanceof Reject) {
    if (quote.state === 'pending' || quote.state === 'accepted')
      store.quotes.setState(quote, quote.state === 'accepted' ? 'revoked' : 'rejected', null);
    return true;
  }
  const stamp = answer.resultId;
  if (quote.state !== 'pending' || !stamp || stamp.origin !== new URL(author.uri!).origin) return true;
  deps.social.remoteActivity.quoteApproved(quote, stamp.href);
  return true;
}

/**
 * A Delete of a stamp: the quoted author revoked the quote it approved (Mastodon's `reject!`: accepted becomes
 * revoked, pending rejected), and the Delete is passed on (forwardRevocation). Returns whether the Delete was one.
 */
export async function revokeByStamp(c: InboxContext<FedDeps>, uri: string, author: Account): Promise<boolean> {
  const store = c.data.social.store;
  if (!safeUrl(uri)) return false;
  const quote = store.quotes.byApprovalUri(uri, author.id);
  if (!quote || (quote.state !== 'accepted' && quote.state !== 'pending')) return false;
  c.data.social.remoteActivity.quoteStampDeleted(quote);
  await forwardRevocation(c, quote, author);
  return true;
}

/**
 * Passes the quoted author's Delete of a stamp on, unchanged (its signature vouches for it), as Mastodon's
 * Forwarder does: to the followers of local accounts that boosted the quoting post and of the local author it
 * replies to, signed as the latter or the first booster. When the quoting post is ours, also to every server it
 * reached (StatusReachFinder, where the quoted author's server would have sent it had it known them): its
 * author's followers are known only here and would otherwise go on showing the quote as approved. Never back
 * to the sender's server; a Delete without signatures is not passed on, as nobody could believe it.
 */
async function forwardRevocation(c: InboxContext<FedDeps>, quote: QuoteRow, sender: Account): Promise<void> {
  const deps = c.data;
  const store = deps.social.store;
  const quoting = store.statuses.byId(quote.statusId);
  if (!quoting || quoting.deletedAt !== null || !sender.uri) return;
  const repliedTo = quoting.inReplyToAccountId ? store.accounts.byId(quoting.inReplyToAccountId) : null;
  const threadAuthor = repliedTo?.domain === null ? repliedTo : null;
  const boosters = store.interactions.localRebloggers(quoting.id);
  const signerId = threadAuthor?.id ?? boosters[0] ?? (quoting.local ? quoting.accountId : null);
  const signer = signerId ? store.accounts.byId(signerId) : null;
  if (!signer || signer.domain !== null || signer.deletedAt !== null) return;
  const list = [...boosters, ...(threadAuthor ? [threadAuthor.id] : [])].flatMap((id) => deps.repo.remoteFollowers(id));
  if (quoting.local) list.push(...deps.repo.statusReach(quoting.id));
  const senderHost = new URL(sender.uri).hostname;
  const recipients = recipientsOf(list).filter((r) => {
    const host = (r.inboxId ?? r.id)?.hostname;
    return host !== undefined && host !== senderHost && !deps.social.moderation.domainPolicy(host).refused;
  });
  if (recipients.length === 0) return;
  await c.forwardActivity({ identifier: signer.username }, recipients, {
    skipIfUnsigned: true,
    preferSharedInbox: true,
  });
}

/** The id a QuoteRequest of ours gets: under the quoting status, one per quote. */
export function quoteRequestUri(c: FedContext, quoting: StatusRow, quote: QuoteRow): URL {
  return new URL(`${statusUri(c.data, quoting)}#quote_requests/${quote.id}`);
}
