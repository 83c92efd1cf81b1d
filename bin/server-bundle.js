// Plain JavaScript, read before any TypeScript: which server `homeport` runs. The prebuilt bundle
// (dist/server, `npm run build:server`) starts without stripping the types of ~460 files; the sources run when
// there is no bundle, when one of its source files changed after it was built (a stale bundle would run old
// code), or when HOMEPORT_FROM_SOURCE=1 (the tests set it: they test the sources).
import fs from 'node:fs';
import path from 'node:path';

/** Absolute path of the bundle's entry to import, or null to run the TypeScript sources. */
export function currentServerBundle(root, env = process.env) {
  if (env.HOMEPORT_FROM_SOURCE === '1') return null;
  const dir = path.join(root, 'dist', 'server');
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  } catch {
    return null; // never built, or the build did not finish
  }
  const entry = path.join(dir, manifest.entry);
  const builtAt = fs.statSync(path.join(dir, 'manifest.json')).mtimeMs;
  for (const source of manifest.sources) {
    const stat = fs.statSync(path.join(root, source), { throwIfNoEntry: false });
    if (!stat || stat.mtimeMs > builtAt) return null;
  }
  return fs.existsSync(entry) ? entry : null;
}
