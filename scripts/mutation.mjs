// `npm run mutation [-- store|federation] [-- stryker options]`: StrykerJS (stryker.config.mjs) over the event-log
// store and the federation, one after the other, each mutant tested by its own subsystem's in-process tests
// (vitest.mutation.config.ts). Stryker runs the tests from a copy in .stryker-tmp/, where
// `<repo>/../shared/fixtures` is not: the fixtures are named by path. Exits non-zero when a run fails.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const SUBSYSTEMS = { store: 'server/eventlog/store', federation: 'server/social/federation' };
const root = path.resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const chosen = args[0] in SUBSYSTEMS ? [args.shift()] : Object.keys(SUBSYSTEMS);
const fixtures = process.env.HOMEPORT_FIXTURES ?? path.resolve(root, '..', 'shared', 'fixtures');
const stryker = path.join(root, 'node_modules', '.bin', 'stryker');
for (const name of chosen) {
  console.log(`\n=== mutation testing of ${SUBSYSTEMS[name]}`);
  const r = spawnSync(stryker, ['run', ...args], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, HOMEPORT_FIXTURES: fixtures, HOMEPORT_MUTATION_SUBSYSTEM: SUBSYSTEMS[name] },
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
