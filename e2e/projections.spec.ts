import { axeViolations } from './axe-check.ts';
import { connectClient, es, jsonEvent } from './es-client.ts';
import { expect, screenshotPath, test } from './fixtures.ts';

/**
 * The Projections view: the standard projections listed with status, position and rate; a JavaScript
 * projection created from the UI, its state per partition, the commands, its configuration, a new query,
 * delete; the `$ce-` stream browsable; axe-core clean on the three pages and the configuration dialog in
 * both themes.
 */

const QUERY = `fromCategory('parcel').foreachStream().when({
  $init: function () { return { scans: 0 }; },
  Scanned: function (s, e) { s.scans += 1; },
}).outputState();`;

test('projections: list, create from the UI, state per partition, commands, configuration, new query, delete; $ce- browsable; axe clean', async ({
  signedIn: page,
  homeport,
}) => {
  test.setTimeout(120_000);
  const writer = await connectClient(homeport.tcpPort, 'parcel-writer');
  await writer.appendToStream('parcel-1', es.expectedVersion.any, [
    jsonEvent('Scanned', { at: 'depot' }),
    jsonEvent('Scanned', { at: 'van' }),
  ]);
  await writer.appendToStream('parcel-2', es.expectedVersion.any, [jsonEvent('Scanned', { at: 'depot' })]);

  // The list, from the event log's tabs.
  await page.getByRole('navigation', { name: 'Event log' }).getByRole('link', { name: 'Projections' }).click();
  await expect(page).toHaveURL(/\/ui\/eventlog\/projections$/);
  const list = page.getByRole('table', { name: 'Projections' });
  const byCategory = list.getByRole('row').filter({ hasText: '$by_category' });
  await expect(byCategory).toContainText('Running');
  await expect(byCategory).toContainText('Continuous');
  await expect(byCategory.getByRole('cell').nth(3)).toHaveText(/C:\d+\/P:\d+/);

  // Create one from the UI.
  await page.getByRole('link', { name: 'New projection' }).click();
  await page.getByLabel('Name').fill('parcel-scans');
  await page.getByLabel('Query (JavaScript)').fill(QUERY);
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page).toHaveURL(/\/ui\/eventlog\/projections\/parcel-scans$/);
  await expect(page.getByTestId('projection-status')).toHaveText('Running');
  await expect(page.getByLabel('Query of parcel-scans')).toHaveValue(QUERY);

  // Live state per partition, and a new event arriving while the page is open.
  await page.getByLabel('Partition').fill('parcel-1');
  await expect(page.getByTestId('projection-state')).toContainText('"scans": 2');
  await expect(page.getByTestId('projection-result')).toContainText('"scans": 2');
  await writer.appendToStream('parcel-1', es.expectedVersion.any, [jsonEvent('Scanned', { at: 'door' })]);
  await expect(page.getByTestId('projection-state')).toContainText('"scans": 3');
  await page.screenshot({ path: screenshotPath('eventlog-projection'), fullPage: true });

  // Its configuration: read-only while it runs, as EventStoreDB allows changes only to a stopped projection.
  await page.getByRole('button', { name: 'Configuration…' }).click();
  const config = page.getByRole('dialog', { name: 'Configuration of parcel-scans' });
  await expect(config.getByLabel('Handler timeout (ms per call)')).toHaveValue('250');
  await expect(config.getByText('Stop the projection to change its configuration.')).toBeVisible();
  await expect(config.getByRole('button', { name: 'Save configuration' })).toBeDisabled();
  await config.getByRole('button', { name: 'Cancel' }).click();

  // Commands: stop, a new query (counting by ten), reset and start: every event counted again with it.
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(page.getByTestId('projection-status')).toHaveText('Stopped');

  // Stopped, it takes a new configuration: emit with tracked streams, a longer handler timeout; a bad number is refused.
  await page.getByRole('button', { name: 'Configuration…' }).click();
  await config.getByLabel('Emit enabled').check();
  await config.getByLabel('Track emitted streams').check();
  await config.getByLabel('Handler timeout (ms per call)').fill('0');
  await config.getByRole('button', { name: 'Save configuration' }).click();
  await expect(config.getByRole('alert')).toContainText('Handler timeout (ms per call): a whole number of 1 or more.');
  await config.getByLabel('Handler timeout (ms per call)').fill('500');
  await config.getByRole('button', { name: 'Save configuration' }).click();
  await expect(config).toBeHidden();
  const stats = page.getByTestId('projection-stats');
  await expect(stats).toContainText('enabled, streams tracked');
  await page.getByRole('button', { name: 'Configuration…' }).click();
  await expect(config.getByLabel('Handler timeout (ms per call)')).toHaveValue('500');
  await expect(config.getByLabel('Track emitted streams')).toBeChecked();
  await config.getByRole('button', { name: 'Cancel' }).click();
  await page.getByLabel('Query of parcel-scans').fill(QUERY.replace('s.scans += 1', 's.scans += 10'));
  await page.getByRole('button', { name: 'Save query' }).click();
  await expect(page.getByRole('button', { name: 'Save query' })).toBeDisabled();
  await page.getByRole('button', { name: 'Reset' }).click();
  await page.getByRole('button', { name: 'Start' }).click();
  await expect(page.getByTestId('projection-status')).toHaveText('Running');
  await expect(page.getByTestId('projection-state')).toContainText('"scans": 30');

  // A faulting query shows its reason.
  await page.getByRole('button', { name: 'Stop' }).click();
  await page
    .getByLabel('Query of parcel-scans')
    .fill(QUERY.replace('s.scans += 1;', "throw new Error('scanner jammed');"));
  await page.getByRole('button', { name: 'Save query' }).click();
  await page.getByRole('button', { name: 'Reset' }).click();
  await page.getByRole('button', { name: 'Start' }).click();
  await expect(page.getByTestId('projection-fault')).toContainText('scanner jammed');

  // The list shows it, faulted, with the reason.
  await page.getByRole('link', { name: 'All projections' }).click();
  const row = page.getByRole('table', { name: 'Projections' }).getByRole('row').filter({ hasText: 'parcel-scans' });
  await expect(row).toContainText('Faulted');
  await expect(row.getByTestId('projection-reason')).toContainText('parcel-scans projection failed');
  await page.screenshot({ path: screenshotPath('eventlog-projections'), fullPage: true });

  // $ce-parcel, written by $by_category, is browsable like any stream.
  await page.goto(`${homeport.httpUrl}/ui/eventlog/streams/${encodeURIComponent('$ce-parcel')}`);
  await expect(page.getByRole('heading', { level: 1 })).toContainText('$ce-parcel');
  await expect(page.getByText('0@parcel-1').first()).toBeVisible();

  // axe on the three pages, in both themes.
  const found: string[] = [];
  for (const theme of ['light', 'dark'] as const) {
    await page.getByLabel('Theme').selectOption(theme);
    for (const path of ['projections', 'projections/parcel-scans', 'new-projection']) {
      await page.goto(`${homeport.httpUrl}/ui/eventlog/${path}`);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      found.push(...(await axeViolations(page, `${path} (${theme})`)));
      if (path === 'projections/parcel-scans') {
        await page.getByRole('button', { name: 'Configuration…' }).click();
        await expect(config.getByLabel('Handler timeout (ms per call)')).toHaveValue('500');
        found.push(...(await axeViolations(page, `configuration dialog (${theme})`)));
        await config.getByRole('button', { name: 'Cancel' }).click();
      }
    }
  }
  expect(found, found.join('\n')).toEqual([]);

  // Delete it (faulted, so allowed) with its checkpoint stream.
  await page.goto(`${homeport.httpUrl}/ui/eventlog/projections/parcel-scans`);
  await page.getByRole('button', { name: 'Delete…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete projection parcel-scans' });
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect(page).toHaveURL(/\/ui\/eventlog\/projections$/);
  await expect(page.getByRole('table', { name: 'Projections' })).not.toContainText('parcel-scans');
  writer.close();
});
