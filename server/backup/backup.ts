import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { ensureDirectory } from '../fs-util.ts';
import { isDataDirLocked, acquireDataDirLock } from '../lock.ts';

/** What a backup holds: both databases (consistent online snapshots), media, and the TLS key and certificate. */
export const BACKUP_DATABASES = ['eventlog.db', 'social.db'] as const;
export const BACKUP_FOLDERS = ['media', 'tls'] as const;
const MANIFEST = 'homeport-backup.json';

export interface BackupProgress {
  /** What is being copied now, e.g. "eventlog.db" or "media". */
  step: string;
  /** 0..1 over the whole backup. */
  fraction: number;
}

export interface BackupManifest {
  format: 1;
  createdAt: string;
  databases: { name: string; bytes: number }[];
  files: number;
}

export class BackupError extends Error {
  readonly code = 'HOMEPORT_BACKUP';
}

/**
 * A backup folder must be an absolute path: a relative one (or `~/…`, which only a shell expands) would land under
 * whatever folder the server happens to run in, where nobody looks for it.
 */
export function checkBackupTarget(target: string): void {
  if (!path.isAbsolute(target))
    throw new BackupError(`give the backup folder as an absolute path (${JSON.stringify(target)} is relative)`);
}

/**
 * Copies a data directory to `target` while a server may be running on it. Databases go through SQLite's
 * online backup API (a consistent snapshot even under writes; pages written meanwhile are copied again),
 * files are copied as they are. The target must be empty or absent; it is made private like a data directory.
 */
export async function backupDataDir(
  dataDir: string,
  target: string,
  onProgress: (p: BackupProgress) => void = () => {},
): Promise<BackupManifest> {
  checkBackupTarget(target);
  const source = path.resolve(dataDir);
  const dest = path.resolve(target);
  if (dest === source || dest.startsWith(source + path.sep))
    throw new BackupError('the backup folder must be outside the data directory');
  if (!fs.existsSync(path.join(source, 'eventlog.db')) && !fs.existsSync(path.join(source, 'social.db')))
    throw new BackupError(`${source} holds no Homeport data`);
  if (fs.existsSync(dest) && fs.readdirSync(dest).length > 0)
    throw new BackupError(`${dest} is not empty; choose a new or empty folder`);
  ensureDirectory(dest);
  fs.chmodSync(dest, 0o700);

  const databases = BACKUP_DATABASES.filter((name) => fs.existsSync(path.join(source, name)));
  // Progress: each database counts as its share of pages, the files together as one share.
  const steps = databases.length + 1;
  const manifest: BackupManifest = { format: 1, createdAt: new Date().toISOString(), databases: [], files: 0 };

  for (const [i, name] of databases.entries()) {
    const db = new BetterSqlite3(path.join(source, name), { readonly: true, fileMustExist: true });
    try {
      db.pragma('busy_timeout = 5000');
      await db.backup(path.join(dest, name), {
        progress: ({ totalPages, remainingPages }) => {
          onProgress({ step: name, fraction: (i + (totalPages ? 1 - remainingPages / totalPages : 1)) / steps });
          return 256;
        },
      });
    } finally {
      db.close();
    }
    manifest.databases.push({ name, bytes: fs.statSync(path.join(dest, name)).size });
    onProgress({ step: name, fraction: (i + 1) / steps });
  }

  // Files are listed after the database snapshots, so every file they refer to is there; one deleted meanwhile
  // (a purge, a replaced avatar) is no longer needed and is skipped.
  const files = BACKUP_FOLDERS.flatMap((folder) =>
    listFiles(path.join(source, folder)).map((f) => path.relative(source, f)),
  );
  for (const [i, relative] of files.entries()) {
    const to = path.join(dest, relative);
    ensureDirectory(path.dirname(to));
    try {
      await fs.promises.copyFile(path.join(source, relative), to);
      manifest.files++;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (i % 20 === 0 || i === files.length - 1)
      onProgress({ step: 'files', fraction: (databases.length + (i + 1) / files.length) / steps });
  }
  fs.writeFileSync(path.join(dest, MANIFEST), JSON.stringify(manifest, null, 2));
  onProgress({ step: 'done', fraction: 1 });
  return manifest;
}

/**
 * Puts a backup made by backupDataDir in place of a data directory's contents. Refused while a server runs on
 * it; holds the directory's lock meanwhile, so no server starts half way. The replaced databases' WAL files
 * go too (they belong to the old files).
 */
export async function restoreDataDir(
  backup: string,
  dataDir: string,
  onProgress: (p: BackupProgress) => void = () => {},
): Promise<BackupManifest> {
  const from = path.resolve(backup);
  const manifestFile = path.join(from, MANIFEST);
  if (!fs.existsSync(manifestFile)) throw new BackupError(`${from} is not a Homeport backup (no ${MANIFEST})`);
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as BackupManifest;
  ensureDirectory(dataDir);
  if (isDataDirLocked(dataDir))
    throw new BackupError(`a Homeport server is running on ${dataDir}; stop it before restoring`);
  const lock = acquireDataDirLock(dataDir);
  try {
    const steps = manifest.databases.length + 1;
    for (const [i, { name }] of manifest.databases.entries()) {
      for (const suffix of ['-wal', '-shm']) fs.rmSync(path.join(dataDir, name + suffix), { force: true });
      const temp = path.join(dataDir, `${name}.restoring`);
      await fs.promises.copyFile(path.join(from, name), temp);
      fs.renameSync(temp, path.join(dataDir, name));
      onProgress({ step: name, fraction: (i + 1) / steps });
    }
    for (const folder of BACKUP_FOLDERS) {
      const source = path.join(from, folder);
      if (!fs.existsSync(source)) continue;
      fs.rmSync(path.join(dataDir, folder), { recursive: true, force: true });
      await fs.promises.cp(source, path.join(dataDir, folder), { recursive: true });
    }
    onProgress({ step: 'done', fraction: 1 });
    return manifest;
  } finally {
    lock.release();
  }
}

function listFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return listFiles(p);
    // Half-written uploads are not worth keeping.
    return e.isFile() && !e.name.endsWith('.tmp') ? [p] : [];
  });
}
