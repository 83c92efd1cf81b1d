import { expect, test } from '@playwright/test';
import sharp from 'sharp';
import { startHomeportProcess, type RunningHomeport } from './homeport.ts';
import { createSocialUser, signInSocialClient } from './social-session.ts';

/*
 * What a reader does with posts in the client, as Mastodon's web client offers it: the home timeline paged
 * both ways and its reading position; reply, quote, share, mute a conversation, pin; sensitive media behind
 * its blurhash; and composing with completion, a language and a schedule. Checked on screen and through the
 * REST API.
 */

let hp: RunningHomeport;
test.beforeAll(async () => {
  hp = await startHomeportProcess();
});
test.afterAll(async () => {
  await hp?.stop();
});
test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

interface Status {
  id: string;
  content: string;
  url: string;
  language: string | null;
  in_reply_to_id: string | null;
  muted?: boolean;
  pinned?: boolean;
  quote?: { state: string; quoted_status: { id: string } | null } | null;
}

test('reading and acting on posts, and composing with completion, language and schedule', async ({ page }) => {
  const alice = createSocialUser(hp, 'alice');
  const bob = createSocialUser(hp, 'bob');
  const as =
    (token: string) =>
    (path: string, init: { method?: string; body?: unknown } = {}) =>
      fetch(`${hp.httpUrl}${path}`, {
        method: init.method ?? 'GET',
        headers: { Authorization: `Bearer ${token}`, ...(init.body ? { 'content-type': 'application/json' } : {}) },
        body: init.body ? JSON.stringify(init.body) : undefined,
      }).then(async (r) => {
        expect(r.status, `${init.method ?? 'GET'} ${path}`).toBeLessThan(300);
        return r.json();
      });
  const asAlice = as(alice.token);
  const asBob = as(bob.token);
  const bobId = ((await asBob('/api/v1/accounts/verify_credentials')) as { id: string }).id;
  await asAlice(`/api/v1/accounts/${bobId}/follow`, { method: 'POST' });
  for (let i = 1; i <= 45; i++) await asBob('/api/v1/statuses', { method: 'POST', body: { status: `Log entry ${i}` } });

  await signInSocialClient(page, hp, alice);
  const home = page.getByRole('region', { name: 'Home' });
  const posts = home.getByRole('article');

  // Forty posts, then the older ones as the end of the list is reached (the Link header's next page).
  await expect(posts.first()).toContainText('Log entry 45');
  await home.getByRole('button', { name: /Load older posts/ }).scrollIntoViewIfNeeded();
  await expect(home.getByText('Log entry 1', { exact: true })).toBeVisible();
  await expect(home).toContainText('That is everything in your home timeline.');
  await expect(posts).toHaveCount(45);

  // The reading position is kept on the server (the home marker), and shown after newer posts arrive.
  const newest = ((await asBob(`/api/v1/accounts/${bobId}/statuses?limit=1`)) as Status[])[0];
  const markers = (await asAlice('/api/v1/markers?timeline[]=home')) as { home: { last_read_id: string } };
  expect(markers.home.last_read_id).toBe(newest.id);
  await asBob('/api/v1/statuses', { method: 'POST', body: { status: 'Written while Alice was away' } });
  await page.reload();
  await expect(posts.first()).toContainText('Written while Alice was away');
  await expect(home.getByRole('separator', { name: 'Read up to here' })).toBeVisible();

  // Reply from the timeline: the author is named, the button says what it does, the server links the two.
  const away = posts.filter({ hasText: 'Written while Alice was away' });
  await away.getByRole('button', { name: 'Reply' }).click();
  const compose = page.getByRole('form', { name: 'Compose' });
  await expect(compose.getByRole('status')).toContainText('Replying to @bob');
  const text = compose.getByRole('textbox', { name: 'What’s on your mind?' });
  await expect(text).toHaveValue('@bob ');
  await text.press('End');
  await text.pressSequentially('Welcome back');
  await compose.getByRole('button', { name: 'Reply', exact: true }).click();
  const reply = posts.filter({ hasText: 'Welcome back' });
  await expect(reply).toBeVisible();
  const aliceStatuses = (await asAlice(
    `/api/v1/accounts/${((await asAlice('/api/v1/accounts/verify_credentials')) as { id: string }).id}/statuses`,
  )) as Status[];
  const replyId = aliceStatuses[0].id;
  expect(aliceStatuses[0].in_reply_to_id).not.toBeNull();

  // Mention completion: "@bo" offers bob; Enter takes him.
  await text.fill('');
  await text.pressSequentially('Thanks @bo');
  await expect(compose.getByRole('option', { name: /@bob/ })).toBeVisible();
  await text.press('Enter');
  await expect(text).toHaveValue('Thanks @bob ');
  await text.fill('');

  // The conversation muted and the reply pinned, from "More"; the server keeps both.
  await reply.locator('summary', { hasText: 'More' }).click();
  await reply.getByRole('button', { name: 'Mute conversation' }).click();
  await expect(reply.getByRole('button', { name: 'Unmute conversation' })).toBeVisible();
  await reply.getByRole('button', { name: 'Pin on profile' }).click();
  await expect(reply.getByRole('button', { name: 'Unpin from profile' })).toBeVisible();
  const replied = (await asAlice(`/api/v1/statuses/${replyId}`)) as Status;
  expect([replied.muted, replied.pinned]).toEqual([true, true]);

  // The thread: focus on the post it is about, replies nested under the post they answer.
  await asBob('/api/v1/statuses', {
    method: 'POST',
    body: { status: '@alice Good to be back', in_reply_to_id: replyId },
  });
  await away.getByRole('button', { name: 'Thread' }).click();
  const thread = page.getByRole('region', { name: 'Thread' });
  await expect(page.locator('article.status:focus')).toContainText('Written while Alice was away');
  const firstLevel = thread.getByRole('list', { name: 'Replies to bob' });
  await expect(firstLevel.getByRole('article', { name: 'Post by alice' })).toContainText('Welcome back');
  await expect(
    firstLevel.getByRole('list', { name: 'Replies to alice' }).getByRole('article', { name: 'Post by bob' }),
  ).toContainText('Good to be back');
  await thread.getByRole('button', { name: 'Back' }).click();

  // Share: the post's link goes to the clipboard.
  await away.getByRole('button', { name: 'Share link' }).click();
  await expect(away.getByRole('status')).toHaveText('Link copied');
  const awayStatus = ((await asBob(`/api/v1/accounts/${bobId}/statuses?limit=1&exclude_replies=true`)) as Status[])[0];
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(awayStatus.url);

  // Quote: a post quoting Bob's, shown with the quoted post inside it.
  await away.getByRole('button', { name: 'Quote' }).click();
  await expect(compose.getByRole('status')).toContainText('Quoting @bob');
  await text.fill('Worth reading');
  await compose.getByRole('button', { name: 'Post' }).click();
  const quoting = posts.filter({ hasText: 'Worth reading' });
  await expect(quoting.getByRole('blockquote', { name: 'Quoted post by bob' })).toContainText(
    'Written while Alice was away',
  );
  const quoted = ((await asAlice('/api/v1/timelines/home?limit=1')) as Status[])[0];
  expect(quoted.quote).toMatchObject({ state: 'accepted', quoted_status: { id: awayStatus.id } });

  // Sensitive media arrives live hidden behind its blurhash, and shows when asked.
  const form = new FormData();
  form.append(
    'file',
    new Blob(
      [
        new Uint8Array(
          await sharp({ create: { width: 64, height: 48, channels: 3, background: '#c0392b' } })
            .png()
            .toBuffer(),
        ),
      ],
      { type: 'image/png' },
    ),
    'red.png',
  );
  form.append('description', 'A red square');
  let media = (await (
    await fetch(`${hp.httpUrl}/api/v2/media`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${bob.token}` },
      body: form,
    })
  ).json()) as { id: string; url: string | null; blurhash: string | null };
  // Processed in the background (202), as Mastodon does: asked for until it is ready.
  await expect
    .poll(async () => (media = (await asBob(`/api/v1/media/${media.id}`)) as typeof media).url)
    .not.toBeNull();
  expect(media.blurhash).toBeTruthy();
  await asBob('/api/v1/statuses', {
    method: 'POST',
    body: { status: 'Careful, very red', media_ids: [media.id], sensitive: true },
  });
  // (Bob's reply to Alice came in live too.)
  await page.getByRole('button', { name: /^\d+ new posts?$/ }).click();
  const red = posts.filter({ hasText: 'Careful, very red' });
  await expect(red.getByRole('img', { name: 'Sensitive media, hidden' })).toBeVisible();
  await expect(red.getByRole('img', { name: 'A red square' })).toHaveCount(0);
  await red.getByRole('button', { name: 'Sensitive content: show' }).click();
  await expect(red.getByRole('img', { name: 'A red square' })).toBeVisible();
  await red.getByRole('button', { name: 'Hide media' }).click();
  await expect(red.getByRole('img', { name: 'Sensitive media, hidden' })).toBeVisible();

  // A language and a schedule: the post waits on the server, tagged.
  await compose.getByLabel('Language').selectOption('de');
  await text.fill('Guten Morgen');
  const later = await page.evaluate(() => {
    const d = new Date(Date.now() + 2 * 3600_000);
    return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
  });
  await compose.getByLabel(/Publish later/).fill(later);
  await compose.getByRole('button', { name: 'Schedule' }).click();
  await expect(compose.getByRole('status')).toContainText('Scheduled for');
  const scheduled = (await asAlice('/api/v1/scheduled_statuses')) as {
    params: { text: string; language: string | null };
  }[];
  expect(scheduled.map((s) => [s.params.text, s.params.language])).toEqual([['Guten Morgen', 'de']]);
  await expect(posts.filter({ hasText: 'Guten Morgen' })).toHaveCount(0);

  // Posted now in German: the server records the language.
  await text.fill('Bis bald');
  await compose.getByRole('button', { name: 'Post' }).click();
  await expect(posts.filter({ hasText: 'Bis bald' })).toBeVisible();
  expect(((await asAlice('/api/v1/timelines/home?limit=1')) as Status[])[0].language).toBe('de');

  // The local timeline is live too: new posts wait behind the button, deleted ones leave.
  await page.getByRole('navigation', { name: 'Social' }).getByRole('link', { name: 'Local' }).click();
  const localList = page.getByRole('region', { name: 'Local' });
  await expect(localList.getByRole('article').first()).toBeVisible();
  await expect(localList.getByText('live', { exact: true })).toBeVisible();
  const tide = (await asBob('/api/v1/statuses', {
    method: 'POST',
    body: { status: 'High water at noon #tidewatch' },
  })) as Status;
  await localList.getByRole('button', { name: '1 new post' }).click();
  const tidePost = localList.getByRole('article').filter({ hasText: 'High water at noon' });
  await expect(tidePost).toBeVisible();
  // So is a hashtag's timeline, opened from the link in the post.
  await tidePost.getByRole('link', { name: '#tidewatch' }).click();
  const tagList = page.getByRole('region', { name: 'Posts tagged #tidewatch' });
  await expect(tagList.getByRole('article')).toHaveCount(1);
  await expect(tagList.getByText('live', { exact: true })).toBeVisible();
  await asBob('/api/v1/statuses', { method: 'POST', body: { status: 'Low water at six #tidewatch' } });
  await tagList.getByRole('button', { name: '1 new post' }).click();
  await expect(tagList.getByRole('article')).toHaveCount(2);
  await asBob(`/api/v1/statuses/${tide.id}`, { method: 'DELETE' });
  await expect(tagList.getByRole('article')).toHaveCount(1);
  await expect(tagList).toContainText('Low water at six');
  // A tab always shows its view: Home closes the hashtag's timeline opened over Local.
  await page.getByRole('navigation', { name: 'Social' }).getByRole('link', { name: 'Home' }).click();
  await expect(page.getByRole('region', { name: 'Home' })).toBeVisible();
  await expect(tagList).toHaveCount(0);
});
