import { DetailsCollector, notFound } from '../../errors.ts';
import { LIMITS } from '../../limits.ts';
import type { Account, QuotePolicy, StatusRow } from '../../store/index.ts';
import { graphemeLength } from '../../text/index.ts';
import type { StatusDeps } from './deps.ts';
import type { EditInput } from './inputs.ts';

/** Editing an own status: the checks, the edit history, and who is told. */
export class StatusEditor {
  private readonly d: StatusDeps;

  constructor(deps: StatusDeps) {
    this.d = deps;
  }

  edit(author: Account, statusId: string, input: EditInput): StatusRow {
    const status = this.d.reader.readable(author, statusId);
    if (status.accountId !== author.id || status.reblogOfId !== null) throw notFound();
    const details = new DetailsCollector();
    const spoilerText = input.spoilerText ?? '';
    const mediaIds = input.mediaIds ?? [];
    this.d.composer.checkText(details, input.text, spoilerText, mediaIds.length > 0 || !!input.poll);
    if (input.poll) {
      this.d.composer.checkPoll(details, input.poll);
      if (mediaIds.length) details.add('poll', 'ERR_INVALID', 'cannot be combined with media attachments');
    }
    this.d.composer.checkMedia(details, author, mediaIds, { statusId: status.id });
    for (const attr of input.mediaAttributes ?? []) {
      if (!mediaIds.includes(attr.id))
        details.add('media_attributes', 'ERR_INVALID', `refer to media ${attr.id} that the post does not keep`);
      if (attr.description && graphemeLength(attr.description) > LIMITS.media_attachments.description_limit) {
        details.add(
          'media_attributes',
          'ERR_TOO_LONG',
          `description is too long (maximum is ${LIMITS.media_attachments.description_limit} characters)`,
        );
      }
    }
    details.throwIfAny();
    const formatted = this.d.composer.format(input.text);
    const sensitive = (input.sensitive ?? status.sensitive) || spoilerText.trim() !== '';
    const language =
      input.language === undefined
        ? status.language
        : this.d.composer.normalizeLanguage(input.language, status.language);
    const oldMedia = this.d.store.media.forStatuses([status.id]).get(status.id) ?? [];
    const oldPoll = status.pollId ? this.d.store.polls.byId(status.pollId) : null;
    const mediaChanged =
      oldMedia.map((m) => m.id).join() !== mediaIds.join() || (input.mediaAttributes ?? []).length > 0;
    const pollChanged =
      (oldPoll === null) !== !input.poll ||
      (oldPoll !== null &&
        input.poll !== null &&
        input.poll !== undefined &&
        (oldPoll.options.join('\u0000') !== input.poll.options.map((o) => o.trim()).join('\u0000') ||
          oldPoll.multiple !== (input.poll.multiple ?? false)));
    const changed =
      input.text !== status.text ||
      spoilerText !== status.spoilerText ||
      sensitive !== status.sensitive ||
      language !== status.language ||
      mediaChanged ||
      pollChanged;
    if (!changed) return status;

    const newlyMentioned = this.d.store.transaction(() => {
      const now = this.d.store.now();
      if (this.d.store.statuses.edits(status.id).length === 0) {
        // The first edit keeps the original as the first entry of the history.
        this.d.store.statuses.insertEdit({
          statusId: status.id,
          accountId: author.id,
          text: status.text,
          content: status.content,
          spoilerText: status.spoilerText,
          sensitive: status.sensitive,
          mediaAttachmentIds: oldMedia.map((m) => m.id),
          mediaDescriptions: oldMedia.map((m) => m.description),
          pollOptions: oldPoll?.options ?? null,
          createdAt: status.createdAt,
        });
      }
      let pollId = status.pollId;
      if (pollChanged) {
        if (oldPoll) this.d.store.polls.delete(oldPoll.id);
        pollId = input.poll
          ? this.d.store.polls.insert({
              accountId: author.id,
              statusId: status.id,
              options: input.poll.options.map((o) => o.trim()),
              multiple: input.poll.multiple ?? false,
              hideTotals: input.poll.hideTotals ?? false,
              expiresAt: now + input.poll.expiresIn * 1000,
            })
          : null;
      }
      for (const attr of input.mediaAttributes ?? []) {
        const current = this.d.store.media.byId(attr.id);
        this.d.store.media.update(attr.id, {
          description: attr.description === undefined ? undefined : attr.description,
          meta: attr.focus === undefined || !current ? undefined : { ...current.meta, focus: attr.focus ?? undefined },
        });
      }
      this.d.store.media.detachOthers(status.id, mediaIds);
      this.d.store.media.attach(status.id, mediaIds);
      this.d.store.statuses.updateContent(status.id, {
        text: input.text,
        content: formatted.content,
        spoilerText,
        sensitive,
        language,
        pollId,
        editedAt: now,
      });
      const newly = this.d.store.statuses.replaceMentions(
        status.id,
        formatted.mentioned.map((a) => a.id),
      );
      this.d.store.statuses.setTags(status.id, formatted.tags);
      const media = this.d.store.media.byIds(mediaIds);
      this.d.store.statuses.insertEdit({
        statusId: status.id,
        accountId: author.id,
        text: input.text,
        content: formatted.content,
        spoilerText,
        sensitive,
        mediaAttachmentIds: mediaIds,
        mediaDescriptions: media.map((m) => m.description),
        pollOptions: input.poll ? input.poll.options.map((o) => o.trim()) : null,
        createdAt: now,
      });
      for (const accountId of this.d.store.interactions.localRebloggers(status.id))
        this.d.notifications.notify(accountId, author.id, 'update', status.id);
      for (const accountId of this.d.store.quotes.localQuoters(status.id))
        if (accountId !== author.id) this.d.notifications.notify(accountId, author.id, 'quoted_update', status.id);
      this.d.store.events.emit('status.updated', { status: this.d.store.statuses.byId(status.id)! });
      return newly;
    });
    for (const accountId of newlyMentioned) {
      const account = this.d.store.accounts.byId(accountId);
      if (account && account.domain === null) this.d.notifications.notify(accountId, author.id, 'mention', status.id);
    }
    if (pollChanged && input.poll) this.d.scheduleChanged();
    return this.d.store.statuses.byId(status.id)!;
  }

  /** Changes who may quote an own status (Mastodon 4.5's interaction policy); told like an edit. */
  setQuotePolicy(author: Account, statusId: string, policy: QuotePolicy): StatusRow {
    const status = this.d.reader.readable(author, statusId);
    if (status.accountId !== author.id || status.reblogOfId !== null) throw notFound();
    if (status.quoteApprovalPolicy === policy) return status;
    this.d.store.transaction(() => {
      this.d.store.statuses.setQuotePolicy(status.id, policy);
      this.d.store.events.emit('status.updated', { status: this.d.store.statuses.byId(status.id)! });
    });
    return this.d.store.statuses.byId(status.id)!;
  }
}
