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
      fs.mkdirSync(d);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  if (!fs.statSync(dir).isDirectory()) throw Object.assign(new Error(`${dir} is not a directory`), { code: 'ENOTDIR' });
  fs.accessSync(dir, fs.constants.W_OK);
}
