import { expect, test } from '@playwright/test';
import { startHomeportProcess, type RunningHomeport } from './homeport.ts';
import { createSocialUser, signInSocialClient } from './social-session.ts';

/*
 * Profiles, hashtags and settings in the social client, against a real `homeport serve`: a profile's tabs
 * (pinned posts first, replies, media), whom it follows and who follows it, muting, blocking and a private
 * note; featured and followed hashtags and hashtag links inside posts; posting defaults kept by the server and
 * reading choices kept in the browser. Checked on screen and through the REST API.
 */

let hp: RunningHomeport;
test.beforeAll(async () => {
  hp = await startHomeportProcess();
});
test.afterAll(async () => {
  await hp?.stop();
});

/** A confirmed account made with the CLI, and a REST caller with a token of its own. */
function user(username: string) {
  const { password, token } = createSocialUser(hp, username);
  const api = async <T = Record<string, unknown>>(
    route: string,
    init: { method?: string; body?: unknown } = {},
  ): Promise<T> => {
    const multipart = init.body instanceof FormData;
    const res = await fetch(`${hp.httpUrl}${route}`, {
      method: init.method ?? 'GET',
      headers: {
        Authorization: `Bearer ${token}`,
        ...(init.body && !multipart ? { 'content-type': 'application/json' } : {}),
      },
      body: init.body === undefined ? undefined : multipart ? (init.body as FormData) : JSON.stringify(init.body),
    });
    expect(res.status, `${init.method ?? 'GET'} ${route}`).toBeLessThan(300);
    return (await res.json()) as T;
  };
  return { username, password, api };
}

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGM4kWIERAwQCgAorgV5QuEn7gAAAABJRU5ErkJggg==',
  'base64',
);

/** A picture uploaded with its description, once the server has processed it. */
async function upload(who: ReturnType<typeof user>, description: string): Promise<{ id: string }> {
  const form = new FormData();
  form.append('file', new Blob([PNG], { type: 'image/png' }), 'picture.png');
  form.append('description', description);
  let media = await who.api<{ id: string; url: string | null }>('/api/v2/media', { method: 'POST', body: form });
  for (let i = 0; media.url === null && i < 40; i++) {
    await new Promise((r) => setTimeout(r, 250));
    media = await who.api(`/api/v1/media/${media.id}`);
  }
  return media;
}

interface Status {
  id: string;
  content: string;
  visibility: string;
}
interface Relationship {
  following: boolean;
  muting: boolean;
  blocking: boolean;
  note: string;
}

