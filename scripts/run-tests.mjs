// `npm test`: type-check, unit + integration (vitest), end-to-end (Playwright with Debian Chromium),
// then one plain closing line "N passed, N failed" counting vitest and Playwright tests together.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const out = path.join(root, 'test-results');
fs.mkdirSync(out, { recursive: true });
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const env = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
const only = process.argv[2]; // optional: "unit" or "e2e"

function run(label, cmd, args, extraEnv = {}) {
  console.log(`\n=== ${label}: ${[path.basename(cmd), ...args].join(' ')}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...env, ...extraEnv } });
  return r.status ?? 1;
}

let passed = 0;
let failed = 0;
let problems = [];

if (!only) {
  if (run('type-check', bin('tsc'), ['--noEmit', '-p', 'tsconfig.json']) !== 0) problems.push('type-check failed');
  // The UI under test is the built renderer the server serves.
  if (run('build renderer', bin('vite'), ['build', '--logLevel', 'warn']) !== 0) problems.push('renderer build failed');
  if (run('bundle electron shell', process.execPath, ['scripts/build-electron.mjs']) !== 0) problems.push('electron bundle failed');
}

if (!only || only === 'unit') {
  const report = path.join(out, 'vitest.json');
  fs.rmSync(report, { force: true });
  const code = run('unit + integration (vitest)', bin('vitest'), ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`]);
  if (fs.existsSync(report)) {
    const r = JSON.parse(fs.readFileSync(report, 'utf8'));
    passed += r.numPassedTests;
    failed += r.numFailedTests;
    if (code !== 0 && r.numFailedTests === 0) problems.push(`vitest exited ${code} (a suite failed to load or an error escaped a test)`);
  } else problems.push(`vitest exited ${code} without a report`);
}

if (!only || only === 'e2e') {
  const report = path.join(out, 'playwright.json');
  fs.rmSync(report, { force: true });
  const code = run('end-to-end (playwright)', bin('playwright'), ['test', '--config', 'e2e/playwright.config.ts', '--reporter=list,json'], {
    PLAYWRIGHT_JSON_OUTPUT_NAME: report,
  });
  if (fs.existsSync(report)) {
    const s = JSON.parse(fs.readFileSync(report, 'utf8')).stats;
    passed += s.expected + (s.flaky ?? 0);
    failed += s.unexpected;
    if (code !== 0 && s.unexpected === 0) problems.push(`playwright exited ${code}`);
  } else problems.push(`playwright exited ${code} without a report`);
}

for (const p of problems) console.log(`problem: ${p}`);
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed > 0 || problems.length > 0 ? 1 : 0);
