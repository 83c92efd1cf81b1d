import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain JavaScript module of the test runner
import { countPlaywright, countVitest } from './test-counts.mjs';

const file = (name: string, status: string, tests: { status: string; fullName?: string }[], message = '') => ({
  name,
  status,
  message,
  assertionResults: tests,
});

describe('the closing line of npm test', () => {
  it('counts passes, failures and skips', () => {
    const report = {
      numPassedTests: 3,
      numFailedTests: 1,
      testResults: [
        file('a.test.ts', 'failed', [
          { status: 'passed' },
          { status: 'passed' },
          { status: 'failed' },
          { status: 'skipped' },
        ]),
        file('b.test.ts', 'passed', [{ status: 'passed' }, { status: 'todo' }]),
      ],
    };
    expect(countVitest(report, 1)).toEqual({ passed: 3, failed: 1, skipped: 2, problems: [] });
  });

  it('counts a file that fails to load as a problem', () => {
    const report = {
      numPassedTests: 5,
      numFailedTests: 0,
      testResults: [file('broken.test.ts', 'failed', [], "SyntaxError: Unexpected token '}'\n at …")],
    };
    expect(countVitest(report, 1).problems).toEqual([
      "broken.test.ts failed to load: SyntaxError: Unexpected token '}'",
    ]);
  });

  it('counts tests left pending by a failing beforeAll as problems, not as skips', () => {
    // What vitest 5 writes for a throwing beforeAll: the file failed, its tests "skipped".
    const report = {
      numPassedTests: 0,
      numFailedTests: 0,
      testResults: [
        file(
          'hooked.test.ts',
          'failed',
          [
            { status: 'skipped', fullName: 'suite works' },
            { status: 'skipped', fullName: 'suite still works' },
          ],
          'hook boom',
        ),
      ],
    };
    const counts = countVitest(report, 1);
    expect(counts.skipped).toBe(0);
    expect(counts.problems).toEqual([
      'suite works did not run (a hook failed in hooked.test.ts: hook boom)',
      'suite still works did not run (a hook failed in hooked.test.ts: hook boom)',
    ]);
  });

  it('counts a crash without a report, and an error outside the tests', () => {
    expect(countVitest(null, 137).problems).toEqual([
      'vitest exited 137 without a report (it crashed or never started)',
    ]);
    expect(
      countVitest(
        {
          numPassedTests: 2,
          numFailedTests: 0,
          testResults: [file('x.test.ts', 'passed', [{ status: 'passed' }, { status: 'passed' }])],
        },
        1,
      ).problems,
    ).toEqual(['vitest exited 1 (an error outside the tests)']);
  });

  it('counts each unhandled error as a problem, also when tests failed beside it', () => {
    const report = {
      numPassedTests: 1,
      numFailedTests: 1,
      testResults: [file('x.test.ts', 'failed', [{ status: 'passed' }, { status: 'failed' }])],
    };
    const errors = [{ type: 'Unhandled Rejection', message: 'Error: stray boom' }];
    expect(countVitest(report, 1, errors).problems).toEqual(['vitest: Unhandled Rejection: Error: stray boom']);
    expect(countVitest(report, 1, null).problems).toEqual([
      'vitest wrote no list of unhandled errors (its reporter did not run)',
    ]);
  });

  it('counts Playwright flaky tests as passed, skipped ones as skipped, and global errors as problems', () => {
    expect(countPlaywright({ stats: { expected: 4, flaky: 1, unexpected: 1, skipped: 2 } }, 1)).toEqual({
      passed: 5,
      failed: 1,
      skipped: 2,
      problems: [],
    });
    expect(
      countPlaywright(
        { stats: { expected: 0, unexpected: 0, skipped: 0 }, errors: [{ message: 'Error: config failed\nstack' }] },
        1,
      ).problems,
    ).toEqual(['playwright: Error: config failed']);
    expect(countPlaywright(null, 1).problems).toEqual(['playwright exited 1 without a report']);
  });

  it('reads a real vitest report of a throwing hook, a file that cannot load and a skipped test', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-runner-'));
    try {
      fs.writeFileSync(
        path.join(dir, 'hook.test.ts'),
        "import { beforeAll, it } from 'vitest';\nbeforeAll(() => { throw new Error('hook boom'); });\nit('a', () => {});\n",
      );
      fs.writeFileSync(
        path.join(dir, 'load.test.ts'),
        "import { it } from 'vitest';\nimport './missing.ts';\nit('b', () => {});\n",
      );
      fs.writeFileSync(
        path.join(dir, 'fine.test.ts'),
        "import { it } from 'vitest';\nit('c', () => {});\nit.skip('d', () => {});\n",
      );
      const report = path.join(dir, 'report.json');
      const vitest = path.join(import.meta.dirname, '..', 'node_modules', '.bin', 'vitest');
      const r = spawnSync(vitest, ['run', '--root', dir, '--reporter=json', `--outputFile.json=${report}`], {
        encoding: 'utf8',
      });
      const counts = countVitest(JSON.parse(fs.readFileSync(report, 'utf8')), r.status);
      expect(counts).toMatchObject({ passed: 1, failed: 0, skipped: 1 });
      expect(counts.problems).toHaveLength(2);
      expect(counts.problems.join('\n')).toMatch(/a did not run \(a hook failed in .*hook\.test\.ts: hook boom\)/);
      expect(counts.problems.join('\n')).toMatch(/load\.test\.ts failed to load/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails a committed it.only and counts a stray rejection beside a failing test (real vitest, the project config)', () => {
    // The project's own config (allowOnly: false) over a throwaway folder: what npm test would see.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-runner-'));
    try {
      fs.mkdirSync(path.join(dir, 'scripts')); // a folder the config's `include` covers
      fs.writeFileSync(
        path.join(dir, 'scripts', 'only.test.ts'),
        "import { expect, it } from 'vitest';\nit.only('focused', () => {});\nit('left out', () => { expect(1).toBe(2); });\n",
      );
      fs.writeFileSync(
        path.join(dir, 'scripts', 'stray.test.ts'),
        "import { expect, it } from 'vitest';\nit('fails', () => { expect(1).toBe(2); });\n" +
          "it('leaks', () => { Promise.reject(new Error('stray boom')); });\n",
      );
      const report = path.join(dir, 'report.json');
      const errors = path.join(dir, 'errors.json');
      const root = path.join(import.meta.dirname, '..');
      const r = spawnSync(
        path.join(root, 'node_modules', '.bin', 'vitest'),
        [
          'run',
          '--config',
          path.join(root, 'vite.config.ts'),
          '--root',
          dir,
          '--reporter=json',
          `--reporter=${path.join(import.meta.dirname, 'vitest-unhandled-errors.mjs')}`,
          `--outputFile.json=${report}`,
        ],
        { encoding: 'utf8', env: { ...process.env, HOMEPORT_VITEST_ERRORS: errors } },
      );
      const counts = countVitest(
        JSON.parse(fs.readFileSync(report, 'utf8')),
        r.status,
        JSON.parse(fs.readFileSync(errors, 'utf8')),
      );
      expect(r.status).toBe(1);
      expect(counts.failed).toBe(2); // the focused test (refused) and the plain failure
      expect(counts.problems).toEqual(['vitest: Unhandled Rejection: Error: stray boom']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses an unknown argument with exit code 2 instead of running nothing', () => {
    const r = spawnSync(process.execPath, [path.join(import.meta.dirname, 'run-tests.mjs'), 'bogus'], {
      encoding: 'utf8',
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/usage: node scripts\/run-tests.mjs \[vitest\|e2e\]/);
    expect(r.stdout).not.toMatch(/passed/);
  });
});
