import fs from 'node:fs';
import type { Logger } from '../../logger.ts';
import { DetailsCollector, notFound, ValidationFailure } from '../errors.ts';
import { LIMITS } from '../limits.ts';
import {
  uploadHead,
  type UploadedFile,
  checkUpload,
  CONTENT_TYPES,
  extensionOf,
  MediaRejection,
  processThumbnail,
  processUpload,
  sniff,
  type ProcessedFile,
  type MediaStorage,
  loadSharp,
} from '../media/index.ts';
import type { Account, MediaMeta, MediaRow, SocialStore } from '../store/index.ts';
import { graphemeLength } from '../text/index.ts';

export interface MediaInput {
  file: UploadedFile;
  thumbnail?: UploadedFile | null;
  description?: string | null;
  focus?: string | null;
}

export interface MediaUpdate {
  description?: string | null;
  focus?: string | null;
  thumbnail?: UploadedFile | null;
}

/** "x,y" with both in [-1, 1]; null for an empty value. */
export function parseFocus(
  value: string | null | undefined,
  details: DetailsCollector,
): { x: number; y: number } | null | undefined {
  if (value === undefined) return undefined;
  if (value === null || value.trim() === '') return null;
  const parts = value.split(',').map((p) => Number(p.trim()));
  if (parts.length !== 2 || parts.some((n) => !Number.isFinite(n) || n < -1 || n > 1)) {
    details.add('focus', 'ERR_INVALID', 'must be two numbers between -1 and 1, as "x,y"');
    return undefined;
  }
  return { x: parts[0], y: parts[1] };
}

function checkDescription(description: string | null | undefined, details: DetailsCollector): void {
  if (description && graphemeLength(description) > LIMITS.media_attachments.description_limit) {
    details.add(
      'description',
      'ERR_TOO_LONG',
      `is too long (maximum is ${LIMITS.media_attachments.description_limit} characters)`,
    );
  }
}

const rejection = (field: string, err: unknown): never => {
  if (err instanceof MediaRejection) throw ValidationFailure.single(field, err.code, err.message);
  throw err;
};

/**
 * Media attachments: uploads checked on arrival, processed at once (v1) or after the response (v2) one at a
 * time, files under the media directory; descriptions, focus and thumbnails editable until attached.
 */
/** Uploads never attached to a post are removed after this long (Mastodon: a day). */
export const UNATTACHED_MEDIA_TTL_MS = 24 * 60 * 60 * 1000;

export class MediaService {
  private readonly store: SocialStore;
  private readonly storage: MediaStorage;
  private readonly logger: Logger;
  private queue: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly gates = new Set<() => void>();

  constructor(store: SocialStore, storage: MediaStorage, logger: Logger) {
    this.store = store;
    this.storage = storage;
    this.logger = logger;
  }

  /** A custom thumbnail: an image at most the image limit, read whole (it is decoded anyway). */
  private async thumbnailOf(file: UploadedFile): Promise<Awaited<ReturnType<typeof processThumbnail>>> {
    if (file.size > LIMITS.media_attachments.image_size_limit)
      rejection('thumbnail', new MediaRejection('ERR_TOO_LARGE', 'is too large'));
    return processThumbnail(await fs.promises.readFile(file.path)).catch((err) => rejection('thumbnail', err));
  }

  private async writeOutput(folder: string, file: ProcessedFile): Promise<string> {
    return this.storage.write(folder, file.extension, file.data);
  }

  /** Stores an upload; `sync` processes it before returning, otherwise it is queued. */
  async create(account: Account, input: MediaInput, mode: 'sync' | 'async'): Promise<MediaRow> {
    const details = new DetailsCollector();
    checkDescription(input.description, details);
    const focus = parseFocus(input.focus, details);
    details.throwIfAny();
    let kind;
    try {
      kind = checkUpload(await uploadHead(input.file), input.file.size);
    } catch (err) {
      rejection('file', err);
    }
    if (kind!.kind === 'image') {
      // Reading the header is cheap: a file that is no image is refused now, not after the 202.
      await (await loadSharp())(input.file.path, { limitInputPixels: false })
        .metadata()
        .catch(() => rejection('file', new MediaRejection('ERR_INVALID', 'is not a readable image')));
    }
    const thumbnail = input.thumbnail ? await this.thumbnailOf(input.thumbnail) : null;
    const uploaded = await this.storage.adopt('media_attachments/files', extensionOf(kind!), input.file.path);
    const thumbnailPath = thumbnail ? await this.writeOutput('media_attachments/thumbnails', thumbnail.preview) : null;
    const id = this.store.media.insert({
      accountId: account.id,
      type: kind!.kind,
      description: input.description?.trim() ? input.description : null,
      meta: focus ? { focus } : {},
      processing: mode === 'sync' ? 'in_progress' : 'queued',
      contentType: CONTENT_TYPES[kind!.kind === 'image' ? kind!.format : kind!.container] ?? null,
      fileSize: input.file.size,
    });
    this.store.media.update(id, { filePath: uploaded, thumbnailPath, blurhash: thumbnail?.blurhash ?? null });
    if (mode === 'sync') {
      await this.process(id);
      const row = this.store.media.byId(id)!;
      if (row.processing === 'failed') {
        await this.discard(row);
        throw ValidationFailure.single('file', 'ERR_INVALID', row.processingError ?? 'could not be processed');
      }
      return row;
    }
    this.enqueue(id);
    return this.store.media.byId(id)!;
  }

