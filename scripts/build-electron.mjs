// Bundles the Electron main process (ESM, with the whole server inside) and the preload (CommonJS,
// as sandboxed preloads must be). Native and heavy packages stay external and ship in node_modules.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** esbuild options for an ESM bundle that runs from electron/dist with the server inside it. */
export function mainBundleOptions(entryPoint, outfile) {
  return {
    entryPoints: [entryPoint],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    sourcemap: true,
    external: ['electron', ...Object.keys(pkg.dependencies ?? {})],
    // Bundled CommonJS code may call require(); give ESM output one.
    banner: {
      js: "import { createRequire as __hpCreateRequire } from 'node:module'; const require = __hpCreateRequire(import.meta.url);",
    },
    logLevel: 'warning',
  };
}

export async function buildElectron() {
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
