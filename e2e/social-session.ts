import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, type Page } from '@playwright/test';
import { OWNER, type RunningHomeport } from './homeport.ts';

const root = path.resolve(import.meta.dirname, '..');

/** Runs the real `homeport` CLI against a running instance's data directory (admin commands work while it serves). */
export function homeportCli(hp: RunningHomeport, args: string[], input?: string): string {
  const r = spawnSync(process.execPath, [path.join(root, 'bin', 'homeport.js'), ...args, '--data-dir', hp.dataDir], {
    encoding: 'utf8',
    input,
  });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout;
}

/** A confirmed local account made with the CLI, and a token of its own for driving the REST API beside the UI. */
export function createSocialUser(
  hp: RunningHomeport,
  username: string,
  scopes = 'read write follow',
): { username: string; password: string; token: string } {
  const password = `${username}-long-password`;
  homeportCli(
    hp,
    ['accounts', 'create', username, '--email', `${username}@example.org`, '--password-stdin', '--confirmed'],
    `${password}\n`,
  );
  return { username, password, token: homeportCli(hp, ['tokens', 'create', username, '--scopes', scopes]).trim() };
}

/** Signs in to the UI as its owner, then signs the social client in as `username` through the OAuth pages. */
export async function signInSocialClient(
  page: Page,
  hp: RunningHomeport,
  user: { username: string; password: string },
): Promise<void> {
  await page.goto(`${hp.httpUrl}/ui/social`);
  await page.getByLabel('User name').fill(OWNER.name);
  await page.getByLabel('Password').fill(OWNER.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign in to the social client' }).click();
  await page.getByLabel('Username or e-mail address').fill(user.username);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Authorize' }).click();
  await expect(page.getByText('Signed in as')).toContainText(`@${user.username}`);
  await expect(page.getByText('live', { exact: true })).toBeVisible();
}
