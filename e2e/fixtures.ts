import { test as base, expect, type Page } from '@playwright/test';
import { OWNER, startHomeportProcess, type RunningHomeport } from './homeport.ts';

/** One Homeport server per worker; each test gets a page already signed in as the owner. */
export const test = base.extend<{ signedIn: Page }, { homeport: RunningHomeport }>({
  homeport: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const hp = await startHomeportProcess();
      await use(hp);
      await hp.stop();
    },
    { scope: 'worker' },
  ],
  signedIn: async ({ page, homeport }, use) => {
    await page.goto(`${homeport.httpUrl}/ui/eventlog`);
    await page.getByLabel('User name').fill(OWNER.name);
    await page.getByLabel('Password').fill(OWNER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('navigation', { name: 'Sections' })).toBeVisible();
    await use(page);
  },
});

export { expect };

/** Screenshots go under test-results/screenshots so the notes and README can point at them. */
export function screenshotPath(name: string): string {
  return `test-results/screenshots/${name}.png`;
}
