import { expect, test } from '@playwright/test';
import sharp from 'sharp';
import { OWNER, startHomeportProcess, type RunningHomeport } from './homeport.ts';
import { createSocialUser, homeportCli } from './social-session.ts';

/*
 * The path the social client issue names: a new user creates a profile in the Social tab, signs the client
 * in through OAuth like any app, posts, finds and follows another local account, and sees its posts arrive
 * live (the "new posts" button), then uses the client's screens one by one, all in the browser. A Homeport of
 * its own: the first-run screen needs a server without social accounts. One's own posts, profile and people:
 * social-client-own.spec.ts.
 */

let hp: RunningHomeport;
test.beforeAll(async () => {
  hp = await startHomeportProcess();
});
test.afterAll(async () => {
  await hp?.stop();
});

const cli = (args: string[], input?: string) => homeportCli(hp, args, input);

test('first run to a live home timeline, without a terminal', async ({ page }) => {
  await page.goto(`${hp.httpUrl}/ui/social`);
  await page.getByLabel('User name').fill(OWNER.name);
  await page.getByLabel('Password').fill(OWNER.password);
  await page.getByRole('button', { name: 'Sign in' }).click();

  // First run: the owner's profile.
  const form = page.getByRole('form', { name: 'Create your profile' });
  await expect(form).toContainText('only this computer can reach it');
  await expect(form.getByRole('link', { name: /federation self-check/ })).toHaveAttribute(
    'href',
    '/ui/server#federation-check-title',
  );
  await form.getByLabel('Username').fill('alice');
  await form.getByLabel('Display name').fill('Alice Harbour');
  await form.getByLabel('E-mail address').fill('alice@example.org');
  await form.getByLabel('Password').fill('alice-long-password');
  await form.getByLabel('Bio').fill('Sailing, mostly.');
  await form.getByLabel(/Profile picture/).setInputFiles({
    name: 'alice.png',
    mimeType: 'image/png',
    buffer: await sharp({ create: { width: 640, height: 480, channels: 3, background: '#2a6f97' } })
      .png()
      .toBuffer(),
  });
  await form.getByRole('button', { name: 'Create profile' }).click();
  await expect(page.getByRole('button', { name: 'Sign in to the social client' })).toBeVisible();
  const created = (await (await fetch(`${hp.httpUrl}/api/v1/accounts/lookup?acct=alice`)).json()) as { avatar: string };
  expect(created.avatar).not.toMatch(/missing\.png$/);
  expect((await sharp(Buffer.from(await (await fetch(created.avatar)).arrayBuffer())).metadata()).width).toBe(400);

  // The client signs in through the server's own OAuth pages (PKCE), as a third-party app would.
  await page.getByRole('button', { name: 'Sign in to the social client' }).click();
  await page.getByLabel('Username or e-mail address').fill('alice');
  await page.getByLabel('Password').fill('alice-long-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Authorize' }).click();
  await expect(page.getByText('Signed in as')).toContainText('@alice');
  await expect(page).toHaveURL(`${hp.httpUrl}/ui/social`);
  await expect(page.getByText('live', { exact: true })).toBeVisible();

  // Posting, with the character counter.
  const compose = page.getByRole('form', { name: 'Compose' });
  await compose.getByLabel('What’s on your mind?').fill('Hello from my own harbour');
  await expect(compose.getByLabel('Characters left')).toHaveText('475');
  await compose.getByRole('button', { name: 'Post' }).click();
  await expect(page.getByRole('article', { name: 'Post by Alice Harbour' }).first()).toContainText(
    'Hello from my own harbour',
  );

  // Another local account (made with the CLI), found and followed from the client.
  const bobToken = createSocialUser(hp, 'bob', 'read write').token;
  await page.getByLabel('People, #hashtags or posts').fill('bob');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByRole('button', { name: 'Follow @bob' }).click();
  await expect(page.getByRole('button', { name: 'Follow @bob' })).toHaveText('Following');
  await page.getByRole('navigation', { name: 'Social' }).getByRole('link', { name: 'Home' }).click();

  // Bob posts: it arrives live behind a "new post" button, then shows on top.
  const posted = await fetch(`${hp.httpUrl}/api/v1/statuses`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${bobToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ status: 'Ahoy Alice!' }),
  });
  expect(posted.status).toBe(200);
  await page.getByRole('button', { name: '1 new post' }).click();
  const bobsPost = page.getByRole('article', { name: 'Post by bob' });
  await expect(bobsPost).toContainText('Ahoy Alice!');

  // Favourite, shown at once and kept by the server.
  await bobsPost.getByRole('button', { name: /Favourite/ }).click();
  await expect(bobsPost.getByRole('button', { name: /Unfavourite \(1\)/ })).toBeVisible();
  const check = (await (await fetch(`${hp.httpUrl}/api/v1/timelines/public?local=true`)).json()) as {
    content: string;
    favourites_count: number;
  }[];
  expect(check.find((s) => s.content.includes('Ahoy Alice!'))?.favourites_count).toBe(1);
  await page.screenshot({ path: 'test-results/screenshots/social-client.png', fullPage: true });

  // Bob favourites and boosts Alice's post: live, a badge counts it, the notifications list groups it.
  const own = (await (await fetch(`${hp.httpUrl}/api/v1/timelines/public?local=true`)).json()) as {
    id: string;
    content: string;
  }[];
  const alicesPost = own.find((s) => s.content.includes('Hello from my own harbour'))!;
  for (const action of ['favourite', 'reblog']) {
    const res = await fetch(`${hp.httpUrl}/api/v1/statuses/${alicesPost.id}/${action}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${bobToken}` },
    });
    expect(res.status).toBe(200);
  }
  const tab = page.getByRole('navigation', { name: 'Social' }).getByRole('link', { name: /Notifications/ });
  await expect(tab).toHaveText('Notifications (2)');
  await tab.click();
  const list = page.getByRole('region', { name: 'Notifications' }).getByRole('listitem');
  await expect(list.filter({ hasText: 'favourited your post' })).toContainText('bob');
  await expect(list.filter({ hasText: 'boosted your post' })).toContainText('Hello from my own harbour');
  // Opening the list moves the notifications marker: the badge clears.
  await expect(tab).toHaveText('Notifications');
  await page.screenshot({ path: 'test-results/screenshots/social-notifications.png', fullPage: true });

  // A thread: Bob's post with a reply written here, which mentions and notifies him.
  await page.getByRole('navigation', { name: 'Social' }).getByRole('link', { name: 'Home' }).click();
  await page
    .getByRole('article', { name: 'Post by bob' })
    .getByRole('button', { name: /Thread/ })
    .click();
  const thread = page.getByRole('region', { name: 'Thread' });
  await thread.getByLabel('Your reply').fill('Thanks Bob!');
  await thread.getByRole('form', { name: 'Reply' }).getByRole('button', { name: 'Reply' }).click();
  await expect(thread.getByRole('article', { name: 'Post by Alice Harbour' })).toContainText('Thanks Bob!');
  const mentions = (await (
    await fetch(`${hp.httpUrl}/api/v1/notifications?types[]=mention`, {
      headers: { Authorization: `Bearer ${bobToken}` },
    })
  ).json()) as { status: { content: string } }[];
  expect(mentions.map((n) => n.status.content).join()).toContain('Thanks Bob!');
  await page.screenshot({ path: 'test-results/screenshots/social-thread.png', fullPage: true });
  // Bob's profile, from his name: his posts, his numbers, and unfollowing him.
  await thread.getByRole('link', { name: 'bob', exact: true }).click();
  const profile = page.getByRole('region', { name: 'bob' });
  await expect(profile).toContainText('@bob');
  await expect(profile.getByRole('article', { name: 'Post by bob' })).toContainText('Ahoy Alice!');
  await expect(profile).toContainText('1 followers');
  await profile.getByRole('button', { name: 'Unfollow' }).click();
  await expect(profile.getByRole('button', { name: 'Follow', exact: true })).toBeVisible();
  await expect(profile).toContainText('0 followers');
  await page.screenshot({ path: 'test-results/screenshots/social-profile.png', fullPage: true });
  await profile.getByRole('button', { name: 'Back' }).click();
  await expect(page.getByRole('region', { name: 'Thread' })).toBeVisible();
  await page.getByRole('region', { name: 'Thread' }).getByRole('button', { name: 'Back' }).click();
  await expect(page.getByRole('region', { name: 'Home' })).toBeVisible();

  // A picture with its description: uploaded with progress, reminded of the missing description, posted.
  const png = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGM4kWIERAwQCgAorgV5QuEn7gAAAABJRU5ErkJggg==',
    'base64',
  );
  await compose
    .getByLabel('Add images, video or audio')
    .setInputFiles({ name: 'harbour.png', mimeType: 'image/png', buffer: png });
  await expect(compose.getByRole('progressbar', { name: 'Upload of harbour.png' })).toHaveAttribute('value', '100');
  await expect(compose).toContainText('Add a description for people who cannot see it.');
  await compose.getByLabel('Description of attachment 1').fill('The harbour at dawn');
  await compose.getByLabel('What’s on your mind?').fill('Morning view');
  await compose.getByRole('button', { name: 'Post' }).click();
  const pictured = page.getByRole('article', { name: 'Post by Alice Harbour' }).filter({ hasText: 'Morning view' });
  await expect(pictured.getByRole('img', { name: 'The harbour at dawn' })).toBeVisible();
  // The media viewer shows it large, with its description; Escape closes it.
  await pictured.getByRole('button', { name: 'View image: The harbour at dawn' }).click();
  const viewer = page.getByRole('dialog', { name: 'Image' });
  await expect(viewer).toContainText('The harbour at dawn');
  await page.keyboard.press('Escape');
  await expect(viewer).toHaveCount(0);

  // A poll: made here, voted on by Bob, its results read in the local timeline.
  await compose.getByRole('button', { name: 'Add a poll' }).click();
  await compose.getByLabel('Choice 1').fill('Tea');
  await compose.getByLabel('Choice 2').fill('Coffee');
  await compose.getByLabel('What’s on your mind?').fill('Tea or coffee?');
  await compose.getByRole('button', { name: 'Post' }).click();
  await expect(
    page.getByRole('article', { name: 'Post by Alice Harbour' }).filter({ hasText: 'Tea or coffee?' }),
  ).toBeVisible();
  const local = (await (await fetch(`${hp.httpUrl}/api/v1/timelines/public?local=true`)).json()) as {
    content: string;
    poll: { id: string } | null;
  }[];
  const pollId = local.find((p) => p.content.includes('Tea or coffee?'))!.poll!.id;
  const voted = await fetch(`${hp.httpUrl}/api/v1/polls/${pollId}/votes`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${bobToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ choices: [1] }),
  });
  expect(voted.status).toBe(200);
  await page.getByRole('navigation', { name: 'Social' }).getByRole('link', { name: 'Local' }).click();
  const results = page
    .getByRole('region', { name: 'Local' })
    .getByRole('article')
    .filter({ hasText: 'Tea or coffee?' })
    .getByRole('list', { name: 'Poll results' });
  await expect(results).toContainText('1 vote');
  await expect(results.getByRole('meter', { name: 'Coffee' })).toHaveAttribute('value', '1');
  await page.screenshot({ path: 'test-results/screenshots/social-local.png', fullPage: true });

  // Keyboard only: j and k move between posts, f, b and s favourite, boost and bookmark the one in focus,
  // ? lists the shortcuts, n goes to the compose box, / to finding people.
  await page.getByRole('navigation', { name: 'Social' }).getByRole('link', { name: 'Home' }).click();
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press('j');
  const inFocus = page.locator('article.status:focus');
  await expect(inFocus).toContainText('Tea or coffee?');
  await page.keyboard.press('f');
  await expect(inFocus.getByRole('button', { name: 'Unfavourite (1)' })).toBeVisible();
  await page.keyboard.press('b');
  await expect(inFocus.getByRole('button', { name: 'Unboost (1)' })).toBeVisible();
  await page.keyboard.press('s');
  await expect(inFocus.getByRole('button', { name: 'Remove bookmark' })).toBeVisible();
  const bookmarks = (await (
    await fetch(`${hp.httpUrl}/api/v1/bookmarks`, {
      headers: { Authorization: `Bearer ${cli(['tokens', 'create', 'alice', '--scopes', 'read']).trim()}` },
    })
  ).json()) as { content: string }[];
  expect(bookmarks.map((b) => b.content).join()).toContain('Tea or coffee?');
  await page.keyboard.press('j');
  await expect(inFocus).not.toContainText('Tea or coffee?');
  await page.keyboard.press('k');
  await expect(inFocus).toContainText('Tea or coffee?');
  await page.keyboard.press('?');
  const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(help).toContainText('boost the post in focus');
  await page.keyboard.press('Escape');
  await expect(help).toBeHidden();
  await page.keyboard.press('n');
  await expect(compose.getByLabel('What’s on your mind?')).toBeFocused();
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press('/');
  await expect(page.getByLabel('People, #hashtags or posts')).toBeFocused();

  // Bookmarks and favourites have their own lists; what is done there shows everywhere.
  const timelines = page.getByRole('navigation', { name: 'Social' });
  await timelines.getByRole('link', { name: 'Bookmarks' }).click();
  const bookmarked = page.getByRole('region', { name: 'Bookmarks' }).getByRole('article');
  await expect(bookmarked).toHaveCount(1);
  await expect(bookmarked).toContainText('Tea or coffee?');
  await bookmarked.getByRole('button', { name: 'Remove bookmark' }).click();
  await expect(bookmarked.getByRole('button', { name: 'Bookmark', exact: true })).toBeVisible();
  await timelines.getByRole('link', { name: 'Favourites' }).click();
  const favourites = page.getByRole('region', { name: 'Favourites' });
  await expect(favourites.getByRole('article')).toHaveCount(2);
  await expect(favourites).toContainText('Ahoy Alice!');
  await timelines.getByRole('link', { name: 'Home' }).click();
  await expect(
    page
      .getByRole('article')
      .filter({ hasText: 'Tea or coffee?' })
      .first()
      .getByRole('button', { name: 'Bookmark', exact: true }),
  ).toBeVisible();

  // Lists: made here, filled with people one follows, each with its own timeline.
  const aliceToken = cli(['tokens', 'create', 'alice', '--scopes', 'read write follow']).trim();
  expect(
    (
      await fetch(
        `${hp.httpUrl}/api/v1/accounts/${(await (await fetch(`${hp.httpUrl}/api/v1/accounts/lookup?acct=bob`)).json()).id}/follow`,
        { method: 'POST', headers: { Authorization: `Bearer ${aliceToken}` } },
      )
    ).status,
  ).toBe(200);
  await timelines.getByRole('link', { name: 'Lists' }).click();
  const newList = page.getByRole('form', { name: 'New list' });
  await newList.getByLabel('New list').fill('Crew');
  await newList.getByLabel('Replies shown').selectOption('list');
  await newList.getByRole('button', { name: 'Create list' }).click();
  const listPage = page.getByRole('region', { name: 'Crew', exact: true });
  await expect(listPage).toContainText('Nobody yet');
  await listPage.getByLabel('Add someone you follow').fill('bob');
  await listPage.getByRole('button', { name: 'Find' }).click();
  await listPage.getByRole('button', { name: 'Add @bob' }).click();
  await expect(listPage.getByRole('list', { name: 'Members' })).toContainText('@bob');
  await expect(page.getByRole('region', { name: 'Crew: posts' })).toContainText('Ahoy Alice!');
  await page.screenshot({ path: 'test-results/screenshots/social-lists.png', fullPage: true });
  await listPage.getByRole('button', { name: 'Back to lists' }).click();
  await expect(page.getByRole('list', { name: 'Your lists' })).toContainText('Crew');

  // Filters: made here, applied by the server to others' posts; a warning filter keeps them behind its name.
  await timelines.getByRole('link', { name: 'Filters' }).click();
  const newFilter = page.getByRole('form', { name: 'New filter' });
  await newFilter.getByLabel('Name').fill('No sailors');
  await newFilter.getByLabel('Words or phrases (comma separated)').fill('ahoy');
  await newFilter.getByRole('button', { name: 'Create filter' }).click();
  await expect(page.getByRole('list', { name: 'Your filters' })).toContainText('No sailors');
  await timelines.getByRole('link', { name: 'Home' }).click();
  const hidden = page.getByRole('article', { name: 'Filtered post by bob' }).first();
  await expect(hidden).toContainText('Filtered: No sailors');
  await hidden.getByRole('button', { name: 'Show anyway' }).click();
  await expect(
    page.getByRole('article', { name: 'Post by bob' }).filter({ hasText: 'Ahoy Alice!' }).first(),
  ).toBeVisible();
  await timelines.getByRole('link', { name: 'Filters' }).click();
  await page.getByRole('button', { name: 'Delete the filter No sailors' }).click();
  await expect(page.getByRole('region', { name: 'Filters' })).toContainText('No filters');

  // Every view of the client, in both themes, for the README (written to test-results/screenshots/).
  for (const theme of ['light', 'dark'] as const) {
    await page.getByLabel('Theme').selectOption(theme);
    for (const view of [
      'Home',
      'Local',
      'Federated',
      'Notifications',
      'Bookmarks',
      'Favourites',
      'Lists',
      'Filters',
      'People',
    ]) {
      await timelines
        .getByRole('link', {
          name: view === 'Notifications' ? /^Notifications/ : view,
          exact: view !== 'Notifications',
        })
        .click();
      await expect(page.getByRole('heading', { level: 2, name: view })).toBeVisible();
      await page.screenshot({
        path: `test-results/screenshots/social-${view.toLowerCase()}-${theme}.png`,
        fullPage: true,
      });
    }
  }
  await timelines.getByRole('link', { name: 'Home' }).click();

  // Light and dark: chosen in the top bar, kept across a reload.
  await page.getByLabel('Theme').selectOption('dark');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await expect(page.locator('body')).toHaveCSS('background-color', 'rgb(20, 23, 27)');
  await page.screenshot({ path: 'test-results/screenshots/social-client-dark.png', fullPage: true });
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.getByLabel('Theme').selectOption('light');
  await expect(page.locator('body')).toHaveCSS('background-color', 'rgb(255, 255, 255)');
});
