import { AsyncLocalStorage } from 'node:async_hooks';
import { Article, Note, type Object as APObject, PUBLIC_COLLECTION, Question, QuoteAuthorization } from '@fedify/vocab';
import type { StatedQuote } from '../domain/index.ts';
import type { Account, QuotePolicy, QuoteRow, QuoteState, StatusRow } from '../store/index.ts';
import { localStatusId, safeUrl, type FedContext, type FedDeps } from './deps.ts';
import { fetchObject } from './lookup.ts';
import { localApprovalUri, statusUri } from './uris.ts';

/*
 * Quotes in statuses other servers send, read as Mastodon 4.5 reads them (FEP-044f): a quote is accepted
 * when its author quotes themselves or when the `quoteAuthorization` stamp, fetched from the quoted author's
 * server (or checked here when the quoted post is ours), names this very quote; otherwise it stays pending.
 * Quotes that arrive without the `quote` property (Misskey's `_misskey_quote`, Akkoma's `quoteUrl`) are
 * "legacy": never approved, so never shown as quotes; their text keeps the `RE:` link their server wrote.
 */

/** How deep a chain of quoted posts is fetched while one post arrives (Mastodon stops at two as well). */
const MAX_QUOTE_FETCH_DEPTH = 2;
const quoteFetchDepth = new AsyncLocalStorage<number>();

/**
 * Fetches a remote status by its id and stores it quietly, or null. Inbound statuses hand theirs in
 * (statuses-inbound's fetchQuotedStatus): they call inbound quotes, never the reverse.
 */
export type FetchRemoteStatus = (c: FedContext, uri: string) => Promise<StatusRow | null>;

const PUBLIC_IDS = new Set([PUBLIC_COLLECTION.href, 'as:Public', 'Public']);

/** A quote as a remote post states it. */
export type IncomingQuote = StatedQuote;

/** What a remote status says about quotes: who may quote it, and what it quotes. */
export interface IncomingQuoteInfo {
  policy: QuotePolicy;
  quote: IncomingQuote | null;
}

/**
 * Who may quote a remote post, from `interactionPolicy.canQuote.automaticApproval`: anyone (the public
 * collection), the author's followers, or nobody else. A post without a policy (a server that knows nothing of
 * quotes) cannot be quoted, as in Mastodon; manual approval is not offered here, so it counts as nobody.
 */
export function remoteQuotePolicy(object: APObject, author: Account): QuotePolicy {
  return quotePolicyOf(
    (object.interactionPolicy?.canQuote?.automaticApprovals ?? []).map((u) => u.href),
    author,
  );
}

/** The same from the addresses a post approves automatically (as the verifier's worker reads a plain Note). */
export function quotePolicyOf(approved: string[], author: Account): QuotePolicy {
  if (approved.some((u) => PUBLIC_IDS.has(u))) return 'public';
  if (author.followersUrl && approved.includes(author.followersUrl)) return 'followers';
  return 'nobody';
}

/** The status behind a quoted id: ours, known, or fetched from its server (a limited depth of quotes of quotes). */
async function quotedStatusFor(c: FedContext, uri: string, fetch: FetchRemoteStatus): Promise<StatusRow | null> {
  const deps = c.data;
  const store = deps.social.store;
  const known = localStatusId(deps, uri) ?? deps.repo.statusByUri(uri);
  if (known) {
    const status = store.statuses.byId(known);
    return status && status.deletedAt === null && status.reblogOfId === null ? status : null;
  }
  const depth = quoteFetchDepth.getStore() ?? 0;
  const host = safeUrl(uri)?.hostname;
  // Posts on servers the domain policy refuses are not fetched.
  if (depth >= MAX_QUOTE_FETCH_DEPTH || !host || deps.social.moderation.domainPolicy(host).refused) return null;
  return quoteFetchDepth.run(depth + 1, () => fetch(c, uri));
}

/** Whether a stamp of ours approves `quotingUri` quoting `quoted`: an accepted quote of ours at that address. */
function ourStampApproves(deps: FedDeps, approvalUri: string, quotingUri: string, quoted: StatusRow): boolean {
  const store = deps.social.store;
  const author = store.accounts.byId(quoted.accountId);
  const id = /\/quote_authorizations\/(\d+)$/.exec(safeUrl(approvalUri)?.pathname ?? '')?.[1];
  const quote = author && id ? store.quotes.byId(id) : null;
  if (!author || !quote || localApprovalUri(deps, author, quote) !== approvalUri) return false;
  const quoting = store.statuses.byId(quote.statusId);
  return quote.state === 'accepted' && quote.quotedStatusId === quoted.id && quoting?.uri === quotingUri;
}

