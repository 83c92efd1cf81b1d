import path from 'node:path';
import { defineConfig } from 'vitest/config';
// @ts-expect-error plain JavaScript module of the test runner
import { INTEGRATION, NOT_TESTS } from './scripts/test-tiers.mjs';

// The tests a mutation run (stryker.config.mjs) gives each mutant: the unit tier's tests of the mutated subsystem.
const subsystem = process.env.HOMEPORT_MUTATION_SUBSYSTEM ?? 'server/eventlog/store';

export default defineConfig({
  test: {
    root: path.resolve(import.meta.dirname),
    include: [`${subsystem}/**/*.test.ts`],
    exclude: [...NOT_TESTS, ...INTEGRATION],
    pool: 'forks',
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
