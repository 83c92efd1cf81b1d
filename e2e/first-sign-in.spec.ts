import { expect, test } from '@playwright/test';
import { connectClient, es, jsonEvent } from './es-client.ts';
import { screenshotPath } from './fixtures.ts';
import { startHomeportProcess, type RunningHomeport } from './homeport.ts';

// Its own server: this test changes the built-in admin's password, which other tests' clients use.
let homeport: RunningHomeport;
test.beforeAll(async () => {
  homeport = await startHomeportProcess();
});
test.afterAll(async () => {
  await homeport.stop();
});

test('signing in with the default password leads to a forced change, then to the app with the new password', async ({
  page,
}) => {
  await page.goto(`${homeport.httpUrl}/ui/eventlog`);
  await page.getByLabel('User name').fill('admin');
  await page.getByLabel('Password').fill('changeit');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Change the default password' })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Sections' })).toHaveCount(0);
  await page.screenshot({ path: screenshotPath('first-sign-in-change-password'), fullPage: true });

  await page.getByLabel('Current password').fill('changeit');
  await page.getByLabel('New password', { exact: true }).fill('harbour-master-42');
  await page.getByLabel('New password again').fill('harbour-master-4');
  await page.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByRole('alert')).toContainText('The two new passwords differ');
  await page.getByLabel('New password again').fill('harbour-master-42');
  await page.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByRole('navigation', { name: 'Sections' })).toBeVisible();

  // The event-log account itself changed: TCP clients need the new password too.
  const old = await connectClient(homeport.tcpPort, 'first-sign-in-old');
  await expect(old.appendToStream('first-sign-in', es.expectedVersion.any, [jsonEvent('Tried', {})])).rejects.toThrow();
  old.close();
});
