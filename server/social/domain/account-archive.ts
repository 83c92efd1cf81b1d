import fs from 'node:fs';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import type { Logger } from '../../logger.ts';
import { DomainError } from '../errors.ts';
import type { MediaStorage } from '../media/index.ts';
import type { Account, SocialStore, StatusRow } from '../store/index.ts';

/** A JSON-LD document as it goes into the archive. */
export type JsonObject = Record<string, unknown>;

/**
 * The ActivityPub documents of an archive, as federation serves them, with the links that name our files
 * turned into paths inside the archive (federation implements this; the archive itself knows no ActivityPub).
 */
export interface ArchiveDocuments {
  /** The actor with its public key; icon and image name the given files, outbox/likes/bookmarks their JSON files. */
  actor(account: Account, files: { avatar: string | null; header: string | null }): Promise<JsonObject>;
  /** Create(Note or Question) of a post, Announce of a reblog, without @context; null for what is not the account's own. */
  activity(status: StatusRow): Promise<JsonObject | null>;
  /** The @context the outbox collection carries for its items (theirs are left out, as Mastodon does). */
  outboxContext(): Promise<unknown>;
  /** The ActivityPub id of any status (likes and bookmarks list these). */
  statusUri(status: StatusRow): string;
}

/** Statuses read (and serialised) at a time, so memory stays bounded however long the account's history is. */
const PAGE = 100;
const ACTIVITY_STREAMS = 'https://www.w3.org/ns/activitystreams';

/**
 * The account archive Mastodon 4 makes from Settings → Import and export → "Request your archive": a zip of
 * actor.json, outbox.json (every post as Create, every reblog as Announce), likes.json, bookmarks.json, the
 * files attached to the posts under their storage paths (media_attachments/files/…), and the avatar and
 * header. It is streamed as it is written: nothing but one page of posts is held in memory.
 */
export class AccountArchive {
  private readonly store: SocialStore;
  private readonly media: MediaStorage;
  private readonly logger: Logger;
  /** Accounts whose archive is being streamed: one at a time each (an archive reads every post and file). */
  private readonly inProgress = new Set<string>();

  constructor(store: SocialStore, media: MediaStorage, logger: Logger) {
    this.store = store;
    this.media = media;
    this.logger = logger;
  }

  /** The zip, as a stream; it ends when the last file is in (an error mid-way aborts it, and is logged). */
  stream(account: Account, documents: ArchiveDocuments): Readable {
    if (this.inProgress.has(account.id))
      throw new DomainError('conflict', 'An archive of this account is being made already; try again once it is done');
    this.inProgress.add(account.id);
    const build = new ArchiveBuild(new Date());
    const out = new PassThrough();
    build.zip.outputStream.pipe(out);
    build.zip.on('error', (err: Error) => {
      this.logger.error({ err, accountId: account.id }, 'account archive failed');
      out.destroy(err);
    });
    // A download that ends early (closed or failed) closes the files and generators still being read.
    out.on('close', () => {
      this.inProgress.delete(account.id);
      build.abort();
    });
    this.fill(build, account, documents).then(
      () => build.zip.end(),
      (err: unknown) => build.zip.emit('error', err),
    );
    return out;
  }

  /** Adds every entry (their contents are read only when the zip reaches them), in Mastodon's order. */
  private async fill(build: ArchiveBuild, account: Account, documents: ArchiveDocuments): Promise<void> {
    build.addStream('outbox.json', true, undefined, () =>
      Readable.from(this.outbox(account, documents), { objectMode: false }),
    );
    const added = new Set<string>();
    for await (const statuses of this.pages('statuses', account.id)) {
      if (build.aborted) return;
      const media = this.store.media.forStatuses(statuses.map((s) => s.id));
      for (const file of [...media.values()].flat()) {
        if (
          file.filePath &&
          !added.has(file.filePath) &&
          (await this.addStoredFile(build, file.filePath, file.filePath))
        )
          added.add(file.filePath);
      }
    }
    for (const what of ['likes', 'bookmarks'] as const) {
      build.addStream(`${what}.json`, true, undefined, () =>
        Readable.from(this.uriCollection(what, account, documents), { objectMode: false }),
      );
    }
    const avatar = account.avatarFile
      ? await this.addStoredFile(build, account.avatarFile, `avatar${path.extname(account.avatarFile)}`)
      : null;
    const header = account.headerFile
      ? await this.addStoredFile(build, account.headerFile, `header${path.extname(account.headerFile)}`)
      : null;
    const actor = await documents.actor(account, { avatar, header });
    build.zip.addBuffer(Buffer.from(JSON.stringify(actor)), 'actor.json', { compress: true, mtime: build.mtime });
  }

