// The vitest tiers. "unit": every test file not listed below; fast and in process (no child process, no network
// namespace, no Chromium), so `npm run test:unit` answers in about a minute. "integration": the files below,
// which start `homeport serve` or other programs, run inside namespaces, or take seconds each. Playwright's
// end-to-end tests are the third tier (`npm run test:e2e`). Every `*.test.ts(x)` of the repository is in exactly
// one vitest tier by construction (unit is "all but these"); `tierProblems` finds a listed file that is gone and
// a unit file whose test code starts a process.
import fs from 'node:fs';
import path from 'node:path';
import { parseSync } from 'oxc-parser';

export const INTEGRATION = [
  // homeport serve (or the CLI, or another program) in a process of its own
  'bench/kill-cycles.test.ts',
  'bin/malloc-tuning.test.ts',
  'bin/node-version.test.ts',
  'electron/bundle.test.ts',
  'scripts/test-counts.test.ts',
  'server/backup/backup.test.ts',
  'server/cli/eventlog-users.test.ts',
  'server/cli/lazy-load.test.ts',
  'server/cli/main.test.ts',
  'server/cli/social-accounts.test.ts',
  'server/eventlog/grpc/cli.test.ts',
  'server/eventlog/projections/system/crash.test.ts',
  'server/eventlog/replication/continuous.test.ts',
  'server/eventlog/replication/crash.test.ts',
  'server/eventlog/replication/replicate.test.ts',
  'server/eventlog/replication/resume.test.ts',
  'server/eventlog/replication/safety.test.ts',
  'server/eventlog/store/group-commit.test.ts',
  'server/eventlog/store/page-cache.test.ts',
  'server/eventlog/tcp/crash.test.ts',
  'server/eventlog/tcp/limits.test.ts',
  'server/eventlog/tcp/read-bounds.test.ts',
  'server/eventlog/ui/replications.test.ts',
  'server/social/api/v1/announcements.test.ts',
  'server/social/api/v1/media.test.ts',
  'server/social/domain/event-relay.test.ts',
  'server/social/durable-answers.kill.test.ts',
  'server/social/federation/hostile-imports.test.ts',
  'server/social/federation/hostile-peers.test.ts',
  'server/social/federation/self-check.test.ts',
  'server/social/federation/two-servers.test.ts',
  // Chromium
  'server/social/oauth/oauth.test.ts',
  // network namespaces (unshare)
  'server/security/testing/netns.test.ts',
  'server/social/cards/cards.netns.test.ts',
  'server/social/federation/hostile-content.netns.test.ts',
  'server/social/federation/hostile-peers-netns.test.ts',
  'server/social/federation/self-check.netns.test.ts',
  'server/social/push/push.netns.test.ts',
  // in process, but 2.5 s or more each in CI (a real client's reconnects and timeouts, throttles, many requests)
  'server/eventlog/grpc/auth.test.ts',
  'server/eventlog/projections/http/projections-manager.test.ts',
  'server/eventlog/projections/user/user-projections.test.ts',
  'server/eventlog/subscriptions/clients-persistent.test.ts',
  'server/eventlog/subscriptions/clients-volatile.test.ts',
  'server/eventlog/tcp/auth-throttle.test.ts',
  'server/http/sign-in-throttle.test.ts',
  'server/http/trust-proxy.test.ts',
  'server/social/api/v1/accounts/registration.test.ts',
  'server/social/cards/cards.test.ts',
  'server/social/domain/event-relay-restart.test.ts',
  'server/social/federation/featured.test.ts',
  'server/social/federation/imports.test.ts',
  'server/social/federation/quotes-unapproved.test.ts',
  'server/social/federation/quotes.test.ts',
  'server/social/http/conventions.test.ts',
  'server/social/streaming/streaming-connections.test.ts',
  'server/social/streaming/streaming.test.ts',
];

/**
 * vitest's globs (from its root) for every test file, and the folders it never looks in (e2e is Playwright's,
 * .stryker-tmp holds the mutation run's copies of the repository).
 */
export const TEST_FILES = ['**/*.test.{ts,tsx}'];
export const NOT_TESTS = [
  '**/node_modules/**',
  '**/dist/**',
  '**/.git/**',
  'test-results/**',
  'e2e/**',
  '.stryker-tmp/**',
];
const TEST_FILE = /\.test\.tsx?$/;
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', '.git']);
const SKIPPED_TOP_FOLDERS = new Set(['test-results', 'e2e', '.stryker-tmp']);

/** Every vitest file of the repository (`*.test.ts` or `.tsx` anywhere but dependencies and builds), sorted. */
export function testFiles(root) {
  const walk = (dir) =>
    fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
      const rel = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory())
        return SKIPPED_FOLDERS.has(entry.name) || (!dir && SKIPPED_TOP_FOLDERS.has(entry.name)) ? [] : walk(rel);
      return TEST_FILE.test(entry.name) ? [rel] : [];
    });
  return walk('').sort();
}

/** The files of each tier. */
export function tiers(root, listed = INTEGRATION) {
  const integration = new Set(listed);
  const all = testFiles(root);
  return { unit: all.filter((f) => !integration.has(f)), integration: all.filter((f) => integration.has(f)) };
}

/** Test code: tests, what runs in a namespace or as a scenario, test support folders, benchmarks and scripts. */
const isTestCode = (file) =>
  /\.(test|netns|scenario)\.tsx?$/.test(file) ||
  file.split('/').includes('testing') ||
  file.startsWith('bench/') ||
  file.startsWith('scripts/');
/** Modules that start processes or a browser. */
const SPAWNING = new Set(['node:child_process', 'child_process', '@playwright/test', 'playwright', 'playwright-core']);

/** What a module imports: static imports, `export … from` and dynamic imports of a string literal. */
function importsOf(file, text) {
  const { module } = parseSync(file, text);
  const dynamic = module.dynamicImports
    .map((i) => text.slice(i.moduleRequest.start, i.moduleRequest.end))
    .filter((spec) => /^(['"`])[^'"`]*\1$/.test(spec))
    .map((spec) => spec.slice(1, -1));
  return [
    ...module.staticImports.map((i) => i.moduleRequest.value),
    ...module.staticExports.flatMap((e) => e.entries.flatMap((entry) => entry.moduleRequest?.value ?? [])),
    ...dynamic,
  ];
}

/**
 * The module through which `file`'s test code starts a process, if any: its imports are followed through test
 * code (not the server's own modules, which tests run in process).
 */
export function spawnsThrough(root, file) {
  const seen = new Set();
  const queue = [file];
  while (queue.length > 0) {
    const current = queue.shift();
    if (seen.has(current)) continue;
    seen.add(current);
    const text = fs.readFileSync(path.join(root, current), 'utf8');
    for (const spec of importsOf(current, text)) {
      if (SPAWNING.has(spec)) return `${current} imports ${spec}`;
      if (!spec.startsWith('.')) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(current), spec));
      if (isTestCode(target) && fs.existsSync(path.join(root, target))) queue.push(target);
    }
  }
  return null;
}

/** What is wrong with the tiers: a listed integration file that is no test file, a unit file that spawns. */
export function tierProblems(root, listed = INTEGRATION) {
  const all = new Set(testFiles(root));
  const problems = listed
    .filter((f) => !all.has(f))
    .map((f) => `${f} is listed in scripts/test-tiers.mjs but is no test file`);
  for (const file of tiers(root, listed).unit) {
    const through = spawnsThrough(root, file);
    if (through) problems.push(`${file} is a unit test but starts a process (${through}): list it in INTEGRATION`);
  }
  return problems;
}
