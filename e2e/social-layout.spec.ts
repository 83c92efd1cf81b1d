import { expect, test, type Page } from '@playwright/test';
import { startHomeportProcess, type RunningHomeport } from './homeport.ts';
import { createSocialUser, signInSocialClient } from './social-session.ts';

/*
 * The social client laid out as the clients people use: navigation beside the timeline, compose in a
 * column (or opened with New post / `n` on narrow windows), the first post near the top, a skip link; at
 * 390 px one column and nothing scrolls sideways. Notifications show avatars, times and Follow back.
 */

let hp: RunningHomeport;
let alice: ReturnType<typeof createSocialUser>;
let bob: ReturnType<typeof createSocialUser>;
test.beforeAll(async () => {
  hp = await startHomeportProcess();
  alice = createSocialUser(hp, 'alice');
  bob = createSocialUser(hp, 'bob');
  const as = (token: string) => async (route: string, body?: unknown) => {
    const res = await fetch(`${hp.httpUrl}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body ?? {}),
    });
    expect(res.status, route).toBeLessThan(300);
    return (await res.json()) as { id: string };
  };
  const aliceId = (
    (await (
      await fetch(`${hp.httpUrl}/api/v1/accounts/verify_credentials`, {
        headers: { authorization: `Bearer ${alice.token}` },
      })
    ).json()) as { id: string }
  ).id;
  for (let i = 1; i <= 3; i++) await as(alice.token)('/api/v1/statuses', { status: `Harbour log ${i}` });
  // Bob follows Alice: her notifications offer to follow him back.
  await as(bob.token)(`/api/v1/accounts/${aliceId}/follow`);
});
test.afterAll(async () => {
  await hp?.stop();
});

const noSidewaysScroll = (page: Page) =>
  expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth))
    .toBeLessThanOrEqual(0);

test('wide: navigation, timeline and compose side by side; the first post near the top; skip link', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await signInSocialClient(page, hp, alice);
  const nav = page.getByRole('navigation', { name: 'Social' });
  const firstPost = page.getByRole('region', { name: 'Home' }).getByRole('article').first();
  const compose = page.getByRole('form', { name: 'Compose' });
  await expect(firstPost).toContainText('Harbour log 3');
  const [navBox, postBox, composeBox] = await Promise.all([
    nav.boundingBox(),
    firstPost.boundingBox(),
    compose.boundingBox(),
  ]);
  // Three columns: navigation left of the posts, compose right of them; the first post starts high up.
  expect(navBox!.x + navBox!.width).toBeLessThanOrEqual(postBox!.x);
  expect(postBox!.x + postBox!.width).toBeLessThanOrEqual(composeBox!.x);
  expect(postBox!.y).toBeLessThan(300);
  // Times are relative, the full time on hover.
  await expect(firstPost.locator('time')).toHaveText(/^(now|\d+ min)$/);
  await expect(firstPost.locator('time')).toHaveAttribute('title', /\d/);
  await page.screenshot({ path: 'test-results/screenshots/social-layout-wide.png' });

  // From the top of the page, a few Tab presses and the skip link reach the first post.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  let presses = 0;
  while (presses < 15) {
    await page.keyboard.press('Tab');
    presses++;
    if ((await page.evaluate(() => document.activeElement?.textContent)) === 'Skip to the posts') break;
  }
  expect(presses).toBeLessThan(15);
  await page.keyboard.press('Enter');
  await page.keyboard.press('Tab');
  await expect(firstPost.getByRole('link', { name: 'alice', exact: true })).toBeFocused();
});

test('narrow (390 px): one column, nothing scrolls sideways, compose opens with New post or n', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signInSocialClient(page, hp, alice);
  const compose = page.getByRole('form', { name: 'Compose' });
  await expect(compose).toBeHidden();
  await noSidewaysScroll(page);
  await page.screenshot({ path: 'test-results/screenshots/social-home-390.png', fullPage: true });
  await page.keyboard.press('n');
  await expect(compose).toBeVisible();
  await expect(compose.getByLabel('What’s on your mind?')).toBeFocused();
  await page.getByRole('region', { name: 'New post' }).getByRole('button', { name: 'Close' }).click();
  await expect(compose).toBeHidden();
  await page.getByRole('button', { name: 'New post' }).click();
  await expect(compose).toBeVisible();
  await page.getByRole('region', { name: 'New post' }).getByRole('button', { name: 'Close' }).click();

  for (const [link, name] of [
    ['Notifications', 'Notifications'],
    ['Local', 'Local'],
    ['Settings', 'Settings'],
    ['Profile', 'alice'],
  ]) {
    // "Notifications (1)": the unread count is part of the link's name.
    await page
      .getByRole('navigation', { name: 'Social' })
      .getByRole('link', { name: new RegExp(`^${link}`) })
      .click();
    await expect(page.getByRole('heading', { level: 2, name, exact: true })).toBeVisible();
    await noSidewaysScroll(page);
    await page.screenshot({ path: `test-results/screenshots/social-${link.toLowerCase()}-390.png`, fullPage: true });
  }
  for (const path of ['/ui/eventlog', '/ui/subscriptions', '/ui/server']) {
    await page.goto(`${hp.httpUrl}${path}`);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await noSidewaysScroll(page);
  }
});

test('notifications show who with avatars, when, and Follow back', async ({ page }) => {
  await signInSocialClient(page, hp, alice);
  await page
    .getByRole('navigation', { name: 'Social' })
    .getByRole('link', { name: /^Notifications/ })
    .click();
  const follow = page.getByRole('list', { name: 'Notifications' }).locator('li[data-type="follow"]');
  await expect(follow).toContainText('bob followed you');
  await expect(follow.locator('.avatars img')).toHaveCount(1);
  await expect(follow.locator('time')).toHaveText(/^(now|\d+ min)$/);
  await follow.getByRole('button', { name: 'Follow back @bob' }).click();
  await expect(follow).toContainText('You follow each other');
  const rel = (await (
    await fetch(`${hp.httpUrl}/api/v1/accounts/relationships?id[]=${await bobId()}`, {
      headers: { authorization: `Bearer ${alice.token}` },
    })
  ).json()) as { following: boolean }[];
  expect(rel[0].following).toBe(true);
});

async function bobId(): Promise<string> {
  const res = await fetch(`${hp.httpUrl}/api/v1/accounts/verify_credentials`, {
    headers: { authorization: `Bearer ${bob.token}` },
  });
  return ((await res.json()) as { id: string }).id;
}
