import { InteractionPolicy, InteractionRule, PUBLIC_COLLECTION, QuoteAuthorization, Tombstone } from '@fedify/vocab';
import type { Account, QuotePolicy, QuoteRow, StatusRow } from '../store/index.ts';
import { localAccount, type Fed, type FedContext, type FedDeps } from './deps.ts';
import { actorUri, localApprovalUri, statusUri } from './uris.ts';

/*
 * The outgoing side of quote posts as Mastodon 4.5 federates them (FEP-044f): what a Note says about the
 * post it quotes and about who may quote it, and the QuoteAuthorization stamps this server grants, each at
 * its own dereferenceable URL so that third servers can check a quote was allowed.
 */

/** Private and direct posts can never be quoted by others, whatever their stored policy says. */
export function effectiveQuotePolicy(status: StatusRow): QuotePolicy {
  return status.visibility === 'private' || status.visibility === 'direct' ? 'nobody' : status.quoteApprovalPolicy;
}

/**
 * The stamp that shows a quote was allowed: ours for an accepted quote of a local post, the remote one it
 * arrived with otherwise; null while nobody approved it.
 */
export function approvalUriOf(deps: FedDeps, quote: QuoteRow): string | null {
  const quotedAuthor = quote.quotedAccountId ? deps.social.store.accounts.byId(quote.quotedAccountId) : null;
  if (quotedAuthor && quotedAuthor.domain === null)
    return quote.state === 'accepted' ? localApprovalUri(deps, quotedAuthor, quote) : null;
  return quote.state === 'accepted' ? quote.approvalUri : null;
}

/**
 * `interactionPolicy.canQuote` of a local post: only automatic approval, as Mastodon sends it (the public
 * collection, the author's followers, or the author alone when nobody else may quote).
 */
export function quoteInteractionPolicy(c: FedContext, status: StatusRow, author: Account): InteractionPolicy {
  const policy = effectiveQuotePolicy(status);
  const approved =
    policy === 'public'
      ? [PUBLIC_COLLECTION]
      : policy === 'followers'
        ? [c.getFollowersUri(author.username)]
        : [c.getActorUri(author.username)];
  return new InteractionPolicy({ canQuote: new InteractionRule({ automaticApprovals: approved }) });
}

/**
 * Mastodon's fallback for servers that do not show quotes: a `RE: <link>` paragraph before the text, with the
 * `quote-inline` class that quote-aware clients hide. Left out when the text links the quoted post already.
 */
export function withQuoteFallback(content: string, quotedUrl: string): string {
  if (content.includes(quotedUrl)) return content;
  const href = escapeAttribute(quotedUrl);
  return `<p class="quote-inline">RE: <a href="${href}">${href}</a></p>${content}`;
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export interface NoteQuoteValues {
  /** FEP-044f `quote` (a Tombstone when the quoted post is gone), with `quoteUrl`, `_misskey_quote` and `quoteUri`. */
  quote: URL | Tombstone;
  quoteUrl: URL | null;
  quoteAuthorization: URL | null;
  /** The quoted post's link for the text fallback. */
  fallbackUrl: string | null;
}

/** What a local status's Note says about the post it quotes; null when it quotes none. */
export function noteQuoteValues(deps: FedDeps, status: StatusRow): NoteQuoteValues | null {
  const store = deps.social.store;
  const quote = store.quotes.ofStatus(status.id);
  if (!quote) return null;
  const quoted = quote.quotedStatusId ? store.statuses.byId(quote.quotedStatusId) : null;
  const approval = approvalUriOf(deps, quote);
  if (!quoted || quoted.deletedAt !== null)
    return {
      quote: new Tombstone({}),
      quoteUrl: null,
      quoteAuthorization: approval ? new URL(approval) : null,
      fallbackUrl: null,
    };
  const uri = new URL(statusUri(deps, quoted));
  const quotedAuthor = store.accounts.byId(quoted.accountId);
  const fallbackUrl =
    quoted.url ??
    (quoted.local && quotedAuthor ? deps.social.urls.statusUrl(quotedAuthor.username, quoted.id) : uri.href);
  return { quote: uri, quoteUrl: uri, quoteAuthorization: approval ? new URL(approval) : null, fallbackUrl };
}

/** The stamps of quotes of local posts, served while the quote stands accepted (gone once revoked). */
export function registerQuoteAuthorizations(federation: Fed): void {
  federation.setObjectDispatcher(
    QuoteAuthorization,
    '/users/{identifier}/quote_authorizations/{id}',
    (c, { identifier, id }) => {
      const deps = c.data;
      const store = deps.social.store;
      const author = localAccount(deps, identifier);
      const quote = author && /^\d+$/.test(id) ? store.quotes.byId(id) : null;
      if (
        !author ||
        !quote ||
        quote.state !== 'accepted' ||
        quote.quotedAccountId !== author.id ||
        !quote.quotedStatusId
      )
        return null;
      const quoting = store.statuses.byId(quote.statusId);
      const quoted = store.statuses.byId(quote.quotedStatusId);
      if (!quoting || !quoted || quoting.deletedAt !== null || quoted.deletedAt !== null) return null;
      return quoteAuthorizationOf(deps, author, quote, quoting, quoted);
    },
  );
}

/** The stamp a local author granted for `quote` (`quoting` quoting their `quoted`), as it is served and deleted. */
export function quoteAuthorizationOf(
  deps: FedDeps,
  author: Account,
  quote: QuoteRow,
  quoting: StatusRow,
  quoted: StatusRow,
): QuoteAuthorization {
  return new QuoteAuthorization({
    id: new URL(localApprovalUri(deps, author, quote)),
    attribution: new URL(actorUri(deps, author)),
    interactingObject: new URL(statusUri(deps, quoting)),
    interactionTarget: new URL(statusUri(deps, quoted, author)),
  });
}
