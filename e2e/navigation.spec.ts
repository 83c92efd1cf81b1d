import { expect, screenshotPath, test } from './fixtures.ts';

test('a wrong password is refused with a message and no access', async ({ page, homeport }) => {
  await page.goto(`${homeport.httpUrl}/`);
  await page.getByLabel('User name').fill('admin');
  await page.getByLabel('Password').fill('wrong');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toContainText('Wrong user name or password');
  await expect(page.getByRole('navigation', { name: 'Sections' })).toHaveCount(0);
});

test('the owner signs in and visits every section', async ({ signedIn: page, homeport }) => {
  const nav = page.getByRole('navigation', { name: 'Sections' });
  for (const [label, heading] of [
    ['Event log', 'Event log'],
    ['Subscriptions', 'Subscriptions'],
    ['Social', 'Social'],
    ['Server', 'Server'],
  ] as const) {
    await nav.getByRole('link', { name: label }).click();
    await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
    await expect(nav.getByRole('link', { name: label })).toHaveAttribute('aria-current', 'page');
  }
  // The Server view shows the real listeners of this instance.
  const listeners = page.getByRole('table', { name: 'Listeners' });
  await expect(listeners).toContainText(`127.0.0.1:${homeport.tcpPort}`);
  await expect(listeners).toContainText(new URL(homeport.httpUrl).host);
  await expect(page.getByTestId('server-version')).toHaveText(/\d+\.\d+\.\d+/);
  await page.screenshot({ path: screenshotPath('server-view'), fullPage: true });

  // A reload keeps the session and the section (client-side route served by the HTTP server).
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Server' })).toBeVisible();
});
