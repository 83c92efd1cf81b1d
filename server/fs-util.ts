import fs from 'node:fs';
import path from 'node:path';

/**
 * mkdir -p that fails cleanly: Node's recursive mkdirSync can spin forever on pseudo file systems
 * such as /proc, so create each missing component ourselves.
 */
export function ensureDirectory(dir: string): void {
  const missing: string[] = [];
  let current = path.resolve(dir);
  while (!fs.existsSync(current)) {
    missing.unshift(current);
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const d of missing) {
    try {
      // Only the data directory's own components are created here: private to the user.
      fs.mkdirSync(d, { mode: 0o700 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  if (!fs.statSync(dir).isDirectory()) throw Object.assign(new Error(`${dir} is not a directory`), { code: 'ENOTDIR' });
  fs.accessSync(dir, fs.constants.W_OK);
}

/**
 * Makes the data directory readable by its owner alone: the directory and every folder below 0700, every file
 * 0600 (databases hold password hashes, direct messages, the VAPID private key; media may be private), and
 * sets this process's umask so whatever it writes later starts private. Fixes installs made before this rule.
 * Returns how many entries were tightened. No-op on Windows, where these modes do not apply.
 */
export function makePrivate(dataDir: string): number {
  if (process.platform === 'win32') return 0;
  process.umask(0o077);
  let tightened = 0;
  const visit = (entry: string, isDirectory: boolean) => {
    const mode = fs.lstatSync(entry).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      // Group and others lose everything; the owner keeps its bits (and can always read and write).
      fs.chmodSync(entry, (mode & 0o700) | (isDirectory ? 0o700 : 0o600));
      tightened++;
    }
    if (isDirectory)
      for (const child of fs.readdirSync(entry, { withFileTypes: true }))
        if (!child.isSymbolicLink()) visit(path.join(entry, child.name), child.isDirectory());
  };
  visit(path.resolve(dataDir), true);
  return tightened;
}
