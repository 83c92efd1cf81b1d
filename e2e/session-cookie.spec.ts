import { expect, test } from './fixtures.ts';

test('a sign-in lasts into a new tab and a reopened browser, out of scripts’ reach, and sign-out ends it', async ({
  signedIn: page,
  context,
  homeport,
}) => {
  // The session cookie is HttpOnly: the page's scripts cannot read it.
  expect(await page.evaluate(() => document.cookie)).not.toContain('homeport_ui_session');
  const cookies = await context.cookies(homeport.httpUrl + '/api/homeport/v1/session');
  expect(cookies.find((c) => c.name === 'homeport_ui_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });

  // A new tab (no sessionStorage of its own) opens signed in.
  const tab = await context.newPage();
  await tab.goto(`${homeport.httpUrl}/ui/server`);
  await expect(tab.getByRole('heading', { level: 1, name: 'Server' })).toBeVisible();
  await expect(tab.getByLabel('User name')).toHaveCount(0);

  // A reopened browser: a new context holding only the saved cookies.
  const state = await context.storageState();
  const reopened = await context.browser()!.newContext({ storageState: { cookies: state.cookies, origins: [] } });
  const again = await reopened.newPage();
  await again.goto(`${homeport.httpUrl}/ui/subscriptions`);
  await expect(again.getByRole('heading', { level: 1, name: 'Subscriptions' })).toBeVisible();

  // Signing out ends it everywhere it was used.
  await again.getByRole('button', { name: 'Sign out' }).click();
  await expect(again.getByLabel('User name')).toBeVisible();
  await reopened.close();
  await tab.reload();
  await expect(tab.getByLabel('User name')).toBeVisible();
});
