import path from 'node:path';
import { defineConfig } from '@playwright/test';

// Debian's Chromium; Playwright never downloads a browser here.
export default defineConfig({
  testDir: import.meta.dirname,
  testMatch: '**/*.spec.ts',
  outputDir: path.join(import.meta.dirname, '..', 'test-results', 'e2e'),
  workers: 1,
  // Only a bound against hanging: the social journeys take 20-60 s on a loaded 2-core machine.
  timeout: 120_000,
  expect: { timeout: 10_000 },
  retries: 0,
  // A committed `test.only` would silently skip the others: it fails the run instead.
  forbidOnly: true,
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    headless: true,
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.HOMEPORT_CHROMIUM ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    },
  },
});
