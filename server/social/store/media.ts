import { idOrNull, int, jsonIds, jsonOr, str, type SqlValue, type StoreCore } from './store.ts';

export const MEDIA_TYPES = ['image', 'gifv', 'video', 'audio', 'unknown'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];
export type MediaProcessing = 'queued' | 'in_progress' | 'done' | 'failed';

export interface ImageSize {
  width: number;
  height: number;
}

/** What MediaAttachment.meta is built from. */
export interface MediaMeta {
  original?: ImageSize & { duration?: number; bitrate?: number; frameRate?: string };
  small?: ImageSize;
  focus?: { x: number; y: number };
  duration?: number;
  audioEncode?: string;
  audioBitrate?: string;
  audioChannels?: string;
}

export interface MediaRow {
  id: string;
  accountId: string;
  statusId: string | null;
  scheduledStatusId: string | null;
  type: MediaType;
  filePath: string | null;
  contentType: string | null;
  fileSize: number | null;
  /** A thumbnail the author uploaded (audio and video). */
  thumbnailPath: string | null;
  /** The generated preview (small image). */
  previewPath: string | null;
  remoteUrl: string | null;
  description: string | null;
  blurhash: string | null;
  meta: MediaMeta;
  processing: MediaProcessing;
  processingError: string | null;
  position: number;
  createdAt: number;
  updatedAt: number;
}

function toMedia(r: Record<string, unknown>): MediaRow {
  return {
    id: str(r.id),
    accountId: str(r.account_id),
    statusId: idOrNull(r.status_id),
    scheduledStatusId: idOrNull(r.scheduled_status_id),
    type: r.type as MediaType,
    filePath: (r.file_path as string | null) ?? null,
    contentType: (r.content_type as string | null) ?? null,
    fileSize: r.file_size === null ? null : int(r.file_size),
    thumbnailPath: (r.thumbnail_path as string | null) ?? null,
    previewPath: (r.preview_path as string | null) ?? null,
    remoteUrl: (r.remote_url as string | null) ?? null,
    description: (r.description as string | null) ?? null,
    blurhash: (r.blurhash as string | null) ?? null,
    meta: jsonOr<MediaMeta>(r.meta, {}),
    processing: r.processing as MediaProcessing,
    processingError: (r.processing_error as string | null) ?? null,
    position: int(r.position),
    createdAt: int(r.created_at),
    updatedAt: int(r.updated_at),
  };
}

export interface MediaChanges {
  filePath?: string | null;
  contentType?: string | null;
  fileSize?: number | null;
  thumbnailPath?: string | null;
  previewPath?: string | null;
  description?: string | null;
  blurhash?: string | null;
  meta?: MediaMeta;
  processing?: MediaProcessing;
  processingError?: string | null;
  type?: MediaType;
}

