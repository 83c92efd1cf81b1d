import type { Account, QuoteRow, StatusRow } from '../store/index.ts';
import type { FedDeps } from './deps.ts';

/* The ActivityPub ids federation builds, in one module that everything else of federation/ may import. */

/** The ActivityPub id of any status: a remote one keeps its own, a local one derives from our URL. */
export function statusUri(deps: Pick<FedDeps, 'social'>, status: StatusRow, author?: Account | null): string {
  if (status.uri) return status.uri;
  const account = author ?? deps.social.store.accounts.byId(status.accountId);
  return deps.social.urls.statusUri(account?.username ?? 'unknown', status.id);
}

/** An account's actor id (ours derived from the URL, remote ones as stored). */
export function actorUri(deps: FedDeps, account: Account): string {
  return account.uri ?? deps.social.urls.accountUri(account.username);
}

/** Where the stamp of a quote of a local post lives (Mastodon's /users/:name/quote_authorizations/:id). */
export function localApprovalUri(deps: FedDeps, quotedAuthor: Account, quote: QuoteRow): string {
  return `${deps.social.urls.accountUri(quotedAuthor.username)}/quote_authorizations/${quote.id}`;
}
