import {
  Add,
  Announce,
  Create,
  Delete,
  Flag,
  Like,
  Note,
  PUBLIC_COLLECTION,
  Remove,
  Tombstone,
  Undo,
  type Activity,
  type Recipient,
} from '@fedify/vocab';
import type { Account, StatusRow } from '../store/index.ts';
import type { SocialEventMap, SocialEvents } from '../events.ts';
import { INSTANCE_ACTOR, type FedContext, type FedDeps } from './deps.ts';
import { MastodonUpdate } from './attachments.ts';
import { createOf, noteOf } from './objects.ts';
import { actorUri, statusUri } from './uris.ts';
import { QuoteOutbound } from './quotes-outbound.ts';
import { ActorOutbound } from './actor-outbound.ts';
import { RelationshipOutbound } from './relationship-outbound.ts';
import { localAccount, remoteAccount, type Send } from './outbound-support.ts';
import { recipientOf, recipientsOf } from './remote.ts';
import type { RemoteRecipient } from '../store/index.ts';

/**
 * Outgoing activities, driven by the social domain events (delivered after the write commits): follows and
 * their answers, statuses created, edited and deleted, reblogs, profile changes. Everything goes through
 * Fedify's queue (persistent, retried), to shared inboxes where a server has one.
 */
export class Outbound {
  private readonly deps: FedDeps;
  private readonly context: () => FedContext;
  private readonly pending = new Set<Promise<void>>();
  private readonly quotes: QuoteOutbound;
  private readonly relationships: RelationshipOutbound;
  private readonly actors: ActorOutbound;

  constructor(deps: FedDeps, context: () => FedContext) {
    this.deps = deps;
    this.context = context;
    this.quotes = new QuoteOutbound(
      deps,
      context,
      (from, recipients, activity) => this.send(from, recipients, activity),
      (list) => this.recipients(list),
    );
    const send: Send = (from, recipients, activity) => this.send(from, recipients, activity);
    this.relationships = new RelationshipOutbound(deps, context, send);
    this.actors = new ActorOutbound(deps, context, send);
  }

  /** Subscribes to the bus (index.ts hands it the events that came before Fedify loaded, then the rest); returns the unsubscribe function. */
  listen(events: Pick<SocialEvents, 'on'> = this.deps.social.events): () => void {
    const offs = [
      events.on('relationship.changed', (e) => this.track(this.relationships.changed(e))),
      events.on('status.created', (e) => {
        this.track(this.statusCreated(e.status));
        this.track(this.quotes.statusCreated(e.status));
      }),
      events.on('quote.revoked', (e) => this.track(this.quotes.quoteRevoked(e.quoteId))),
      events.on('status.updated', (e) => {
        if (!e.unfederated) this.track(this.statusUpdated(e.status));
      }),
      events.on('status.deleted', (e) => this.track(this.statusDeleted(e.status))),
      events.on('account.updated', (e) => this.track(this.actors.updated(e.accountId))),
      events.on('account.moved', (e) => this.track(this.actors.moved(e.accountId, e.targetAccountId))),
      events.on('account.deleted', (e) => this.track(this.actors.deleted(e.accountId))),
      events.on('poll.voted', (e) => this.track(this.pollVoted(e))),
      events.on('status.pinned', (e) => this.track(this.featuredChanged(e.accountId, e.statusId, true))),
      events.on('status.unpinned', (e) => this.track(this.featuredChanged(e.accountId, e.statusId, false))),
      events.on('status.favourited', (e) => this.track(this.favourite(e.accountId, e.statusId, true))),
      events.on('status.unfavourited', (e) => this.track(this.favourite(e.accountId, e.statusId, false))),
      events.on('report.created', (e) => {
        if (e.forward) this.track(this.forwardReport(e.reportId));
      }),
    ];
    return () => offs.forEach((off) => off());
  }

  /** Announces deletions made while federation was not running (the admin CLI deletes accounts too). */
  announcePendingDeletions(): void {
    for (const accountId of this.deps.social.store.accounts.deletedAwaitingAnnouncement())
      this.track(this.actors.deleted(accountId));
  }

  /** Resolves when every activity handed over so far is in the queue. */
  async idle(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }

