import { appendMany, connectClient, es, jsonEvent } from './es-client.ts';
import { expect, screenshotPath, test } from './fixtures.ts';

test('reads $all both ways by position, hides system events, filters, and tails it live', async ({
  signedIn: page,
  homeport,
}) => {
  const client = await connectClient(homeport.tcpPort, 'all-seeder');
  await appendMany(client, 'sensor-a', 40, 'Reading');
  await appendMany(client, 'sensor-b', 15, 'Alarm');
  // A metadata change is a system event ($metadata in $$sensor-a).
  await client.setStreamMetadataRaw('sensor-a', es.expectedVersion.any, { owner: 'lab' });

  await page.getByRole('link', { name: 'All events' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Event log' })).toBeVisible();
  const table = page.getByRole('table', { name: 'All events' });
  const streams = table.locator('td.stream-cell');
  await expect(streams.last()).toHaveText('sensor-b');
  await expect(table).not.toContainText('$metadata');
  await expect(page.getByLabel('Hide system events ($…)')).toBeChecked();

  // System events shown on request.
  await page.getByLabel('Hide system events ($…)').uncheck();
  await page.getByRole('button', { name: 'Apply filter' }).click();
  await expect(table).toContainText('$metadata');
  await expect(page).toHaveURL(/system=1/);
  await page.getByLabel('Hide system events ($…)').check();

  // Filter by stream prefix: only sensor-a, paged both ways by position.
  await page.getByLabel('Stream starts with').fill('sensor-a');
  await page.getByRole('button', { name: 'Apply filter' }).click();
  await expect(streams.first()).toHaveText('sensor-a');
  await expect(table.locator('tbody.event')).toHaveCount(20);
  const numbers = table.locator('tbody.event > tr:first-child > td.num:nth-child(4)');
  await expect(numbers.last()).toHaveText('39');
  const pager = page.getByRole('navigation', { name: '$all pages' });
  await pager.getByRole('button', { name: /^Previous page/ }).click();
  await expect(numbers.first()).toHaveText('0');
  await expect(numbers.last()).toHaveText('19');
  await expect(pager.getByRole('button', { name: /^Previous page/ })).toBeDisabled();
  await pager.getByRole('button', { name: /^Next page/ }).click();
  await expect(numbers.first()).toHaveText('20');
  await expect(numbers.last()).toHaveText('39');
  await pager.getByRole('button', { name: /^First page/ }).click();
  await expect(numbers.first()).toHaveText('0');
  await page.screenshot({ path: screenshotPath('eventlog-all-filtered'), fullPage: false });

  // Filter by event type prefix.
  await page.getByLabel('Stream starts with').fill('');
  await page.getByLabel('Event type starts with').fill('Ala');
  await page.getByRole('button', { name: 'Apply filter' }).click();
  await expect(table.locator('tbody.event')).toHaveCount(15);
  await expect(table.locator('tbody.event').filter({ hasText: 'Reading' })).toHaveCount(0);

  // Live tail: a new matching event arrives; a non-matching one does not.
  await expect(page.getByTestId('live-status')).toHaveText('Live');
  await client.appendToStream('sensor-c', es.expectedVersion.any, [
    jsonEvent('Reading', { v: 1 }),
    jsonEvent('AlarmRaised', { level: 'high' }),
  ]);
  await expect(streams.last()).toHaveText('sensor-c');
  await expect(table).toContainText('AlarmRaised');
  await expect(table.locator('tbody.event').filter({ hasText: 'Reading' })).toHaveCount(0);
  await page.screenshot({ path: screenshotPath('eventlog-all-live'), fullPage: false });
  client.close();
});
