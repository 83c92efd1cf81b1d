import fs from 'node:fs';
import path from 'node:path';

/**
 * The folder holding Homeport's package.json. Found by walking up, so it is right both when the
 * TypeScript sources run directly (server/…) and inside the bundled Electron main process
 * (electron/dist/main.mjs, possibly inside app.asar).
 */
function findAppRoot(start: string): string {
  let dir = start;
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest)) {
      try {
        if ((JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: string }).name === 'homeport') return dir;
      } catch {
        /* not ours; keep walking */
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot find Homeport's package.json above ${start}`);
    dir = parent;
  }
}

export const APP_ROOT = findAppRoot(import.meta.dirname);

/** Path of a file shipped with Homeport (proto/, renderer/dist/, resources/). */
export function appPath(...parts: string[]): string {
  return path.join(APP_ROOT, ...parts);
}
