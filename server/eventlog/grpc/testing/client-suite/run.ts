/**
 * `npm run test:grpc-client-suite [-- FILE…]`: runs the official Node client's own test suite
 * (kurrent-io/KurrentDB-Client-NodeJS, `packages/test`) against Homeport. The suite is not kept in this
 * repository: it is taken from a clone or git directory (`HOMEPORT_CLIENT_SUITE_REPO`, else cloned from GitHub),
 * copied into a temporary directory with its docker-compose setup swapped for `Cluster.ts` (one `homeport serve`
 * per node it asks for), given what it needs from npm, and run with jest one file after the other. It needs the
 * network (GitHub, npm), so `npm test` does not run it.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CLIENT_SUITE_LEFT_OUT } from './left-out.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..', '..', '..');
const REPO_URL = 'https://github.com/kurrent-io/KurrentDB-Client-NodeJS';
/** The suite's own 60 s per test and hook, unless a loaded machine needs more (`HOMEPORT_SUITE_TIMEOUT_MS`). */
const TEST_TIMEOUT_MS = Number(process.env.HOMEPORT_SUITE_TIMEOUT_MS ?? 60_000);

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync(cmd, args, { cwd, env, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${result.status}`);
}

/** A git directory (bare, or a checkout's) to read the suite from: the one given, or a fresh shallow clone. */
function suiteGitDir(work: string): string {
  const given = process.env.HOMEPORT_CLIENT_SUITE_REPO;
  if (given) return fs.existsSync(path.join(given, '.git')) ? path.join(given, '.git') : given;
  run('git', ['clone', '--quiet', '--depth', '1', '--bare', REPO_URL, path.join(work, 'repo.git')], work);
  return path.join(work, 'repo.git');
}

/** Copies `packages/test` of the suite's HEAD into `into`; returns that commit. */
function copySuite(gitDir: string, into: string): string {
  const git = (args: string[]) => spawnSync('git', ['--git-dir', gitDir, ...args], { encoding: 'buffer' });
  const archive = git(['archive', '--format=tar', 'HEAD', 'packages/test']);
  if (archive.status !== 0) throw new Error(`git archive failed: ${archive.stderr}`);
  fs.writeFileSync(path.join(into, 'suite.tar'), archive.stdout);
  run('tar', ['-xf', 'suite.tar', '--strip-components=2'], into);
  fs.rmSync(path.join(into, 'suite.tar'));
  return git(['rev-parse', 'HEAD']).stdout.toString().trim();
}

/** The suite's package.json, jest and TypeScript set-up, rewritten for a stand-alone copy on npm packages. */
function writeSetup(dir: string, clientVersion: string) {
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const devDependencies: Record<string, string> = { ...pkg.devDependencies };
  for (const name of Object.keys(devDependencies))
    if (name.startsWith('@opentelemetry/') || name === 'docker-compose') delete devDependencies[name];
  const write = (file: string, text: string) => fs.writeFileSync(path.join(dir, file), text);
  write(
    'package.json',
    JSON.stringify(
      {
        name: 'kurrentdb-client-suite-on-homeport',
        private: true,
        dependencies: { '@kurrent/kurrentdb-client': clientVersion },
        devDependencies: { ...devDependencies, typescript: '^5.6.3', '@types/node': '^22.0.0' },
      },
      null,
      2,
    ),
  );
  write(
    'tsconfig.json',
    JSON.stringify({
      compilerOptions: {
        target: 'es2022',
        module: 'commonjs',
        moduleResolution: 'node',
        esModuleInterop: true,
        experimentalDecorators: true,
        useUnknownInCatchVariables: false,
        skipLibCheck: true,
        isolatedModules: true,
        baseUrl: '.',
        paths: { '@test-utils': ['./src/utils'] },
      },
      include: ['./src/**/*.ts'],
    }),
  );
  write(
    'jest.config.js',
    `module.exports = {
  testTimeout: ${TEST_TIMEOUT_MS},
  testMatch: ['**/src/**/*.test.ts', '**/src/samples/*.ts'],
  moduleNameMapper: { '@test-utils': '<rootDir>/src/utils' },
  transform: { '^.+\\\\.tsx?$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: false }] },
};
`,
  );
  // The docker checks and image pulls give way to nothing; Cluster.ts starts Homeport instead.
  write('src/utils/preflight.ts', 'module.exports = async () => {};\n');
  fs.copyFileSync(path.join(import.meta.dirname, 'Cluster.ts'), path.join(dir, 'src/utils/Cluster.ts'));
}

function suiteFiles(dir: string): string[] {
  const files: string[] = [];
  const walk = (sub: string) => {
    for (const entry of fs.readdirSync(path.join(dir, sub), { withFileTypes: true })) {
      const rel = path.posix.join(sub, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (rel.endsWith('.test.ts') || (sub === 'src/samples' && rel.endsWith('.ts'))) files.push(rel);
    }
  };
  walk('src');
  return files.sort();
}

function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-client-suite-run-'));
  const suite = path.join(work, 'suite');
  fs.mkdirSync(suite);
  const commit = copySuite(suiteGitDir(work), suite);
  // The client version Homeport itself is tested with (the suite's own may not be published yet).
  const clientVersion = JSON.parse(
    fs.readFileSync(path.join(ROOT, 'node_modules', '@kurrent', 'kurrentdb-client', 'package.json'), 'utf8'),
  ).version as string;
  writeSetup(suite, clientVersion);
  console.log(`suite ${REPO_URL} at ${commit}, client ${clientVersion}, in ${suite}`);
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], suite);

  const asked = process.argv.slice(2).map((f) => (f.startsWith('src/') ? f : `src/${f}`));
  const all = suiteFiles(suite);
  const files = asked.length > 0 ? asked : all.filter((f) => !(f.slice(4) in CLIENT_SUITE_LEFT_OUT));
  if (asked.length === 0)
    for (const [file, reason] of Object.entries(CLIENT_SUITE_LEFT_OUT)) console.log(`left out: ${file}: ${reason}`);

  const report = path.join(work, 'jest.json');
  const jest = spawnSync(
    path.join(suite, 'node_modules', '.bin', 'jest'),
    ['--runInBand', '--json', `--outputFile=${report}`, ...files],
    { cwd: suite, env: { ...process.env, HOMEPORT_ROOT: ROOT }, stdio: 'inherit' },
  );
  const results = JSON.parse(fs.readFileSync(report, 'utf8'));
  let failedFiles = 0;
  console.log('\nfile: passed / failed / skipped');
  for (const file of results.testResults as {
    name: string;
    status: string;
    assertionResults: { status: string }[];
  }[]) {
    const count = (status: string) => file.assertionResults.filter((a) => a.status === status).length;
    const skipped = count('pending') + count('skipped') + count('todo');
    if (file.status === 'failed') failedFiles += 1;
    console.log(`${path.relative(suite, file.name)}: ${count('passed')} / ${count('failed')} / ${skipped}`);
  }
  console.log(
    `${files.length} files (${failedFiles} failing), tests: ${results.numPassedTests} passed, ` +
      `${results.numFailedTests} failed, ${results.numPendingTests + results.numTodoTests} skipped`,
  );
  if (!process.env.HOMEPORT_SUITE_KEEP) fs.rmSync(work, { recursive: true, force: true });
  process.exit(jest.status === 0 ? 0 : 1);
}

main();
