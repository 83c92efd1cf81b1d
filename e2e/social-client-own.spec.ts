import { expect, test } from '@playwright/test';
import sharp from 'sharp';
import { startHomeportProcess, type RunningHomeport } from './homeport.ts';
import { createSocialUser, homeportCli, signInSocialClient } from './social-session.ts';

/*
 * One's own things in the social client, in the browser against a real `homeport serve`: one's posts edited
 * (with their history), deleted, or deleted and redrafted; one's profile edited (bio, fields, a header picture);
 * a post being written kept across a reload; a follow request answered and a mute undone; notifications by
 * type; search. The first-run walk that comes before these in use is social-client.spec.ts.
 */

let hp: RunningHomeport;
test.beforeAll(async () => {
  hp = await startHomeportProcess();
});
test.afterAll(async () => {
  await hp?.stop();
});

/** Alice as the first-run walk leaves her (named, with a bio and a post) and bob (no token: only muted here). */
async function aliceAndBob() {
  const alice = createSocialUser(hp, 'alice', 'read write follow');
  homeportCli(
    hp,
    ['accounts', 'create', 'bob', '--email', 'bob@example.org', '--password-stdin', '--confirmed'],
    'bob-long-password\n',
  );
  const call = async (route: string, method: string, body?: unknown) => {
    const res = await fetch(`${hp.httpUrl}${route}`, {
      method,
      headers: { Authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(res.status, `${method} ${route}`).toBe(200);
  };
  await call('/api/v1/accounts/update_credentials', 'PATCH', {
    display_name: 'Alice Harbour',
    note: 'Sailing, mostly.',
  });
  await call('/api/v1/statuses', 'POST', { status: 'Hello from my own harbour' });
  return alice;
}

test('own posts, own profile, people and search', async ({ page }) => {
  const alice = await aliceAndBob();
  await signInSocialClient(page, hp, alice);
  const timelines = page.getByRole('navigation', { name: 'Social' });
  const compose = page.getByRole('form', { name: 'Compose' });

  // One's own posts: edited (marked edited), deleted, or deleted and redrafted (the text comes back to compose).
  await compose.getByLabel('What’s on your mind?').fill('A typo in this pst');
  await compose.getByRole('button', { name: 'Post' }).click();
  const typo = page.getByRole('article', { name: 'Post by Alice Harbour' }).filter({ hasText: 'A typo in this pst' });
  // Editing and deleting sit under "More", as in Mastodon's web client.
  await typo.locator('summary', { hasText: 'More' }).click();
  await typo.getByRole('button', { name: 'Edit' }).click();
  await expect(compose.getByRole('status')).toContainText('Editing a post');
  await expect(compose.getByLabel('What’s on your mind?')).toHaveValue('A typo in this pst');
  await compose.getByLabel('What’s on your mind?').fill('No typo in this post');
  await compose.getByRole('button', { name: 'Save changes' }).click();
  const fixed = page
    .getByRole('article', { name: 'Post by Alice Harbour' })
    .filter({ hasText: 'No typo in this post' });
  await expect(fixed).toContainText('edited');
  // Its history: the original and the current version.
  await fixed.getByRole('button', { name: '· edited' }).click();
  const history = fixed.getByRole('region', { name: 'Edit history' });
  await expect(history).toContainText('A typo in this pst');
  await expect(history).toContainText('(original)');
  await fixed.getByRole('button', { name: '· edited' }).click();
  if (!(await fixed.getByRole('button', { name: 'Delete…' }).isVisible()))
    await fixed.locator('summary', { hasText: 'More' }).click();
  await fixed.getByRole('button', { name: 'Delete…' }).click();
  await fixed.getByRole('button', { name: 'Delete and redraft' }).click();
  await expect(page.getByRole('article').filter({ hasText: 'No typo in this post' })).toHaveCount(0);
  await expect(compose.getByLabel('What’s on your mind?')).toHaveValue('No typo in this post');
  await compose.getByRole('button', { name: 'Post' }).click();
  const again = page
    .getByRole('article', { name: 'Post by Alice Harbour' })
    .filter({ hasText: 'No typo in this post' });
  await expect(again).not.toContainText('edited');
  await again.locator('summary', { hasText: 'More' }).click();
  await again.getByRole('button', { name: 'Delete…' }).click();
  await again.getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(page.getByRole('article').filter({ hasText: 'No typo in this post' })).toHaveCount(0);

  // One's own profile, edited here: bio and fields as written.
  await page
    .getByRole('article', { name: 'Post by Alice Harbour' })
    .first()
    .getByRole('link', { name: 'Alice Harbour', exact: true })
    .click();
  const ownProfile = page.getByRole('region', { name: 'Alice Harbour' });
  await ownProfile.getByRole('button', { name: 'Edit profile' }).click();
  const editor = page.getByRole('form', { name: 'Edit profile' });
  await expect(editor.getByLabel('Bio')).toHaveValue('Sailing, mostly.');
  await editor.getByLabel('Bio').fill('Sailing, mostly. And tea.');
  await editor.getByRole('button', { name: 'Add a field' }).click();
  await editor.getByLabel('Label 1').fill('Boat');
  await editor.getByLabel('Content 1').fill('Ketch');
  // A header picture with its description, previewed before saving.
  await editor.getByLabel(/Choose a new header image/).setInputFiles({
    name: 'sea.png',
    mimeType: 'image/png',
    buffer: await sharp({ create: { width: 1800, height: 700, channels: 3, background: '#e9c46a' } })
      .png()
      .toBuffer(),
  });
  await editor.getByLabel('Header image description').fill('A calm sea at noon');
  await expect(editor.getByRole('img', { name: 'A calm sea at noon' })).toBeVisible();
  await editor.getByRole('button', { name: 'Save profile' }).click();
  await expect(ownProfile).toContainText('And tea.');
  await expect(ownProfile.getByRole('definition')).toHaveText('Ketch');
  await expect(ownProfile.getByRole('img', { name: 'A calm sea at noon' })).toBeVisible();
  const withHeader = (await (await fetch(`${hp.httpUrl}/api/v1/accounts/lookup?acct=alice`)).json()) as {
    header: string;
    header_description: string;
  };
  expect(withHeader.header_description).toBe('A calm sea at noon');
  expect((await sharp(Buffer.from(await (await fetch(withHeader.header)).arrayBuffer())).metadata()).width).toBe(1500);
  await ownProfile.getByRole('button', { name: 'Back' }).click();

  // A post being written survives a reload (kept in this browser until posted).
  await compose.getByLabel('What’s on your mind?').fill('Half-written thought');
  await page.reload();
  await expect(page.getByRole('form', { name: 'Compose' }).getByLabel('What’s on your mind?')).toHaveValue(
    'Half-written thought',
  );
  await page.getByRole('form', { name: 'Compose' }).getByLabel('What’s on your mind?').fill('');

  // People: a follow request to a locked account is answered here; mutes and blocks are undone here.
  expect(
    (
      await fetch(`${hp.httpUrl}/api/v1/accounts/update_credentials`, {
        method: 'PATCH',
        headers: { Authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ locked: true }),
      })
    ).status,
  ).toBe(200);
  const carolToken = createSocialUser(hp, 'carol', 'read write follow').token;
  const aliceId = (await (await fetch(`${hp.httpUrl}/api/v1/accounts/lookup?acct=alice`)).json()).id as string;
  const bobId = (await (await fetch(`${hp.httpUrl}/api/v1/accounts/lookup?acct=bob`)).json()).id as string;
  expect(
    (
      await fetch(`${hp.httpUrl}/api/v1/accounts/${aliceId}/follow`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${carolToken}` },
      })
    ).status,
  ).toBe(200);
  expect(
    (
      await fetch(`${hp.httpUrl}/api/v1/accounts/${bobId}/mute`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${alice.token}` },
      })
    ).status,
  ).toBe(200);
  await timelines.getByRole('link', { name: 'People' }).click();
  const requests = page.getByRole('list', { name: 'Follow requests' });
  await expect(requests).toContainText('@carol');
  await requests.getByRole('button', { name: 'Accept @carol' }).click();
  await expect(page.getByRole('region', { name: 'Follow requests' })).toContainText('No one is waiting');
  const carolFollows = (await (
    await fetch(`${hp.httpUrl}/api/v1/accounts/relationships?id[]=${aliceId}`, {
      headers: { Authorization: `Bearer ${carolToken}` },
    })
  ).json()) as { following: boolean }[];
  expect(carolFollows[0].following).toBe(true);
  await page.getByRole('list', { name: 'Muted' }).getByRole('button', { name: 'Unmute @bob' }).click();
  await expect(page.getByRole('region', { name: 'Muted' })).toContainText('You mute no one');
  await expect(page.getByRole('region', { name: 'Blocked' })).toContainText('You block no one');
  await page.screenshot({ path: 'test-results/screenshots/social-people.png', fullPage: true });

  // Notifications by type: carol's follow shows under Follows, not under Mentions.
  await timelines.getByRole('link', { name: /^Notifications/ }).click();
  const show = page.getByRole('navigation', { name: 'Show notifications' });
  await show.getByRole('link', { name: 'Follows' }).click();
  await expect(page.getByRole('list', { name: 'Notifications' })).toContainText('carol');
  await show.getByRole('link', { name: 'Polls' }).click();
  await expect(page.getByRole('list', { name: 'Notifications' }).locator('li[data-type="follow"]')).toHaveCount(0);
  await show.getByRole('link', { name: 'All' }).click();

  // Search: people, hashtags and posts (full text over one's own posts, as Mastodon scopes it).
  await page.getByLabel('People, #hashtags or posts').fill('harbour');
  await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
  await expect(page.getByRole('region', { name: 'Posts found' })).toContainText('Hello from my own harbour');
});