test('profiles, hashtags and settings', async ({ page }) => {
  const alice = user('alice');
  const bob = user('bob');
  const carol = user('carol');
  const aliceId = (await alice.api<{ id: string }>('/api/v1/accounts/verify_credentials')).id;
  const bobId = (await bob.api<{ id: string }>('/api/v1/accounts/verify_credentials')).id;
  const carolId = (await carol.api<{ id: string }>('/api/v1/accounts/verify_credentials')).id;

  // Bob's profile: a post pinned before newer ones, a reply, a picture, a featured hashtag; he and Carol follow each other.
  const pinned = await bob.api<Status>('/api/v1/statuses', {
    method: 'POST',
    body: { status: 'Read this first: the harbour rules' },
  });
  await bob.api(`/api/v1/statuses/${pinned.id}/pin`, { method: 'POST' });
  await bob.api('/api/v1/statuses', { method: 'POST', body: { status: 'Fair winds today #sailing' } });
  const alicesPost = await alice.api<Status>('/api/v1/statuses', {
    method: 'POST',
    body: { status: 'Anyone out on the water?' },
  });
  await bob.api('/api/v1/statuses', {
    method: 'POST',
    body: { status: '@alice Out past the lighthouse', in_reply_to_id: alicesPost.id },
  });
  const media = await upload(bob, 'The deck at noon');
  await bob.api('/api/v1/statuses', { method: 'POST', body: { status: 'Picture of the deck', media_ids: [media.id] } });
  await bob.api('/api/v1/featured_tags', { method: 'POST', body: { name: 'sailing' } });
  await carol.api(`/api/v1/accounts/${bobId}/follow`, { method: 'POST' });
  await bob.api(`/api/v1/accounts/${carolId}/follow`, { method: 'POST' });

  await signInSocialClient(page, hp, alice);
  // Bob, found by name in search, opens his profile.
  await page.getByLabel('People, #hashtags or posts').fill('bob');
  await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
  await page.getByRole('list', { name: 'People' }).getByRole('link', { name: 'bob', exact: true }).click();
  const profile = page.getByRole('region', { name: 'bob', exact: true });
  await expect(profile).toContainText('@bob');

  // Posts: the pinned one first, marked; replies left out.
  const sections = profile.getByRole('navigation', { name: 'Profile sections' });
  await expect(profile.getByRole('article').first()).toContainText('Read this first');
  await expect(profile.getByRole('region', { name: 'Pinned posts' })).toContainText('Pinned');
  const posts = profile.getByRole('region', { name: 'Posts', exact: true });
  await expect(posts).toContainText('Fair winds today');
  await expect(posts).toContainText('Picture of the deck');
  await expect(posts).not.toContainText('Out past the lighthouse');
  // Posts and replies: the reply too; no pinned block.
  await sections.getByRole('link', { name: 'Posts and replies' }).click();
  const withReplies = profile.getByRole('region', { name: 'Posts and replies' });
  await expect(withReplies).toContainText('Out past the lighthouse');
  await expect(profile.getByRole('region', { name: 'Pinned posts' })).toHaveCount(0);
  // Media: only the picture.
  await sections.getByRole('link', { name: 'Media' }).click();
  const mediaPosts = profile.getByRole('region', { name: 'Media', exact: true }).getByRole('article');
  await expect(mediaPosts).toHaveCount(1);
  await expect(mediaPosts).toContainText('Picture of the deck');
  await expect(mediaPosts.getByRole('img', { name: 'The deck at noon' })).toBeVisible();

  // Whom Bob follows and who follows him; a name there opens that profile.
  await sections.getByRole('link', { name: 'Following' }).click();
  await expect(profile.getByRole('list', { name: 'Following' })).toContainText('@carol');
  await sections.getByRole('link', { name: 'Followers' }).click();
  await expect(profile.getByRole('list', { name: 'Followers' })).toContainText('@carol');
  await profile.getByRole('list', { name: 'Followers' }).getByRole('link', { name: 'carol' }).click();
  await expect(page.getByRole('region', { name: 'carol', exact: true })).toContainText('@carol');
  // Back is the browser's Back: Bob's followers again.
  await page.getByRole('region', { name: 'carol', exact: true }).getByRole('button', { name: 'Back' }).click();
  await expect(profile.getByRole('list', { name: 'Followers' })).toContainText('@carol');

  const relationship = async () => (await alice.api<Relationship[]>(`/api/v1/accounts/relationships?id[]=${bobId}`))[0];
  // Mute, then unmute.
  await profile.getByRole('button', { name: 'Mute @bob' }).click();
  await expect(profile.getByRole('button', { name: 'Unmute @bob' })).toBeVisible();
  await expect(profile).toContainText('Muted');
  expect((await relationship()).muting).toBe(true);
  await profile.getByRole('button', { name: 'Unmute @bob' }).click();
  await expect(profile.getByRole('button', { name: 'Mute @bob' })).toBeVisible();
  expect((await relationship()).muting).toBe(false);

  // Follow, then block (asked first; it ends the follow), then unblock.
  await profile.getByRole('button', { name: 'Follow', exact: true }).click();
  await expect(profile.getByRole('button', { name: 'Unfollow' })).toBeVisible();
  await profile.getByRole('button', { name: 'Block @bob…' }).click();
  const confirm = profile.getByRole('alertdialog', { name: 'Block @bob?' });
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(confirm).toHaveCount(0);
  expect((await relationship()).blocking).toBe(false);
  await profile.getByRole('button', { name: 'Block @bob…' }).click();
  await confirm.getByRole('button', { name: 'Block', exact: true }).click();
  await expect(profile.getByRole('button', { name: 'Unblock @bob' })).toBeVisible();
  await expect(profile.getByRole('button', { name: 'Unfollow' })).toHaveCount(0);
  expect(await relationship()).toMatchObject({ blocking: true, following: false });
  await profile.getByRole('button', { name: 'Unblock @bob' }).click();
  await expect(profile.getByRole('button', { name: 'Follow', exact: true })).toBeVisible();
  expect((await relationship()).blocking).toBe(false);

  // A private note: saved, and there after a reload.
  const note = profile.getByRole('form', { name: 'Private note' });
  await note.getByLabel(/Private note about @bob/).fill('Met at the regatta, owes me a rope');
  await note.getByRole('button', { name: 'Save note' }).click();
  await expect(note.getByRole('status')).toHaveText('Note saved.');
  expect((await relationship()).note).toBe('Met at the regatta, owes me a rope');
  await page.reload();
  await page.getByLabel('People, #hashtags or posts').fill('bob');
  await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
  await page.getByRole('list', { name: 'People' }).getByRole('link', { name: 'bob', exact: true }).click();
  await expect(profile.getByLabel(/Private note about @bob/)).toHaveValue('Met at the regatta, owes me a rope');
  await page.screenshot({ path: 'test-results/screenshots/social-profile-actions.png', fullPage: true });

  // A featured hashtag opens its timeline, followed from there; Back returns to the profile.
  await profile
    .getByRole('list', { name: 'Featured hashtags' })
    .getByRole('button', { name: '#sailing', exact: true })
    .click();
  const hashtag = page.getByRole('region', { name: '#sailing', exact: true });
  await expect(hashtag.getByRole('article')).toContainText('Fair winds today');
  await hashtag.getByRole('button', { name: 'Follow #sailing' }).click();
  await expect(hashtag.getByRole('button', { name: 'Unfollow #sailing' })).toBeVisible();
  expect((await alice.api<{ name: string }[]>('/api/v1/followed_tags')).map((t) => t.name)).toEqual(['sailing']);
  await page.screenshot({ path: 'test-results/screenshots/social-hashtag.png', fullPage: true });
  await hashtag.getByRole('button', { name: 'Back' }).click();
  await expect(profile).toContainText('@bob');
  await profile.getByRole('button', { name: 'Back' }).click();

  // Followed hashtags have a page of their own.
  const timelines = page.getByRole('navigation', { name: 'Social' });
  await timelines.getByRole('link', { name: 'Hashtags' }).click();
  const followed = page.getByRole('list', { name: 'Followed hashtags' });
  await expect(followed).toContainText('#sailing');

  // A hashtag link inside a post opens its timeline in the client, not the server's web page.
  await timelines.getByRole('link', { name: 'Local' }).click();
  const local = page.getByRole('region', { name: 'Local' });
  await local.getByRole('article').filter({ hasText: 'Fair winds today' }).locator('.content a.hashtag').click();
  await expect(page.getByRole('region', { name: '#sailing', exact: true }).getByRole('article')).toContainText(
    'Fair winds today',
  );
  await expect(page).toHaveURL(`${hp.httpUrl}/ui/social/tags/sailing`);
  // Unfollowed from there, gone from the followed list.
  await page
    .getByRole('region', { name: '#sailing', exact: true })
    .getByRole('button', { name: 'Unfollow #sailing' })
    .click();
  await expect(
    page.getByRole('region', { name: '#sailing', exact: true }).getByRole('button', { name: 'Follow #sailing' }),
  ).toBeVisible();
  expect(await alice.api('/api/v1/followed_tags')).toEqual([]);
  await page.getByRole('region', { name: '#sailing', exact: true }).getByRole('button', { name: 'Back' }).click();
  // A mention link opens the mentioned account's profile (a reply: on Bob's profile, as public timelines leave replies out).
  await page.getByLabel('People, #hashtags or posts').fill('bob');
  await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
  await page.getByRole('list', { name: 'People' }).getByRole('link', { name: 'bob', exact: true }).click();
  await sections.getByRole('link', { name: 'Posts and replies' }).click();
  await withReplies
    .getByRole('article')
    .filter({ hasText: 'Out past the lighthouse' })
    .locator('.content a.mention')
    .click();
  await expect(page.getByRole('region', { name: 'alice', exact: true })).toContainText('@alice');
  await page.getByRole('region', { name: 'alice', exact: true }).getByRole('button', { name: 'Back' }).click();

  // Settings: posting defaults kept by the server, used by the next post.
  await timelines.getByRole('link', { name: 'Settings' }).click();
  const posting = page.getByRole('form', { name: 'Posting' });
  await expect(posting.getByLabel('Default visibility')).toHaveValue('public');
  await posting.getByLabel('Default visibility').selectOption('private');
  await posting.getByLabel('Mark media as sensitive by default').check();
  await posting.getByLabel('Default posting language').selectOption('fr');
  await posting.getByRole('button', { name: 'Save posting defaults' }).click();
  await expect(posting.getByRole('status')).toHaveText('Saved.');
  const source = (
    await alice.api<{ source: { privacy: string; sensitive: boolean; language: string } }>(
      '/api/v1/accounts/verify_credentials',
    )
  ).source;
  expect(source).toMatchObject({ privacy: 'private', sensitive: true, language: 'fr' });
  const compose = page.getByRole('form', { name: 'Compose' });
  await expect(compose.getByLabel('Visibility')).toHaveValue('private');
  await compose.getByLabel('What’s on your mind?').fill('Only for my followers');
  await compose.getByRole('button', { name: 'Post' }).click();
  await expect(compose.getByLabel('What’s on your mind?')).toHaveValue('');
  const latest = (await alice.api<Status[]>(`/api/v1/accounts/${aliceId}/statuses?limit=1`))[0];
  expect(latest.content).toContain('Only for my followers');
  expect(latest.visibility).toBe('private');
  // Read again after a reload: the form shows what the server keeps.
  await page.reload();
  await page.getByRole('navigation', { name: 'Social' }).getByRole('link', { name: 'Settings' }).click();
  await expect(page.getByRole('form', { name: 'Posting' }).getByLabel('Default visibility')).toHaveValue('private');
  await expect(
    page.getByRole('form', { name: 'Posting' }).getByLabel('Mark media as sensitive by default'),
  ).toBeChecked();

  // Reading choices, kept in this browser: posts behind a content warning open at once.
  await bob.api('/api/v1/statuses', {
    method: 'POST',
    body: { status: 'The ending of the film', spoiler_text: 'Spoilers' },
  });
  await timelines.getByRole('link', { name: 'Local' }).click();
  const warned = local.getByRole('article').filter({ hasText: 'Spoilers' });
  await expect(warned).not.toContainText('The ending of the film');
  await timelines.getByRole('link', { name: 'Settings' }).click();
  await page.getByLabel('Open posts with content warnings').check();
  await page.reload();
  await page.getByRole('navigation', { name: 'Social' }).getByRole('link', { name: 'Local' }).click();
  await expect(warned).toContainText('The ending of the film');
  await expect(warned.getByRole('button', { name: 'Show less' })).toBeVisible();
  // Sensitive media waits for a click, unless chosen to show without asking.
  const sensitive = await upload(bob, 'A storm over the bay');
  await bob.api('/api/v1/statuses', {
    method: 'POST',
    body: { status: 'Rough weather', media_ids: [sensitive.id], sensitive: true },
  });
  await page.getByRole('navigation', { name: 'Social' }).getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('navigation', { name: 'Social' }).getByRole('link', { name: 'Local' }).click();
  const stormy = local.getByRole('article').filter({ hasText: 'Rough weather' });
  await expect(stormy).toBeVisible();
  await expect(stormy.getByRole('img', { name: 'A storm over the bay' })).toHaveCount(0);
  await timelines.getByRole('link', { name: 'Settings' }).click();
  await expect(page.getByLabel('Open posts with content warnings')).toBeChecked();
  await page.getByLabel('Show sensitive media without asking').check();
  await timelines.getByRole('link', { name: 'Local' }).click();
  await expect(stormy.getByRole('img', { name: 'A storm over the bay' })).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('homeport.social.reading'))).toBe(
    '{"expandWarnings":true,"showSensitive":true}',
  );

  // The new views in both themes (a followed hashtag for the Hashtags tab to list).
  await alice.api('/api/v1/tags/sailing/follow', { method: 'POST' });
  for (const theme of ['light', 'dark'] as const) {
    await page.getByLabel('Theme').selectOption(theme);
    await timelines.getByRole('link', { name: 'Settings' }).click();
    await page.screenshot({ path: `test-results/screenshots/social-settings-${theme}.png`, fullPage: true });
    await timelines.getByRole('link', { name: 'Hashtags' }).click();
    await expect(followed).toContainText('#sailing');
    await page.screenshot({ path: `test-results/screenshots/social-hashtags-${theme}.png`, fullPage: true });
    await page.getByLabel('People, #hashtags or posts').fill('bob');
    await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
    await page.getByRole('list', { name: 'People' }).getByRole('link', { name: 'bob', exact: true }).click();
    await expect(profile.getByRole('region', { name: 'Pinned posts' })).toBeVisible();
    await page.screenshot({ path: `test-results/screenshots/social-profile-tabs-${theme}.png`, fullPage: true });
    await profile.getByRole('button', { name: 'Back' }).click();
  }
  await page.getByLabel('Theme').selectOption('light');
});
