#!/usr/bin/env node
// Entry point of the `homeport` CLI. It runs the prebuilt server bundle (dist/server, see bin/server-bundle.js)
// when it is current, else the TypeScript sources through Node's built-in type stripping (Node >= 22.18 strips
// types by default; older 22.x needs --experimental-strip-types).
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { nodeVersionProblem } from './node-version.js';
import { currentServerBundle } from './server-bundle.js';

const versionProblem = nodeVersionProblem(process.version);
if (versionProblem) {
  console.error(versionProblem);
  process.exit(1);
}
// `serve` runs for days. glibc gives the free top of a thread's malloc arena back only past a trim threshold that it
// raises itself, up to 64 MiB, each time a large block is freed: with a dozen arenas (V8's compiler and GC threads)
// the server's RSS grew in steps of 17-18 MB that held nothing live (bench:soak, malloc_info). A fixed threshold gives
// it back, and glibc reads it only as a process starts: so `serve` starts itself once more with it (same pid).
const command = process.argv.slice(2).find((arg) => !arg.startsWith('-'));
if (command === 'serve' && process.platform === 'linux' && !process.env.GLIBC_TUNABLES && process.execve) {
  process.execve(process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
    ...process.env,
    GLIBC_TUNABLES: 'glibc.malloc.trim_threshold=131072',
  });
}
const bundle = currentServerBundle(path.resolve(import.meta.dirname, '..'));
if (!bundle && !process.features.typescript) {
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync(
    process.execPath,
    ['--experimental-strip-types', '--disable-warning=ExperimentalWarning', ...process.argv.slice(1)],
    { stdio: 'inherit' },
  );
  process.exit(r.status ?? 1);
}
process.removeAllListeners('warning'); // type-stripping notices are not for users
/** @type {typeof import('../server/cli/main.ts')} */
const { runCli } = await import(bundle ? pathToFileURL(bundle).href : '../server/cli/main.ts');
process.exitCode = await runCli(process.argv.slice(2));
