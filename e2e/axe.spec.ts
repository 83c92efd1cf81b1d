import { expect, test } from '@playwright/test';
import { axeViolations } from './axe-check.ts';
import { connectClient, jsonEvent, es } from './es-client.ts';
import { startHomeportProcess, type RunningHomeport } from './homeport.ts';
import { createSocialUser, signInSocialClient } from './social-session.ts';

/*
 * axe-core on every view of the UI in both themes: no violations. Best-practice rules run too, and the
 * label-content-name-mismatch rule (axe marks it experimental) is switched on, as the issue measured it.
 */

let hp: RunningHomeport;
let alice: ReturnType<typeof createSocialUser>;
let statusId = '';
let aliceId = '';
test.beforeAll(async () => {
  hp = await startHomeportProcess();
  alice = createSocialUser(hp, 'alice');
  const post = async (route: string, body: unknown) => {
    const res = await fetch(`${hp.httpUrl}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status, route).toBeLessThan(300);
    return (await res.json()) as { id: string; account: { id: string } };
  };
  const status = await post('/api/v1/statuses', { status: 'Fair winds #sailing' });
  statusId = status.id;
  aliceId = status.account.id;
  await post('/api/v1/lists', { title: 'Crew' });
  const connection = await connectClient(hp.tcpPort, 'axe-spec');
  await connection.appendToStream('order-1', es.expectedVersion.any, [jsonEvent('OrderPlaced', { n: 1 })]);
  connection.close();
});
test.afterAll(async () => {
  await hp?.stop();
});

const check = axeViolations;

const EVENTLOG_VIEWS = [
  '/ui/eventlog',
  '/ui/eventlog/streams/order-1',
  '/ui/eventlog/streams/order-1/events/0',
  '/ui/eventlog/all',
  '/ui/subscriptions',
  '/ui/subscriptions/new',
  '/ui/server',
];

test('every view, in both themes, has no axe violations', async ({ page }) => {
  test.setTimeout(600_000);
  // The sign-in page first.
  await page.goto(`${hp.httpUrl}/ui/eventlog`);
  const found: string[] = await check(page, 'sign-in');
  await signInSocialClient(page, hp, alice);
  const socialViews = [
    'home',
    'local',
    'federated',
    'notifications',
    'bookmarks',
    'favourites',
    'lists',
    'filters',
    'people',
    'hashtags',
    'settings',
    `statuses/${statusId}`,
    `accounts/${aliceId}`,
    'tags/sailing',
  ].map((v) => `/ui/social/${v}`);
  for (const theme of ['light', 'dark'] as const) {
    await page.getByLabel('Theme').selectOption(theme);
    for (const path of [...EVENTLOG_VIEWS, ...socialViews, '/ui/social/search?q=sailing']) {
      await page.goto(`${hp.httpUrl}${path}`);
      await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
      found.push(...(await check(page, `${path} (${theme})`)));
    }
  }
  expect(found, found.join('\n')).toEqual([]);
});