export class MediaRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  insert(input: {
    accountId: string;
    type: MediaType;
    description: string | null;
    meta: MediaMeta;
    processing: MediaProcessing;
    contentType: string | null;
    fileSize: number | null;
  }): string {
    const id = this.core.ids.next();
    const now = this.core.now();
    this.core
      .sql(
        `INSERT INTO media_attachments (id, account_id, type, description, meta, processing, content_type, file_size, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        input.accountId,
        input.type,
        input.description,
        JSON.stringify(input.meta),
        input.processing,
        input.contentType,
        input.fileSize,
        now,
        now,
      );
    return id;
  }

  byId(id: string): MediaRow | null {
    const r = this.core.sql('SELECT * FROM media_attachments WHERE id = ?').get(id) as
      | Record<string, unknown>
      | undefined;
    return r ? toMedia(r) : null;
  }

  byIds(ids: readonly string[]): MediaRow[] {
    if (ids.length === 0) return [];
    const rows = (
      this.core
        .sql('SELECT * FROM media_attachments WHERE id IN (SELECT value FROM json_each(?))')
        .all(jsonIds(ids)) as Record<string, unknown>[]
    ).map(toMedia);
    const byId = new Map(rows.map((m) => [m.id, m]));
    return ids.map((id) => byId.get(id)).filter((m): m is MediaRow => m !== undefined);
  }

  update(id: string, changes: MediaChanges): void {
    const sets: string[] = [];
    const params: Record<string, SqlValue> = { id, updated_at: this.core.now() };
    const put = (column: string, value: SqlValue) => {
      sets.push(`${column} = @${column}`);
      params[column] = value;
    };
    if (changes.filePath !== undefined) put('file_path', changes.filePath);
    if (changes.contentType !== undefined) put('content_type', changes.contentType);
    if (changes.fileSize !== undefined) put('file_size', changes.fileSize);
    if (changes.thumbnailPath !== undefined) put('thumbnail_path', changes.thumbnailPath);
    if (changes.previewPath !== undefined) put('preview_path', changes.previewPath);
    if (changes.description !== undefined) put('description', changes.description);
    if (changes.blurhash !== undefined) put('blurhash', changes.blurhash);
    if (changes.meta !== undefined) put('meta', JSON.stringify(changes.meta));
    if (changes.processing !== undefined) put('processing', changes.processing);
    if (changes.processingError !== undefined) put('processing_error', changes.processingError);
    if (changes.type !== undefined) put('type', changes.type);
    if (sets.length === 0) return;
    this.core
      .prepareOnce(`UPDATE media_attachments SET ${sets.join(', ')}, updated_at = @updated_at WHERE id = @id`)
      .run(params);
  }

  /** Attachments never used by a post (nor a scheduled one) that were uploaded before `cutoff`, oldest first. */
  unattachedBefore(cutoff: number, limit: number): MediaRow[] {
    return (
      this.core
        .sql(
          'SELECT * FROM media_attachments WHERE status_id IS NULL AND scheduled_status_id IS NULL AND created_at < ? ORDER BY created_at LIMIT ?',
        )
        .all(cutoff, limit) as Record<string, unknown>[]
    ).map(toMedia);
  }

  /** Attachments of many statuses, in the order their author gave. */
  forStatuses(statusIds: readonly string[]): Map<string, MediaRow[]> {
    const result = new Map<string, MediaRow[]>();
    if (statusIds.length === 0) return result;
    const rows = (
      this.core
        .sql(
          'SELECT * FROM media_attachments WHERE status_id IN (SELECT value FROM json_each(?)) ORDER BY position, id',
        )
        .all(jsonIds(statusIds)) as Record<string, unknown>[]
    ).map(toMedia);
    for (const m of rows) {
      const list = result.get(m.statusId!) ?? [];
      list.push(m);
      result.set(m.statusId!, list);
    }
    return result;
  }

  forScheduled(scheduledIds: readonly string[]): Map<string, MediaRow[]> {
    const result = new Map<string, MediaRow[]>();
    if (scheduledIds.length === 0) return result;
    const rows = (
      this.core
        .sql(
          'SELECT * FROM media_attachments WHERE scheduled_status_id IN (SELECT value FROM json_each(?)) ORDER BY position, id',
        )
        .all(jsonIds(scheduledIds)) as Record<string, unknown>[]
    ).map(toMedia);
    for (const m of rows) {
      const list = result.get(m.scheduledStatusId!) ?? [];
      list.push(m);
      result.set(m.scheduledStatusId!, list);
    }
    return result;
  }

  /** Attaches media to a status in the given order (detaching them from a scheduled status). */
  attach(statusId: string, mediaIds: readonly string[]): void {
    const update = this.core.sql(
      'UPDATE media_attachments SET status_id = ?, scheduled_status_id = NULL, position = ?, updated_at = ? WHERE id = ?',
    );
    mediaIds.forEach((id, i) => update.run(statusId, i, this.core.now(), id));
  }

  /** Detaches whatever of a status's media is not in `keep`. */
  detachOthers(statusId: string, keep: readonly string[]): void {
    this.core
      .sql(
        'UPDATE media_attachments SET status_id = NULL WHERE status_id = ? AND id NOT IN (SELECT value FROM json_each(?))',
      )
      .run(statusId, jsonIds(keep));
  }

  attachToScheduled(scheduledId: string, mediaIds: readonly string[]): void {
    const update = this.core.sql(
      'UPDATE media_attachments SET scheduled_status_id = ?, position = ?, updated_at = ? WHERE id = ?',
    );
    mediaIds.forEach((id, i) => update.run(scheduledId, i, this.core.now(), id));
  }

  detachFromStatus(statusId: string): void {
    this.core.sql('UPDATE media_attachments SET status_id = NULL WHERE status_id = ?').run(statusId);
  }

  delete(id: string): void {
    this.core.sql('DELETE FROM media_attachments WHERE id = ?').run(id);
  }

  /** Attachments left unprocessed by a stop (processing restarts for them). */
  unfinished(): MediaRow[] {
    return (
      this.core.sql("SELECT * FROM media_attachments WHERE processing IN ('queued', 'in_progress')").all() as Record<
        string,
        unknown
      >[]
    ).map(toMedia);
  }
}
