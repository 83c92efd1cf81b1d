// A vitest reporter that writes the run's unhandled errors (rejections and exceptions outside any test) to the
// file named by HOMEPORT_VITEST_ERRORS. vitest's JSON report leaves them out, and the closing line of npm test
// must count each one as a failure whatever else failed.
import fs from 'node:fs';

export default class UnhandledErrorsReporter {
  onTestRunEnd(_testModules, unhandledErrors) {
    const file = process.env.HOMEPORT_VITEST_ERRORS;
    if (!file) return;
    const errors = unhandledErrors.map((e) => ({
      type: e.type ?? 'Unhandled Error',
      message: `${e.name ?? 'Error'}: ${String(e.message ?? e).split('\n')[0]}`,
    }));
    fs.writeFileSync(file, JSON.stringify(errors));
  }
}
