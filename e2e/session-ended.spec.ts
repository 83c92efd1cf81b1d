import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { OWNER, startHomeportProcess, type RunningHomeport } from './homeport.ts';

// Its own server: this test changes the owner's password under an open page.
let homeport: RunningHomeport;
test.beforeAll(async () => {
  homeport = await startHomeportProcess();
});
test.afterAll(async () => {
  await homeport.stop();
});

test('a session ended elsewhere (password changed from the CLI) brings the page back to sign-in with the reason', async ({
  page,
}) => {
  await page.goto(`${homeport.httpUrl}/ui/server`);
  await page.getByLabel('User name').fill(OWNER.name);
  await page.getByLabel('Password').fill(OWNER.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Server' })).toBeVisible();

  const changed = spawnSync(
    process.execPath,
    [
      path.resolve(import.meta.dirname, '..', 'bin', 'homeport.js'),
      'eventlog',
      'users',
      'passwd',
      OWNER.name,
      '--password-stdin',
      '--data-dir',
      homeport.dataDir,
    ],
    {
      input: 'a brand new password\n',
      encoding: 'utf8',
    },
  );
  expect(changed.status, changed.stderr).toBe(0);

  // The next call the page makes (the charts and the log tail poll every second or two, or a navigation)
  // finds the session over; on a slow machine the polls may get there before the click does.
  await page
    .getByRole('navigation', { name: 'Sections' })
    .getByRole('link', { name: 'Event log' })
    .click({ timeout: 2000 })
    .catch(() => undefined);
  await expect(page.getByRole('heading', { name: 'Sign in to Homeport' })).toBeVisible();
  await expect(page.getByRole('alert')).toHaveText('Your session ended. Sign in again.');

  await page.getByLabel('User name').fill(OWNER.name);
  await page.getByLabel('Password').fill('a brand new password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('navigation', { name: 'Sections' })).toBeVisible();
});
