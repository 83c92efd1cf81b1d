import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Files the social server stores (avatars, headers, later media attachments) under <dataDir>/media,
 * served at /system/<relative path>. Names are random so URLs cannot be guessed or cached stale.
 */
export class MediaStorage {
  readonly root: string;

  constructor(dataDir: string) {
    this.root = path.join(dataDir, 'media');
  }

  /** Writes a file and returns its path relative to the media root (always with forward slashes). */
  async write(folder: string, extension: string, data: Buffer): Promise<string> {
    const relative = `${folder}/${crypto.randomBytes(12).toString('hex')}.${extension}`;
    const absolute = this.absolute(relative);
    await fs.promises.mkdir(path.dirname(absolute), { recursive: true });
    const temp = `${absolute}.${process.pid}.tmp`;
    await fs.promises.writeFile(temp, data);
    await fs.promises.rename(temp, absolute);
    return relative;
  }

  /** Deletes the half-written files of uploads a crash interrupted (call before serving); returns how many. */
  async removeInterruptedWrites(): Promise<number> {
    let removed = 0;
    const visit = async (dir: string): Promise<void> => {
      let entries: fs.Dirent[];
      try {
        entries = await fs.promises.readdir(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) await visit(p);
        else if (e.name.endsWith('.tmp')) {
          await fs.promises.rm(p, { force: true });
          removed++;
        }
      }
    };
    await visit(this.root);
    return removed;
  }

  /** Moves an uploaded temporary file into storage (no copy in memory); returns its relative path. */
  async adopt(folder: string, extension: string, file: string): Promise<string> {
    const relative = `${folder}/${crypto.randomBytes(12).toString('hex')}.${extension}`;
    const absolute = this.absolute(relative);
    await fs.promises.mkdir(path.dirname(absolute), { recursive: true });
    try {
      await fs.promises.rename(file, absolute);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      await fs.promises.copyFile(file, absolute);
      await fs.promises.rm(file, { force: true });
    }
    return relative;
  }

  /** Where request bodies stream their files (inside the media folder, so adopting one is a rename). */
  get incomingDir(): string {
    return path.join(this.root, 'incoming');
  }

  async remove(relative: string | null): Promise<void> {
    if (!relative) return;
    await fs.promises.rm(this.absolute(relative), { force: true });
  }

  absolute(relative: string): string {
    const resolved = path.resolve(this.root, relative);
    if (!resolved.startsWith(this.root + path.sep))
      throw new Error(`media path escapes the media directory: ${relative}`);
    return resolved;
  }
}
