// Bundles the Electron main process (ESM, with the whole server inside) and the preload (CommonJS,
// as sandboxed preloads must be). Native and heavy packages stay external and ship in node_modules.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { splitBundleOptions } from './build-server.mjs';

/**
 * esbuild options for an ESM bundle that runs from electron/dist with the server inside it: `outfile` is the entry,
 * code-split as the CLI's bundle (scripts/build-server.mjs) so what the server imports lazily (Fedify, a command's
 * subsystem…) stays in a chunk beside it, loaded when first needed instead of at start.
 */
export function mainBundleOptions(entryPoint, outfile) {
  const name = path.basename(outfile, path.extname(outfile));
  return { ...splitBundleOptions({ [name]: entryPoint }, path.dirname(outfile)), sourcemap: true, metafile: false };
}

export async function buildElectron() {
  // Chunks of an older build would pile up beside the new ones.
  fs.rmSync('electron/dist/chunks', { recursive: true, force: true });
  await build(mainBundleOptions('electron/main.ts', 'electron/dist/main.mjs'));
  await build({
    entryPoints: ['electron/preload.ts'],
    outfile: 'electron/dist/preload.cjs',
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    external: ['electron'],
    logLevel: 'warning',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildElectron();
  console.log('electron: bundled electron/dist/main.mjs and electron/dist/preload.cjs');
}
