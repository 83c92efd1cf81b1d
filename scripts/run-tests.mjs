// `npm test`: type-check, unit + integration (vitest, both tiers of scripts/test-tiers.mjs), end-to-end (Playwright with Debian Chromium), then
// one plain closing line "N passed, N failed, N skipped" counting vitest and Playwright tests together.
// Anything that keeps a test from running honestly counts as a failure in that line: a failed type-check or
// build, a test file that does not load, each error outside a test (counted even when tests failed too), tests
// left pending by a failing hook, a committed `.only` (vitest allowOnly: false, Playwright forbidOnly).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { countPlaywright, countVitest } from './test-counts.mjs';
import { tierProblems } from './test-tiers.mjs';

const root = path.resolve(import.meta.dirname, '..');
const out = path.join(root, 'test-results');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const env = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
const args = process.argv.slice(2);
const only = args[0]; // optional: "vitest" (both tiers) or "e2e"
if (args.length > 1 || (only !== undefined && only !== 'vitest' && only !== 'e2e')) {
  console.error(`usage: node scripts/run-tests.mjs [vitest|e2e] (got: ${args.join(' ')})`);
  process.exit(2);
}
fs.mkdirSync(out, { recursive: true });
const readJson = (file) => (fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : null);

function run(label, cmd, cmdArgs, extraEnv = {}) {
  console.log(`\n=== ${label}: ${[path.basename(cmd), ...cmdArgs].join(' ')}`);
  const r = spawnSync(cmd, cmdArgs, { cwd: root, stdio: 'inherit', env: { ...env, ...extraEnv } });
  return r.status ?? 1;
}

const totals = { passed: 0, failed: 0, skipped: 0 };
const problems = [];
const add = (counts) => {
  totals.passed += counts.passed;
  totals.failed += counts.failed;
  totals.skipped += counts.skipped;
  problems.push(...counts.problems);
};

if (!only) {
  if (run('type-check', bin('tsc'), ['--noEmit', '-p', 'tsconfig.json']) !== 0) problems.push('type-check failed');
  // One formatting for every file (biome.json); `npm run format` fixes what this reports.
  if (run('format check', bin('biome'), ['format', '.']) !== 0) problems.push('format check failed (npm run format)');
  // Biome's recommended lint rules, less those biome.json turns off (README, "Quick start", says why).
  if (run('lint', bin('biome'), ['lint', '.']) !== 0) problems.push('lint failed (npm run lint)');
  // No import cycles, type-only imports counted too (dpdm reads them unless told -T); no dead code (knip).
  if (run('import cycles', npm, ['run', '--silent', 'cycles']) !== 0) problems.push('import cycles (npm run cycles)');
  if (run('dead code', npm, ['run', '--silent', 'dead-code']) !== 0) problems.push('dead code (npm run dead-code)');
  if (run('bundle electron shell', process.execPath, ['scripts/build-electron.mjs']) !== 0)
    problems.push('electron bundle failed');
}
if (!only || only === 'e2e') {
  // The UI under test is the renderer built from the sources as they are now, never an older dist.
  fs.rmSync(path.join(root, 'renderer', 'dist'), { recursive: true, force: true });
  if (run('build renderer', bin('vite'), ['build', '--logLevel', 'warn']) !== 0) problems.push('renderer build failed');
}

if (!only || only === 'vitest') {
  // Every test file in exactly one tier, and no unit test starting a process (scripts/test-tiers.mjs).
  for (const problem of tierProblems(root)) problems.push(`test tiers: ${problem}`);
  const report = path.join(out, 'vitest.json');
  const errors = path.join(out, 'vitest-unhandled-errors.json');
  fs.rmSync(report, { force: true });
  fs.rmSync(errors, { force: true });
  const code = run(
    'unit + integration (vitest)',
    bin('vitest'),
    [
      'run',
      '--reporter=default',
      '--reporter=json',
      '--reporter=./scripts/vitest-unhandled-errors.mjs',
      `--outputFile.json=${report}`,
    ],
    { HOMEPORT_VITEST_ERRORS: errors },
  );
  add(countVitest(readJson(report), code, readJson(errors)));
}

if (!only || only === 'e2e') {
  const report = path.join(out, 'playwright.json');
  fs.rmSync(report, { force: true });
  const code = run(
    'end-to-end (playwright)',
    bin('playwright'),
    ['test', '--config', 'e2e/playwright.config.ts', '--reporter=list,json'],
    {
      PLAYWRIGHT_JSON_OUTPUT_NAME: report,
    },
  );
  add(countPlaywright(readJson(report), code));
}

for (const p of problems) console.log(`problem: ${p}`);
// Each problem is a failure the test counts alone would not show.
const failed = totals.failed + problems.length;
console.log(`\n${totals.passed} passed, ${failed} failed, ${totals.skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);
