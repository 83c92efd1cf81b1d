import { notFound } from '../../errors.ts';
import type { Account, MediaRow, StatusRow } from '../../store/index.ts';
import type { StatusDeps } from './deps.ts';

/** Deleting an own status, with everything that hangs on it. */
export class StatusRemover {
  private readonly d: StatusDeps;

  constructor(deps: StatusDeps) {
    this.d = deps;
  }

  /**
   * Deletes an own status (with its reblogs, notifications, feed entries, pins and bookmarks). Its media
   * are kept unattached for a redraft unless `deleteMedia`.
   */
  /**
   * Deletes a status: by its author, or by a moderator (the caller checked the permission), whose deletion
   * is told to the author as a moderation warning (as Mastodon's report action "delete posts").
   */
  async delete(actor: Account, status: StatusRow, deleteMedia: boolean, asModerator = false): Promise<void> {
    if (status.accountId !== actor.id && !asModerator) throw notFound();
    const doomedFiles: MediaRow[] = [];
    this.d.store.transaction(() => {
      const reblogs = this.d.store.statuses.reblogsOf(status.id);
      const tags = this.d.store.statuses.tags([status.id]).get(status.id) ?? [];
      for (const s of [status, ...reblogs]) this.d.store.statuses.markDeleted(s);
      const ids = [status.id, ...reblogs.map((r) => r.id)];
      const homeRecipients = this.d.store.feeds.holders(ids);
      this.d.store.feeds.remove(ids);
      this.d.store.notifications.deleteForStatuses(ids);
      this.d.store.interactions.forgetStatuses(ids);
      if (status.visibility === 'direct') this.d.store.conversations.forgetStatus(status.id);
      for (const s of [status, ...reblogs])
        this.d.store.events.emit('status.deleted', { status: s, homeRecipients, tags: s === status ? tags : [] });
      const author = this.d.store.accounts.byId(status.accountId);
      if (status.accountId !== actor.id && author?.domain === null)
        this.d.notifications.warn(actor.id, status.accountId, 'delete_statuses', [status.id]);
      const media = this.d.store.media.forStatuses([status.id]).get(status.id) ?? [];
      if (deleteMedia) {
        for (const m of media) this.d.store.media.delete(m.id);
        doomedFiles.push(...media);
      } else {
        this.d.store.media.detachFromStatus(status.id);
      }
    });
    for (const m of doomedFiles) {
      for (const file of [m.filePath, m.previewPath, m.thumbnailPath])
        await this.d.media
          .remove(file)
          .catch((err) => this.d.logger.warn({ err, file }, 'could not remove a media file'));
    }
  }
}