  private track(work: Promise<void>): void {
    const p = work.catch((err: unknown) => this.deps.logger.error({ err }, 'an outgoing activity could not be queued'));
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  private async send(from: Account, recipients: Recipient[], activity: Activity): Promise<void> {
    await this.deliver(from, this.deliverable(recipients), activity);
  }

  /** Sends to recipients already filtered by `deliverable`. */
  private async deliver(from: Account, allowed: Recipient[], activity: Activity): Promise<void> {
    if (allowed.length === 0) return;
    await this.context().sendActivity({ identifier: from.username }, allowed, activity, { preferSharedInbox: true });
  }

  /** Recipients on servers the domain policy does not refuse (suspended domains get nothing). */
  private deliverable(recipients: Recipient[]): Recipient[] {
    // Asked once per host: a post's thousands of followers live on a few hundred servers.
    const refused = new Map<string, boolean>();
    return recipients.filter((r) => {
      const host = (r.inboxId ?? r.id)?.hostname;
      if (host === undefined) return false;
      let no = refused.get(host);
      if (no === undefined) {
        no = this.deps.social.moderation.domainPolicy(host).refused;
        refused.set(host, no);
      }
      return !no;
    });
  }

  /** Remote followers (unless direct) and remote mentioned accounts of a status. */
  private audience(status: StatusRow, author: Account): Recipient[] {
    const store = this.deps.social.store;
    const mentioned = this.deps.repo.remoteRecipients(store.statuses.mentions([status.id]).map((m) => m.accountId));
    return this.recipients([
      ...(status.visibility === 'direct' ? [] : this.deps.repo.remoteFollowers(author.id)),
      ...mentioned,
    ]);
  }

  private recipients(list: RemoteRecipient[]): Recipient[] {
    return recipientsOf(list);
  }

  private async statusCreated(status: StatusRow): Promise<void> {
    // A remote post (every inbound Create) ends here, before its author's row is read.
    if (!status.local) return;
    const author = localAccount(this.deps, status.accountId);
    if (!author) return;
    const c = this.context();
    if (status.reblogOfId) {
      const original = this.deps.social.store.statuses.byId(status.reblogOfId);
      if (!original || (status.visibility !== 'public' && status.visibility !== 'unlisted')) return;
      const originalAuthor = this.deps.social.store.accounts.byId(original.accountId);
      const recipients = this.audience(status, author);
      if (originalAuthor?.domain) recipients.push(recipientOf(originalAuthor));
      const me = c.getActorUri(author.username);
      await this.send(
        author,
        recipients,
        new Announce({
          id: new URL(this.deps.social.urls.statusUri(author.username, status.id, true)),
          actor: me,
          object: new URL(statusUri(this.deps, original)),
          tos: [PUBLIC_COLLECTION],
          ccs: [
            c.getFollowersUri(author.username),
            ...(originalAuthor ? [new URL(actorUri(this.deps, originalAuthor))] : []),
          ],
        }),
      );
      return;
    }
    // The Note is only built when some remote inbox will get it: most local posts have no remote audience.
    const recipients = this.deliverable(this.audience(status, author));
    if (recipients.length === 0) return;
    const note = noteOf(c, status);
    if (!note) return;
    await this.deliver(author, recipients, createOf(note));
  }

  /** A report the reporter asked to forward: Flag from the instance actor (never naming the reporter), to the reported account's server. */
  private async forwardReport(reportId: string): Promise<void> {
    const store = this.deps.social.store;
    const report = store.reports.byId(reportId);
    const target = report ? remoteAccount(this.deps, report.targetAccountId) : null;
    if (!report || !target) return;
    const c = this.context();
    const statusUris = store.statuses.byIds(report.statusIds).flatMap((s) => (s.uri ? [new URL(s.uri)] : []));
    const flag = new Flag({
      id: new URL(`${c.getActorUri(INSTANCE_ACTOR).href}#reports/${report.id}`),
      actor: c.getActorUri(INSTANCE_ACTOR),
      objects: [new URL(target.uri!), ...statusUris],
      content: report.comment,
    });
    const recipients = this.deliverable([recipientOf(target)]);
    if (recipients.length)
      await c.sendActivity({ identifier: INSTANCE_ACTOR }, recipients, flag, { preferSharedInbox: true });
  }

  /** A favourite of a remote status goes to its author as Like (Undo(Like) when taken back). */
  private async favourite(accountId: string, statusId: string, on: boolean): Promise<void> {
    const me = localAccount(this.deps, accountId);
    const store = this.deps.social.store;
    const status = store.statuses.byId(statusId);
    const author = status ? remoteAccount(this.deps, status.accountId) : null;
    if (!me || !status || !author || !status.uri) return;
    const meUri = new URL(actorUri(this.deps, me));
    const like = new Like({
      id: new URL(`${meUri.href}#likes/${status.id}`),
      actor: meUri,
      object: new URL(status.uri),
    });
    await this.send(
      me,
      [recipientOf(author)],
      on
        ? like
        : new Undo({
            id: new URL(`${meUri.href}#likes/${status.id}/undo/${store.core.ids.next()}`),
            actor: meUri,
            object: like,
          }),
    );
  }

  private async statusUpdated(status: StatusRow): Promise<void> {
    const author = localAccount(this.deps, status.accountId);
    if (!author || !status.local || status.reblogOfId) return;
    const recipients = this.deliverable(this.audience(status, author));
    if (recipients.length === 0) return;
    const c = this.context();
    const note = noteOf(c, status);
    if (!note) return;
    const id = new URL(`${note.id!.href}#updates/${status.editedAt ?? status.updatedAt}`);
    await this.deliver(
      author,
      recipients,
      new MastodonUpdate({ id, actor: note.attributionId, object: note, tos: note.toIds, ccs: note.ccIds }),
    );
  }

  private async statusDeleted(status: StatusRow): Promise<void> {
    // A remote post (every inbound Create) ends here, before its author's row is read.
    if (!status.local) return;
    const author = localAccount(this.deps, status.accountId);
    if (!author) return;
    const c = this.context();
    const me = c.getActorUri(author.username);
    const recipients = this.audience(status, author);
    if (status.reblogOfId) {
      const original = this.deps.social.store.statuses.byId(status.reblogOfId);
      const originalAuthor = original ? this.deps.social.store.accounts.byId(original.accountId) : null;
      if (originalAuthor?.domain) recipients.push(recipientOf(originalAuthor));
      const announceId = new URL(this.deps.social.urls.statusUri(author.username, status.id, true));
      await this.send(
        author,
        recipients,
        new Undo({
          id: new URL(`${announceId.href}#undo`),
          actor: me,
          object: new Announce({
            id: announceId,
            actor: me,
            object: original ? new URL(statusUri(this.deps, original)) : null,
          }),
        }),
      );
      return;
    }
    const id = new URL(statusUri(this.deps, status, author));
    await this.send(
      author,
      recipients,
      new Delete({
        id: new URL(`${id.href}#delete`),
        actor: me,
        object: new Tombstone({ id }),
        tos: [PUBLIC_COLLECTION],
      }),
    );
  }

  /**
   * A vote. On a remote poll by a local user: one Note per choice (its name the option's) to the poll's author,
   * as Mastodon votes. On a local poll (by anyone): the Question with its new counts, as Update, to the
   * status's audience and the remote voters.
   */
  private async pollVoted(e: SocialEventMap['poll.voted']): Promise<void> {
    const store = this.deps.social.store;
    const poll = store.polls.byId(e.pollId);
    const status = poll?.statusId ? store.statuses.byId(poll.statusId) : null;
    if (!poll || !status || status.deletedAt !== null) return;
    const c = this.context();
    if (status.local) {
      const author = localAccount(this.deps, status.accountId);
      if (!author) return;
      const voters = this.deps.repo.remoteRecipients(store.polls.voterIds(poll.id));
      const recipients = this.deliverable([...this.audience(status, author), ...this.recipients(voters)]);
      const question = recipients.length ? noteOf(c, status) : null;
      if (!question) return;
      const id = new URL(`${question.id!.href}#updates/votes/${store.core.ids.next()}`);
      await this.deliver(
        author,
        recipients,
        new MastodonUpdate({
          id,
          actor: question.attributionId,
          object: question,
          tos: question.toIds,
          ccs: question.ccIds,
        }),
      );
      return;
    }
    const voter = localAccount(this.deps, e.accountId);
    const author = remoteAccount(this.deps, status.accountId);
    if (!voter || !author || !status.uri) return;
    const me = new URL(actorUri(this.deps, voter));
    const authorUri = new URL(author.uri!);
    for (const choice of e.choices) {
      const name = poll.options[choice];
      if (name === undefined) continue;
      const note = new Note({
        id: new URL(`${me.href}#votes/${poll.id}/${choice}`),
        attribution: me,
        name,
        replyTarget: new URL(status.uri),
        to: authorUri,
      });
      await this.send(
        voter,
        [recipientOf(author)],
        new Create({ id: new URL(`${note.id!.href}/activity`), actor: me, object: note, to: authorUri }),
      );
    }
  }

  /** A post pinned or unpinned: Add or Remove on the featured collection, to remote followers (as Mastodon). */
  private async featuredChanged(accountId: string, statusId: string, pinned: boolean): Promise<void> {
    const account = localAccount(this.deps, accountId);
    const status = this.deps.social.store.statuses.byId(statusId);
    if (!account || !status?.local || (status.visibility !== 'public' && status.visibility !== 'unlisted')) return;
    const c = this.context();
    const me = c.getActorUri(account.username);
    const values = {
      id: new URL(`${me.href}#featured/${pinned ? 'add' : 'remove'}/${this.deps.social.store.core.ids.next()}`),
      actor: me,
      object: new URL(statusUri(this.deps, status, account)),
      target: c.getFeaturedUri(account.username),
      tos: [PUBLIC_COLLECTION],
    };
    await this.send(
      account,
      this.recipients(this.deps.repo.remoteFollowers(account.id)),
      pinned ? new Add(values) : new Remove(values),
    );
  }
}
