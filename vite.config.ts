import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';
// @ts-expect-error plain JavaScript module of the test runner
import { INTEGRATION, NOT_TESTS, TEST_FILES } from './scripts/test-tiers.mjs';

// One config: `vite build` bundles the renderer into renderer/dist (served by the HTTP server);
// `vitest` runs unit and integration tests under Node (*.test.ts next to the code they test).
export default defineConfig({
  root: path.resolve(import.meta.dirname, 'renderer'),
  base: '/',
  plugins: [react()],
  build: {
    outDir: path.resolve(import.meta.dirname, 'renderer', 'dist'),
    emptyOutDir: true,
    sourcemap: true,
  },
  test: {
    root: import.meta.dirname,
    // Two tiers (scripts/test-tiers.mjs): `vitest run --project unit` (fast, in process) and `--project integration`.
    projects: [
      { extends: true, test: { name: 'unit', include: TEST_FILES, exclude: [...NOT_TESTS, ...INTEGRATION] } },
      { extends: true, test: { name: 'integration', include: INTEGRATION, exclude: NOT_TESTS } },
    ],
    pool: 'forks',
    // Test files share their worker's modules: none mocks a module or changes the environment, and evaluating the
    // server's module graph again for each of 136 files was 40 % of the run (9 -> 5.6 minutes on 2 cores).
    isolate: false,
    // A committed `it.only` would silently skip every other test of its file: it fails the run instead.
    allowOnly: false,
    testTimeout: 60_000,
    // `homeport` processes the tests start run the TypeScript sources, never a prebuilt dist/server bundle
    // (bin/server-bundle.js); server/cli/bundle.test.ts tests the bundle itself.
    env: { HOMEPORT_FROM_SOURCE: '1' },
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