  /** Processing after the response, one attachment at a time (processing is CPU bound; the server stays responsive). */
  private enqueue(id: string): void {
    this.queue = this.queue
      .then(() => (this.closed ? undefined : this.process(id)))
      .catch((err) => this.logger.error({ err, mediaId: id }, 'media processing crashed'));
  }

  /**
   * Holds processing of everything queued from now on until the returned function is called (tests use it
   * to see an attachment while it is still processing, without racing the queue).
   */
  pauseProcessing(): () => void {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    this.gates.add(release);
    this.queue = this.queue.then(() => gate);
    return () => {
      this.gates.delete(release);
      release();
    };
  }

  /** Resolves when everything queued so far is processed. */
  idle(): Promise<void> {
    return this.queue;
  }

  /** Queues again what a stop interrupted. */
  resumeUnfinished(): void {
    for (const m of this.store.media.unfinished()) this.enqueue(m.id);
  }

  /** Stops taking queued work (what was queued resumes at the next start) and waits for the running job. */
  close(): Promise<void> {
    this.closed = true;
    for (const release of this.gates) release();
    this.gates.clear();
    return this.queue;
  }

  private async process(id: string): Promise<void> {
    const row = this.store.media.byId(id);
    if (!row || row.processing === 'done' || !row.filePath) return;
    this.store.media.update(id, { processing: 'in_progress' });
    try {
      const data = await fs.promises.readFile(this.storage.absolute(row.filePath));
      const kind = sniff(data);
      if (!kind) throw new MediaRejection('ERR_INVALID', 'has an unsupported type');
      const processed = await processUpload(data, kind);
      const filePath = processed.file
        ? await this.writeOutput('media_attachments/files', processed.file)
        : row.filePath;
      const previewPath = processed.preview
        ? await this.writeOutput('media_attachments/previews', processed.preview)
        : null;
      const current = this.store.media.byId(id);
      if (!current) {
        // Deleted while processing: nothing to keep.
        for (const f of [processed.file ? filePath : null, previewPath]) await this.storage.remove(f);
        return;
      }
      const meta: MediaMeta = { ...processed.meta, ...(current.meta.focus ? { focus: current.meta.focus } : {}) };
      this.store.media.update(id, {
        type: processed.type,
        filePath,
        contentType: processed.file?.contentType ?? current.contentType,
        fileSize: processed.file?.data.length ?? current.fileSize,
        previewPath,
        blurhash: current.thumbnailPath ? current.blurhash : processed.blurhash,
        meta,
        processing: 'done',
        processingError: null,
      });
      if (processed.file) await this.storage.remove(row.filePath);
    } catch (err) {
      const reason = err instanceof MediaRejection ? err.message : 'could not be processed';
      if (!(err instanceof MediaRejection)) this.logger.warn({ err, mediaId: id }, 'media processing failed');
      if (this.store.media.byId(id)) this.store.media.update(id, { processing: 'failed', processingError: reason });
    }
  }

  private async discard(row: MediaRow): Promise<void> {
    this.store.media.delete(row.id);
    for (const f of [row.filePath, row.previewPath, row.thumbnailPath])
      await this.storage.remove(f).catch(() => undefined);
  }

  /** One's own attachment (404 for anyone else's). */
  own(account: Account, id: string): MediaRow {
    const row = this.store.media.byId(id);
    if (!row || row.accountId !== account.id) throw notFound();
    return row;
  }

  /** Changes description, focus or thumbnail: only while unattached or attached to a scheduled status. */
  async update(account: Account, id: string, input: MediaUpdate): Promise<MediaRow> {
    const row = this.own(account, id);
    if (row.statusId !== null)
      throw ValidationFailure.single(
        'media_attachment',
        'ERR_INVALID',
        'is attached to a published post and can no longer be changed (edit the post instead)',
      );
    const details = new DetailsCollector();
    checkDescription(input.description, details);
    const focus = parseFocus(input.focus, details);
    details.throwIfAny();
    const thumbnail = input.thumbnail ? await this.thumbnailOf(input.thumbnail) : null;
    const thumbnailPath = thumbnail
      ? await this.writeOutput('media_attachments/thumbnails', thumbnail.preview)
      : undefined;
    const meta: MediaMeta = { ...row.meta };
    if (focus === null) delete meta.focus;
    else if (focus) meta.focus = focus;
    this.store.media.update(id, {
      description: input.description === undefined ? undefined : input.description?.trim() ? input.description : null,
      meta: focus === undefined ? undefined : meta,
      thumbnailPath,
      blurhash: thumbnail ? thumbnail.blurhash : undefined,
    });
    if (thumbnail && row.thumbnailPath) await this.storage.remove(row.thumbnailPath);
    return this.store.media.byId(id)!;
  }

  /**
   * Removes uploads nobody attached to a post within a day (Mastodon's rule), files included, in batches so a
   * large backlog never holds the event loop. Returns how many went.
   */
  async purgeUnattached(maxAgeMs = UNATTACHED_MEDIA_TTL_MS): Promise<number> {
    let purged = 0;
    for (;;) {
      const batch = this.store.media.unattachedBefore(this.store.now() - maxAgeMs, 100);
      for (const row of batch) await this.discard(row);
      purged += batch.length;
      if (batch.length < 100) return purged;
    }
  }

  /** Deletes an unattached attachment and its files. */
  async remove(account: Account, id: string): Promise<void> {
    const row = this.own(account, id);
    if (row.statusId !== null || row.scheduledStatusId !== null)
      throw ValidationFailure.single('media_attachment', 'ERR_INVALID', 'is in use by a post and cannot be deleted');
    await this.discard(row);
  }
}
