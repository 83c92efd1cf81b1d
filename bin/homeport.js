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
