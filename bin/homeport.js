#!/usr/bin/env node
// Entry point of the `homeport` CLI. The server is TypeScript run by Node's built-in type stripping
// (Node >= 22.18 strips types by default; older 22.x needs --experimental-strip-types).
import { nodeVersionProblem } from './node-version.js';

const versionProblem = nodeVersionProblem(process.version);
if (versionProblem) {
  console.error(versionProblem);
  process.exit(1);
}
if (!process.features.typescript) {
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync(
    process.execPath,
    ['--experimental-strip-types', '--disable-warning=ExperimentalWarning', ...process.argv.slice(1)],
    { stdio: 'inherit' },
  );
  process.exit(r.status ?? 1);
}
process.removeAllListeners('warning'); // type-stripping notices are not for users
const { runCli } = await import('../server/cli/main.ts');
process.exitCode = await runCli(process.argv.slice(2));
