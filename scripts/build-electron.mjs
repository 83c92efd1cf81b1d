// Bundles the Electron main process (ESM, with the whole server inside) and the preload (CommonJS,
// as sandboxed preloads must be). Native and heavy packages stay external and ship in node_modules.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const external = ['electron', ...Object.keys(pkg.dependencies ?? {})];

await build({
  entryPoints: ['electron/main.ts'],
  outfile: 'electron/dist/main.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  sourcemap: true,
  external,
  // Bundled CommonJS code may call require(); give ESM output one.
  banner: { js: "import { createRequire as __hpCreateRequire } from 'node:module'; const require = __hpCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});

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
console.log('electron: bundled electron/dist/main.mjs and electron/dist/preload.cjs');
