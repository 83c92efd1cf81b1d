import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { OWNER, startHomeportProcess, type RunningHomeport } from './homeport.ts';

/*
 * The social client is a general Mastodon client: from this Homeport's Social tab it signs in to an account on
 * another server (here a second Homeport on this computer, its own origin), authorized on that server's own
 * OAuth page, and then reads, posts and streams there. The token is kept for that server only.
 */

let here: RunningHomeport;
let elsewhere: RunningHomeport;
test.beforeAll(async () => {
  [here, elsewhere] = await Promise.all([startHomeportProcess(), startHomeportProcess()]);
});
test.afterAll(async () => {
  await Promise.all([here?.stop(), elsewhere?.stop()]);
});

const root = path.resolve(import.meta.dirname, '..');
function cli(hp: RunningHomeport, args: string[], input?: string): string {
  const r = spawnSync(process.execPath, [path.join(root, 'bin', 'homeport.js'), ...args, '--data-dir', hp.dataDir], {
    encoding: 'utf8',
    input,
  });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout;
}

test('signs in to an account on another server and uses it there, live', async ({ page }) => {
  cli(
    elsewhere,
    ['accounts', 'create', 'dana', '--email', 'dana@example.org', '--password-stdin', '--confirmed'],
    'dana-long-password\n',
  );
  const danaToken = cli(elsewhere, ['tokens', 'create', 'dana', '--scopes', 'read write']).trim();
  const otherHost = new URL(elsewhere.httpUrl).host;

  await page.goto(`${here.httpUrl}/ui/social`);
  await page.getByLabel('User name').fill(OWNER.name);
  await page.getByLabel('Password').fill(OWNER.password);
  await page.getByRole('button', { name: 'Sign in' }).click();

  // No profile here yet: the first run is offered, and so is an account elsewhere.
  await expect(page.getByRole('form', { name: 'Create your profile' })).toBeVisible();
  const elsewhereForm = page.getByRole('form', { name: 'Sign in to another server' });
  await elsewhereForm.getByLabel('Server address').fill('http://example.org');
  await elsewhereForm.getByRole('button', { name: 'Sign in there' }).click();
  await expect(page.getByText('Use an https:// address')).toBeVisible();
  await elsewhereForm.getByLabel('Server address').fill(elsewhere.httpUrl);
  await elsewhereForm.getByRole('button', { name: 'Sign in there' }).click();

  // The other server's own pages: sign in there, authorize the app, come back with the code.
  await expect(page).toHaveURL(new RegExp(`^${elsewhere.httpUrl}/`));
  await page.getByLabel('Username or e-mail address').fill('dana');
  await page.getByLabel('Password').fill('dana-long-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Authorize' }).click();
  await expect(page).toHaveURL(`${here.httpUrl}/ui/social`);
  await expect(page.getByText('Signed in as')).toContainText(`@dana on ${otherHost}`);
  await expect(page.getByText('live', { exact: true })).toBeVisible();

  // Posting goes to the other server.
  const compose = page.getByRole('form', { name: 'Compose' });
  await compose.getByLabel('What’s on your mind?').fill('Written from another Homeport');
  await compose.getByRole('button', { name: 'Post' }).click();
  await expect(page.getByRole('article', { name: 'Post by dana' }).first()).toContainText(
    'Written from another Homeport',
  );
  const there = (await (await fetch(`${elsewhere.httpUrl}/api/v1/timelines/public?local=true`)).json()) as {
    content: string;
  }[];
  expect(there.map((s) => s.content).join()).toContain('Written from another Homeport');
  const hereToo = (await (await fetch(`${here.httpUrl}/api/v1/timelines/public`)).json()) as { content: string }[];
  expect(hereToo).toEqual([]);

  // Its streaming API: a post made elsewhere (another app of dana's) arrives live.
  const posted = await fetch(`${elsewhere.httpUrl}/api/v1/statuses`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${danaToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ status: 'From my phone' }),
  });
  expect(posted.status).toBe(200);
  await page.getByRole('button', { name: '1 new post' }).click();
  await expect(page.getByRole('article', { name: 'Post by dana' }).first()).toContainText('From my phone');

  // Still signed in there after a reload; the token is stored for that server only.
  await page.reload();
  await expect(page.getByText('Signed in as')).toContainText(`@dana on ${otherHost}`);
  const stored = await page.evaluate(() =>
    Object.keys(localStorage).filter((k) => k.startsWith('homeport.social.token.')),
  );
  expect(stored).toEqual([`homeport.social.token.${elsewhere.httpUrl}`]);

  // Signing out forgets it, and the choice is offered again.
  await page.getByRole('button', { name: 'Sign out of the client' }).click();
  await expect(page.getByRole('form', { name: 'Sign in to another server' })).toBeVisible();
  expect(await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('homeport.social.')))).toEqual(
    [],
  );
});
