// Turns the JSON reports of vitest and Playwright into counts, with every way a run can hide a failure
// listed as a problem. Kept apart from run-tests.mjs so its rules are tested (scripts/test-counts.test.ts).

/**
 * vitest's JSON report (null when none was written), its exit code and the unhandled errors written by
 * vitest-unhandled-errors.mjs (null when that file is missing).
 */
export function countVitest(report, exitCode, unhandledErrors = []) {
  if (!report)
    return {
      passed: 0,
      failed: 0,
      skipped: 0,
      problems: [`vitest exited ${exitCode} without a report (it crashed or never started)`],
    };
  const problems = [];
  let skipped = 0;
  for (const file of report.testResults ?? []) {
    const name = file.name ?? file.testFilePath ?? 'a test file';
    // A file that fails to load (syntax error, import error, a throwing top level) has no assertions at all.
    if (file.status === 'failed' && (file.assertionResults ?? []).length === 0)
      problems.push(`${name} failed to load: ${String(file.message ?? '').split('\n')[0]}`);
    // A file that failed although none of its tests did failed in a hook (a throwing beforeAll): vitest reports
    // the tests it never ran as skipped, and they must not vanish into the skip count.
    const hookFailed = file.status === 'failed' && !(file.assertionResults ?? []).some((t) => t.status === 'failed');
    for (const t of file.assertionResults ?? []) {
      const notRun = t.status === 'pending' || t.status === 'skipped' || t.status === 'todo' || t.status === 'disabled';
      if (notRun && hookFailed)
        problems.push(
          `${t.fullName ?? t.title} did not run (a hook failed in ${name}: ${String(file.message ?? '').split('\n')[0]})`,
        );
      else if (notRun) skipped++;
    }
  }
  // An error outside any test fails the run but is in no test's count: each one is a problem of its own, also
  // when tests failed too (else it hides behind them).
  if (unhandledErrors === null) problems.push('vitest wrote no list of unhandled errors (its reporter did not run)');
  for (const e of unhandledErrors ?? []) problems.push(`vitest: ${e.type}: ${e.message}`);
  if (exitCode !== 0 && report.numFailedTests === 0 && problems.length === 0)
    problems.push(`vitest exited ${exitCode} (an error outside the tests)`);
  return { passed: report.numPassedTests ?? 0, failed: report.numFailedTests ?? 0, skipped, problems };
}

/** Playwright's JSON report (null when none was written) and its exit code. */
export function countPlaywright(report, exitCode) {
  if (!report)
    return { passed: 0, failed: 0, skipped: 0, problems: [`playwright exited ${exitCode} without a report`] };
  const s = report.stats ?? {};
  const problems = (report.errors ?? []).map((e) => `playwright: ${String(e.message ?? e).split('\n')[0]}`);
  if (exitCode !== 0 && (s.unexpected ?? 0) === 0 && problems.length === 0)
    problems.push(`playwright exited ${exitCode}`);
  return { passed: (s.expected ?? 0) + (s.flaky ?? 0), failed: s.unexpected ?? 0, skipped: s.skipped ?? 0, problems };
}
