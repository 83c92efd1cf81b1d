// Bundles the CLI's server (server/cli/main.ts) into dist/server for `homeport`: one ESM entry plus chunks, so
// what the sources load with `import()` (a command's subsystem, Fedify, gRPC protos…) stays a separate file
// loaded when first needed. Packages stay external, as in the Electron bundle. bin/homeport.js runs it when it is
// current (bin/server-bundle.js); otherwise, and always under the tests, the TypeScript sources run.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(import.meta.dirname, '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

/** esbuild options for a code-split ESM bundle of `entryPoints` written to `outdir`. */
export function splitBundleOptions(entryPoints, outdir) {
  return {
    entryPoints,
    outdir,
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    external: ['electron', ...Object.keys(pkg.dependencies ?? {})],
    // Bundled CommonJS code may call require(); give every ESM output file one.
    banner: {
      js: "import { createRequire as __hpCreateRequire } from 'node:module'; const require = __hpCreateRequire(import.meta.url);",
    },
    absWorkingDir: root,
    metafile: true,
    logLevel: 'warning',
  };
}

/** Builds dist/server (or `outdir`) and writes its manifest: the source files it was built from. */
export async function buildServer(outdir = path.join(root, 'dist', 'server')) {
  fs.rmSync(outdir, { recursive: true, force: true });
  const result = await build(splitBundleOptions({ homeport: path.join(root, 'server/cli/main.ts') }, outdir));
  const sources = Object.keys(result.metafile.inputs).filter((f) => !f.includes('node_modules/'));
  // Written last: a bundle without its manifest is never run (an interrupted build leaves the sources in charge).
  fs.writeFileSync(path.join(outdir, 'manifest.json'), `${JSON.stringify({ entry: 'homeport.mjs', sources })}\n`);
  return { outdir, sources: sources.length, files: Object.keys(result.metafile.outputs).length };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { outdir, sources, files } = await buildServer();
  console.log(`server: bundled ${sources} source files into ${files} files in ${path.relative(root, outdir)}`);
}