  /**
   * A stored file under `name`, read when the zip reaches it; a file missing from disk is left out (and
   * logged), as Mastodon does. Returns the name, or null when left out.
   */
  private async addStoredFile(build: ArchiveBuild, relative: string, name: string): Promise<string | null> {
    let absolute: string;
    let size: number;
    try {
      absolute = this.media.absolute(relative);
      size = (await fs.promises.stat(absolute)).size;
    } catch (err) {
      this.logger.warn({ err, file: relative }, 'a file of the account archive is missing; left out');
      return null;
    }
    // Images and videos are compressed already: stored as they are, the archive costs no CPU for them.
    build.addStream(name, false, size, () => fs.createReadStream(absolute));
    return name;
  }

  /** outbox.json: an OrderedCollection of every activity; totalItems comes last, counted as they are written. */
  private async *outbox(account: Account, documents: ArchiveDocuments): AsyncGenerator<Buffer> {
    yield Buffer.from(
      `{"@context":${JSON.stringify(await documents.outboxContext())},"id":"outbox.json","type":"OrderedCollection","orderedItems":[`,
    );
    let count = 0;
    for await (const statuses of this.pages('statuses', account.id)) {
      const items: string[] = [];
      for (const status of statuses) {
        const activity = await documents.activity(status);
        if (activity) items.push(JSON.stringify(activity));
      }
      if (items.length === 0) continue;
      yield Buffer.from(`${count > 0 ? ',' : ''}${items.join(',')}`);
      count += items.length;
    }
    yield Buffer.from(`],"totalItems":${count}}`);
  }

  /** likes.json and bookmarks.json: OrderedCollections of status ids (Mastodon writes no totalItems for them). */
  private async *uriCollection(
    what: 'likes' | 'bookmarks',
    account: Account,
    documents: ArchiveDocuments,
  ): AsyncGenerator<Buffer> {
    yield Buffer.from(
      `{"@context":"${ACTIVITY_STREAMS}","id":"${what}.json","type":"OrderedCollection","orderedItems":[`,
    );
    let first = true;
    for await (const statuses of this.pages(what, account.id)) {
      yield Buffer.from(`${first ? '' : ','}${statuses.map((s) => JSON.stringify(documents.statusUri(s))).join(',')}`);
      first = false;
    }
    yield Buffer.from(']}');
  }

  /** Pages of the account's statuses, likes or bookmarks, read one query at a time as the consumer asks. */
  private async *pages(what: 'statuses' | 'likes' | 'bookmarks', accountId: string): AsyncGenerator<StatusRow[]> {
    let after = '0';
    for (;;) {
      const page = this.store.exports.archivePage(what, accountId, after, PAGE);
      if (page.length > 0) yield page.map((p) => p.status);
      if (page.length < PAGE) return;
      after = page[page.length - 1].cursor;
    }
  }
}

/** One archive being written: its zip, and the sources open at the moment (to close them if it is cut short). */
class ArchiveBuild {
  readonly zip = new ZipFile();
  readonly mtime: Date;
  aborted = false;
  private readonly open = new Set<Readable>();

  constructor(mtime: Date) {
    this.mtime = mtime;
  }

  /** An entry whose source is opened only when the zip reaches it (so one file is open at a time). */
  addStream(name: string, compress: boolean, size: number | undefined, open: () => Readable): void {
    this.zip.addReadStreamLazy(name, { compress, mtime: this.mtime, ...(size !== undefined ? { size } : {}) }, (cb) => {
      const source = open();
      this.open.add(source);
      source.on('close', () => this.open.delete(source));
      cb(null, source);
    });
  }

  abort(): void {
    this.aborted = true;
    for (const source of this.open) source.destroy();
  }
}
