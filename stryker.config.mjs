// Mutation testing (`npm run mutation`, scripts/mutation.mjs; never part of `npm test`: a whole run takes hours on
// two cores). StrykerJS changes one subsystem's code (HOMEPORT_MUTATION_SUBSYSTEM, a folder) one mutant at a time
// and runs that subsystem's in-process tests that cover it (vitest.mutation.config.ts); the score is the share of
// mutants a test caught. A subset: `npm run mutation -- store --mutate server/eventlog/store/metadata.ts`.
const subsystem = process.env.HOMEPORT_MUTATION_SUBSYSTEM ?? 'server/eventlog/store';

export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  mutate: [`${subsystem}/**/*.ts`, '!**/*.test.ts', '!**/*.netns.ts', '!**/*.d.ts', '!**/testing/**'],
  coverageAnalysis: 'perTest',
  // One test process: two cores are all there is.
  concurrency: 1,
  timeoutMS: 60_000,
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: `test-results/mutation/${subsystem.replaceAll('/', '-')}.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  tempDirName: '.stryker-tmp',
  // Stryker would rewrite tsconfig.json's paths for its sandbox through TypeScript's JS API, which TypeScript 7 no
  // longer has; this tsconfig.json names nothing outside the repository, so there is nothing to rewrite.
  tsconfigFile: 'no-tsconfig-to-rewrite.json',
  ignorePatterns: ['renderer/dist', 'electron/dist', 'test-results', 'playwright-report', '.tmp', '.scratch'],
};
