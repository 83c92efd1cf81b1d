import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, screenshotPath, test } from './fixtures.ts';

test('backs the data directory up from the Server view with a progress bar', async ({ signedIn: page, homeport }) => {
  const target = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-e2e-backup-')), 'snapshot');
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Server' }).click();
  const form = page.getByRole('form', { name: 'Backup' });
  await form.getByLabel('Folder on this computer (new or empty)').fill(target);
  await form.getByRole('button', { name: 'Back up now' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Backed up' })).toContainText(
    `Backed up eventlog.db, social.db`,
  );
  await expect(page.getByRole('progressbar', { name: 'Backup progress' })).toHaveAttribute('value', '100');
  await page.screenshot({ path: screenshotPath('server-backup'), fullPage: true });
  expect(fs.readdirSync(target).sort()).toEqual(
    expect.arrayContaining(['eventlog.db', 'homeport-backup.json', 'social.db']),
  );

  // The same folder again is refused with the reason.
  await form.getByRole('button', { name: 'Back up now' }).click();
  await expect(page.getByRole('alert')).toContainText('is not empty');
  fs.rmSync(path.dirname(target), { recursive: true, force: true });
  void homeport;
});
