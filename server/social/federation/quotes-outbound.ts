import { Delete, PUBLIC_COLLECTION, QuoteRequest, type Activity, type Recipient } from '@fedify/vocab';
import type { Account, StatusRow } from '../store/index.ts';
import type { FedContext, FedDeps } from './deps.ts';
import { noteOf } from './objects.ts';
import { quoteAuthorizationOf } from './quote-objects.ts';
import { actorUri, statusUri } from './uris.ts';
import { quoteRequestUri } from './quote-requests.ts';
import { recipientOf } from './remote.ts';
import type { RemoteRecipient } from '../store/index.ts';

type Send = (from: Account, recipients: Recipient[], activity: Activity) => Promise<void>;
type Recipients = (list: RemoteRecipient[]) => Recipient[];

/**
 * Outgoing activities of quote posts (FEP-044f, as Mastodon 4.5): a QuoteRequest to the author of a remote
 * post a local user quoted, and the Delete of a stamp when a local author revokes a quote made elsewhere.
 * Queued through Outbound (which tracks and delivers them).
 */
export class QuoteOutbound {
  private readonly deps: FedDeps;
  private readonly context: () => FedContext;
  private readonly send: Send;
  private readonly recipients: Recipients;

  constructor(deps: FedDeps, context: () => FedContext, send: Send, recipients: Recipients) {
    this.deps = deps;
    this.context = context;
    this.send = send;
    this.recipients = recipients;
  }

  /**
   * A new local status quoting a remote post waits for its author: QuoteRequest with the quoted post as
   * `object` and the quote as `instrument` (embedded when public, as Mastodon does, so no fetch is needed).
   */
  async statusCreated(status: StatusRow): Promise<void> {
    const store = this.deps.social.store;
    if (!status.local || status.reblogOfId !== null) return;
    const quote = store.quotes.ofStatus(status.id);
    const quoted = quote?.quotedStatusId ? store.statuses.byId(quote.quotedStatusId) : null;
    const quotedAuthor = quoted ? store.accounts.byId(quoted.accountId) : null;
    const author = store.accounts.byId(status.accountId);
    if (quote?.state !== 'pending' || !quoted?.uri || !quotedAuthor?.uri || quotedAuthor.domain === null || !author)
      return;
    const c = this.context();
    const id = quoteRequestUri(c, status, quote);
    store.quotes.setActivityUri(quote, id.href);
    const note = status.visibility === 'public' || status.visibility === 'unlisted' ? noteOf(c, status) : null;
    const request = new QuoteRequest({
      id,
      actor: new URL(actorUri(this.deps, author)),
      object: new URL(quoted.uri),
      instrument: note ?? new URL(statusUri(this.deps, status, author)),
    });
    await this.send(author, [recipientOf(quotedAuthor)], request);
  }

  /**
   * A local author revoked a quote of their post: Delete of its stamp (the QuoteAuthorization embedded, signed
   * so it can be passed on), as Mastodon's RevokeQuoteService sends it: to every server either post reached or
   * that took it up (StatusReachFinder, `unsafe`), the quoting author's among them. Its server passes it on to
   * the followers this server does not know (forwardRevocation). Nothing when the quoted post is gone: its
   * Delete went out.
   */
  async quoteRevoked(quoteId: string): Promise<void> {
    const store = this.deps.social.store;
    const quote = store.quotes.byId(quoteId);
    const author = quote?.quotedAccountId ? store.accounts.byId(quote.quotedAccountId) : null;
    const quoting = quote ? store.statuses.byId(quote.statusId) : null;
    const quoted = quote?.quotedStatusId ? store.statuses.byId(quote.quotedStatusId) : null;
    if (
      !quote ||
      !author ||
      author.domain !== null ||
      author.deletedAt !== null ||
      !quoting ||
      !quoted ||
      quoted.deletedAt !== null
    )
      return;
    const recipients = this.recipients([
      ...this.deps.repo.statusReach(quoting.id),
      ...this.deps.repo.statusReach(quoted.id),
    ]);
    const stamp = quoteAuthorizationOf(this.deps, author, quote, quoting, quoted);
    await this.send(
      author,
      recipients,
      new Delete({
        id: new URL(`${stamp.id!.href}#delete`),
        actor: stamp.attributionId,
        object: stamp,
        tos: [PUBLIC_COLLECTION],
      }),
    );
  }
}
