import type { MediaMeta, MediaRepository } from './media.ts';
import type { StoreCore } from './store.ts';

export type RemoteMediaType = 'image' | 'gifv' | 'video' | 'audio' | 'unknown';

/** An attachment of a remote status, as its document describes it (the file stays on its server). */
export interface RemoteAttachment {
  type: RemoteMediaType;
  url: string;
  description: string | null;
  contentType: string | null;
  blurhash: string | null;
  meta: MediaMeta;
}

/** Attachments of remote statuses: rows linking to the file on its server, kept in step with the author's edits. */
export class RemoteMediaRepository {
  private readonly core: StoreCore;
  private readonly media: MediaRepository;
  constructor(core: StoreCore, media: MediaRepository) {
    this.core = core;
    this.media = media;
  }

  /** A remote attachment, kept as a link to its origin (not downloaded). */
  insert(accountId: string, statusId: string, m: RemoteAttachment & { position: number }): string {
    const now = this.core.now();
    const id = this.core.ids.next();
    this.core
      .sql(
        `INSERT INTO media_attachments (id, account_id, status_id, type, remote_url, content_type, description, blurhash, meta, processing, position, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'done', ?, ?, ?)`,
      )
      .run(
        id,
        accountId,
        statusId,
        m.type,
        m.url,
        m.contentType,
        m.description,
        m.blurhash,
        JSON.stringify(m.meta),
        m.position,
        now,
        now,
      );
    return id;
  }

  /**
   * A remote status's attachments as its author's edit left them: those kept (same URL) take the new
   * description, blurhash, focus and size, new ones are added, dropped ones detached (the edit history may
   * still show them). Whether anything changed.
   */
  sync(accountId: string, statusId: string, attachments: RemoteAttachment[]): boolean {
    const media = this.media;
    const current = media.forStatuses([statusId]).get(statusId) ?? [];
    const shape = (
      list: { url: string | null; type: string; description: string | null; blurhash: string | null; meta: unknown }[],
    ) => JSON.stringify(list.map((m) => [m.url, m.type, m.description, m.blurhash, m.meta]));
    if (shape(current.map((m) => ({ ...m, url: m.remoteUrl }))) === shape(attachments)) return false;
    const ids = attachments.map((a, position) => {
      const kept = current.find((m) => m.remoteUrl === a.url);
      if (!kept) return this.insert(accountId, statusId, { ...a, position });
      media.update(kept.id, {
        type: a.type,
        description: a.description,
        blurhash: a.blurhash,
        meta: a.meta,
        contentType: a.contentType,
      });
      return kept.id;
    });
    media.attach(statusId, ids);
    media.detachOthers(statusId, ids);
    return true;
  }
}
