import { expect, test, type Page } from '@playwright/test';
import { appendMany, connectClient } from './es-client.ts';
import { OWNER, startHomeportProcess, type RunningHomeport } from './homeport.ts';
import { createSocialUser, signInSocialClient } from './social-session.ts';

/*
 * Every view of the UI has an address: reached by typing it, kept by a reload, walked with Back and
 * Forward, and opened in a new tab from a real link. Against a real `homeport serve`.
 */

let hp: RunningHomeport;
let bob: ReturnType<typeof createSocialUser>;
let carol: ReturnType<typeof createSocialUser>;
let statusId = '';
let bobId = '';
let listId = '';
test.beforeAll(async () => {
  hp = await startHomeportProcess();
  bob = createSocialUser(hp, 'bob');
  carol = createSocialUser(hp, 'carol');
  const api = async <T>(route: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${hp.httpUrl}${route}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${bob.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(res.status, route).toBeLessThan(300);
    return (await res.json()) as T;
  };
  statusId = (await api<{ id: string }>('/api/v1/statuses', { status: 'Fair winds today #sailing' })).id;
  bobId = (await api<{ id: string }>('/api/v1/accounts/verify_credentials')).id;
  listId = (await api<{ id: string }>('/api/v1/lists', { title: 'Sailors' })).id;
  const connection = await connectClient(hp.tcpPort, 'urls-spec');
  await appendMany(connection, 'order-1', 3, 'OrderPlaced');
  connection.close();
});
test.afterAll(async () => {
  await hp?.stop();
});

async function signIn(page: Page, path: string): Promise<void> {
  await page.goto(`${hp.httpUrl}${path}`);
  await page.getByLabel('User name').fill(OWNER.name);
  await page.getByLabel('Password').fill(OWNER.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Opens `path` by address, checks what shows, then reloads and checks it again. */
async function visit(page: Page, path: string, check: () => Promise<void>): Promise<void> {
  await page.goto(`${hp.httpUrl}${path}`);
  await check();
  await page.reload();
  await check();
  expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe(path);
}

const heading = (page: Page, name: string | RegExp, level = 2) =>
  expect(page.getByRole('heading', { level, name, exact: true })).toBeVisible();

test('the event log, subscriptions and server views are reached by address and reload', async ({ page }) => {
  await signIn(page, '/ui/eventlog/streams/order-1');
  await heading(page, 'order-1', 1);
  await page.reload();
  await heading(page, 'order-1', 1);
  await visit(page, '/ui/eventlog/streams/order-1/events/2', () => heading(page, 'Event 2 in order-1', 1));
  await visit(page, '/ui/eventlog/all', () =>
    expect(
      page.getByRole('navigation', { name: 'Event log' }).getByRole('link', { name: 'All events' }),
    ).toHaveAttribute('aria-current', 'page'),
  );
  await visit(page, '/ui/subscriptions', () => heading(page, 'Subscriptions', 1));
  await visit(page, '/ui/server', () => heading(page, 'Server', 1));
  // Back and Forward walk the history of the app's own pages.
  await page.goBack();
  await heading(page, 'Subscriptions', 1);
  await page.goForward();
  await heading(page, 'Server', 1);
});

/** Each page load of the client makes a handful of API calls: two accounts keep within Mastodon's 300 per 5 minutes. */
test('the timelines, notifications and lists have addresses that survive a reload', async ({ page }) => {
  await signInSocialClient(page, hp, bob);
  const views: [string, () => Promise<void>][] = [
    ['/ui/social/home', () => heading(page, 'Home')],
    ['/ui/social/local', () => heading(page, 'Local')],
    ['/ui/social/federated', () => heading(page, 'Federated')],
    ['/ui/social/notifications', () => heading(page, 'Notifications')],
    ['/ui/social/lists', () => heading(page, 'Lists')],
    [`/ui/social/lists/${listId}`, () => heading(page, 'Sailors')],
    [
      '/ui/social/notifications?type=mention',
      () =>
        expect(
          page.getByRole('navigation', { name: 'Show notifications' }).getByRole('link', { name: 'Mentions' }),
        ).toHaveAttribute('aria-current', 'page'),
    ],
  ];
  for (const [path, check] of views) await visit(page, path, check);
});

test('every other social view has an address that survives a reload, with Back, Forward and new tabs', async ({
  page,
  context,
}) => {
  await signInSocialClient(page, hp, carol);
  const views: [string, () => Promise<void>][] = [
    ['/ui/social/bookmarks', () => heading(page, 'Bookmarks')],
    ['/ui/social/favourites', () => heading(page, 'Favourites')],
    ['/ui/social/filters', () => heading(page, 'Filters')],
    ['/ui/social/people', () => heading(page, 'People')],
    ['/ui/social/hashtags', () => heading(page, 'Followed hashtags')],
    ['/ui/social/tags/sailing', () => heading(page, '#sailing')],
    ['/ui/social/settings', () => heading(page, 'Settings')],
    [
      `/ui/social/statuses/${statusId}`,
      async () => {
        await heading(page, 'Thread');
        await expect(page.getByRole('region', { name: 'Thread' })).toContainText('Fair winds today');
      },
    ],
    [
      `/ui/social/accounts/${bobId}/media`,
      async () => {
        await heading(page, 'bob');
        await expect(
          page.getByRole('navigation', { name: 'Profile sections' }).getByRole('link', { name: 'Media' }),
        ).toHaveAttribute('aria-current', 'page');
      },
    ],
    [
      '/ui/social/search?q=bob',
      () => expect(page.getByRole('list', { name: 'People' }).getByRole('link', { name: 'bob' })).toBeVisible(),
    ],
  ];
  for (const [path, check] of views) await visit(page, path, check);
  await visit(page, '/ui/social/no-such-view', () => heading(page, 'Not found'));

  // Walking: Home, then the author's profile from a post, then a profile tab; Back and Forward retrace them.
  await page.goto(`${hp.httpUrl}/ui/social/local`);
  const post = page.getByRole('article', { name: 'Post by bob' });
  await post.getByRole('link', { name: 'bob', exact: true }).click();
  await expect(page).toHaveURL(`${hp.httpUrl}/ui/social/accounts/${bobId}`);
  await page.getByRole('navigation', { name: 'Profile sections' }).getByRole('link', { name: 'Media' }).click();
  await expect(page).toHaveURL(`${hp.httpUrl}/ui/social/accounts/${bobId}/media`);
  await page.goBack();
  await expect(page).toHaveURL(`${hp.httpUrl}/ui/social/accounts/${bobId}`);
  await page.goBack();
  await heading(page, 'Local');
  await page.goForward();
  await heading(page, 'bob');
  // The in-app Back button is the browser's Back.
  await page.getByRole('region', { name: 'bob' }).getByRole('button', { name: 'Back' }).click();
  await heading(page, 'Local');

  // Author names and post times are real links: a middle click opens them in a new tab, signed in.
  const newTab = context.waitForEvent('page');
  await post.getByRole('link', { name: 'bob', exact: true }).click({ button: 'middle' });
  const tab = await newTab;
  await expect(tab).toHaveURL(`${hp.httpUrl}/ui/social/accounts/${bobId}`);
  await expect(page).toHaveURL(`${hp.httpUrl}/ui/social/local`);
  await expect(post.locator('header a').filter({ has: page.locator('time') })).toHaveAttribute(
    'href',
    `/ui/social/statuses/${statusId}`,
  );
  await tab.close();

  // Search from the navigation: the query is in the address.
  await page.getByLabel('People, #hashtags or posts').fill('#sailing');
  await page.getByRole('search').getByRole('button', { name: 'Search' }).click();
  await expect(page).toHaveURL(`${hp.httpUrl}/ui/social/search?q=%23sailing`);
  await page.getByRole('list', { name: 'Hashtags' }).getByRole('link', { name: '#sailing' }).click();
  await expect(page).toHaveURL(`${hp.httpUrl}/ui/social/tags/sailing`);
});
