import { defineConfig } from 'vitest/config';

/*
 * Copied over masto.js's `vitest.config.ts` by run.ts: its e2e project alone, as the original declares it
 * (globals, threads, 60 s per test, its own setup files), without the global setup that made an admin token
 * with the password grant (run.ts makes the app and the tokens) and with Homeport's environment.
 */
export default defineConfig({
  test: {
    globals: true,
    pool: 'threads',
    testTimeout: 60_000,
    environment: './test-utils/vitest-environment.ts',
    setupFiles: [
      './test-utils/setup-files/vitest-extend-expect.ts',
      './test-utils/setup-files/vitest-polyfills.ts',
      './test-utils/setup-files/vitest-sessions.ts',
    ],
    include: ['tests/**/*.spec.ts'],
  },
});