/**
 * Verifies a remote stamp (Mastodon's VerifyQuoteService): it lives on the quoted author's server, is a
 * QuoteAuthorization attributed to that author, and names this quote and the quoted post.
 */
async function remoteStampApproves(
  c: FedContext,
  approvalUri: string,
  quotingUri: string,
  quoted: StatusRow,
): Promise<boolean> {
  const author = c.data.social.store.accounts.byId(quoted.accountId);
  const approval = safeUrl(approvalUri);
  if (!author?.uri || !approval || approval.origin !== new URL(author.uri).origin) return false;
  const stamp = await fetchObject(c, approval).catch(() => null);
  if (!(stamp instanceof QuoteAuthorization)) return false;
  return (
    stamp.attributionId?.href === author.uri &&
    stamp.interactingObjectId?.href === quotingUri &&
    stamp.interactionTargetId?.href === statusUri(c.data, quoted)
  );
}

/**
 * Reads the quote policy and the quote of a remote status before it is stored (fetching what it quotes and
 * checking its stamp take requests). Null when the status is known already: it is not created again.
 */
export async function readIncomingQuote(
  c: FedContext,
  object: APObject,
  author: Account,
  fetch: FetchRemoteStatus,
): Promise<IncomingQuoteInfo | null> {
  if (!object.id || c.data.repo.statusByUri(object.id.href)) return null;
  return incomingQuoteInfo(c, object, author, fetch);
}

async function incomingQuoteInfo(
  c: FedContext,
  object: APObject,
  author: Account,
  fetch: FetchRemoteStatus,
): Promise<IncomingQuoteInfo> {
  const policy = remoteQuotePolicy(object, author);
  const quotable = object instanceof Note || object instanceof Question || object instanceof Article ? object : null;
  const quotedId = quotable ? (quotable.quoteId ?? quotable.quoteUrl) : null;
  // A post naming itself (or no post) quotes nothing.
  if (!quotable || !quotedId || !object.id || quotedId.href === object.id.href) return { policy, quote: null };
  const legacy = quotable.quoteId === null;
  const quotedStatus = await quotedStatusFor(c, quotedId.href, fetch);
  const approvalUri = quotable.quoteAuthorizationId?.href ?? null;
  let state: QuoteState = 'pending';
  if (quotedStatus && quotedStatus.accountId === author.id) state = 'accepted';
  else if (quotedStatus && approvalUri) {
    const approved = quotedStatus.local
      ? ourStampApproves(c.data, approvalUri, object.id.href, quotedStatus)
      : await remoteStampApproves(c, approvalUri, object.id.href, quotedStatus);
    if (approved) state = 'accepted';
  }
  return { policy, quote: { quotedStatus, state, approvalUri: state === 'accepted' ? approvalUri : null, legacy } };
}

/** Stores the quote readIncomingQuote found for a newly created remote status (inside its transaction; its policy went into the status's insert). */
export function applyIncomingQuote(deps: FedDeps, statusId: string, info: IncomingQuoteInfo | null): void {
  const q = info?.quote;
  const store = deps.social.store;
  if (q)
    store.quotes.insert(statusId, q.quotedStatus?.id ?? null, q.quotedStatus?.accountId ?? null, q.state, {
      approvalUri: q.approvalUri,
      legacy: q.legacy,
    });
}

/**
 * An Update of a remote status: its policy and quote read again. A quote of one of our posts keeps the state
 * decided here (by its QuoteRequest or a revocation); another server's stamp is checked again when it changed.
 */
export async function refreshIncomingQuote(
  c: FedContext,
  object: APObject,
  author: Account,
  status: StatusRow,
  fetch: FetchRemoteStatus,
): Promise<void> {
  const deps = c.data;
  const info = await incomingQuoteInfo(c, object, author, fetch);
  deps.social.remoteActivity.quotesStated(status, info, stampChanged);
}

/** Whether an Update brings a different approval than the one stored (ours are never replaced by theirs). */
function stampChanged(current: QuoteRow, next: IncomingQuote): boolean {
  const ours = next.quotedStatus?.local ?? false;
  if (ours) return current.state === 'pending' && next.state === 'accepted';
  return current.approvalUri !== next.approvalUri;
}
