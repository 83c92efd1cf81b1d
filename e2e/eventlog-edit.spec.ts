import { appendMany, connectClient, es, jsonEvent } from './es-client.ts';
import { expect, screenshotPath, test } from './fixtures.ts';

test.describe('changing the event log from the UI', () => {
  test('adds an event through the form (checked before sending) and sees it arrive in the live tail', async ({
    signedIn: page,
    homeport,
  }) => {
    const client = await connectClient(homeport.tcpPort, 'form-checker');
    await client.appendToStream('shipment-5', es.expectedVersion.any, [jsonEvent('ShipmentCreated', { id: 5 })]);

    await page.goto(`${homeport.httpUrl}/ui/eventlog/streams/shipment-5`);
    await expect(page.getByTestId('live-status')).toHaveText('Live');
    await page.getByRole('button', { name: 'Add event', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Add event to shipment-5' });
    await expect(dialog).toBeVisible();

    // Nothing is sent while the form is wrong; each problem is named at its field.
    await dialog.getByLabel('Data', { exact: true }).fill('{"carrier": "DHL",');
    await dialog.getByLabel('Metadata').fill('not json');
    await dialog.getByRole('button', { name: 'Add event' }).click();
    await expect(dialog.getByText('Required, e.g. OrderPlaced')).toBeVisible();
    await expect(dialog.getByLabel('Data', { exact: true })).toHaveAttribute('aria-invalid', 'true');
    await expect(dialog.getByLabel('Metadata')).toHaveAttribute('aria-invalid', 'true');
    await page.screenshot({ path: screenshotPath('eventlog-add-event-invalid'), fullPage: false });

    await dialog.getByLabel('Event type').fill('ShipmentDispatched');
    await dialog.getByLabel('Data', { exact: true }).fill('{"carrier": "DHL", "parcels": 2}');
    await dialog.getByLabel('Metadata').fill('{"by": "ui-test"}');
    await expect(dialog.getByText('Valid JSON')).toBeVisible();
    const eventId = await dialog.getByLabel('Event id').inputValue();
    expect(eventId).toMatch(/^[0-9a-f-]{36}$/);
    await dialog.getByRole('button', { name: 'Add event' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByText(`Added event 1 with id ${eventId}.`)).toBeVisible();

    // The live tail shows it without a reload, and so does a real client reading the stream.
    const table = page.getByRole('table', { name: 'Events in shipment-5' });
    await expect(table).toContainText('ShipmentDispatched');
    const read = await client.readStreamEventsForward('shipment-5', 1, 1, false);
    expect(read.events[0].event!.eventId).toBe(eventId);
    expect(JSON.parse(read.events[0].event!.data!.toString())).toEqual({ carrier: 'DHL', parcels: 2 });

    // Events written by a client meanwhile arrive live too.
    await client.appendToStream('shipment-5', es.expectedVersion.any, [
      jsonEvent('ShipmentDelivered', { signedBy: 'R. Doe' }),
    ]);
    await expect(table).toContainText('ShipmentDelivered');
    await page.screenshot({ path: screenshotPath('eventlog-live-tail'), fullPage: false });

    // Paused: new events are counted, not shown; resume shows them.
    await page.getByRole('button', { name: 'Pause live' }).click();
    await expect(page.getByTestId('live-status')).toHaveText('Paused');
    await client.appendToStream('shipment-5', es.expectedVersion.any, [jsonEvent('ShipmentReturned', {})]);
    await expect(page.getByText('1 new event while paused.')).toBeVisible();
    // The stream's count stays live while paused (it went stale before: "Events: 3" beside "Last event #3").
    await expect(page.getByTestId('stream-event-count')).toHaveText('4');
    await expect(table).not.toContainText('ShipmentReturned');
    await page.getByRole('button', { name: 'Resume live' }).click();
    await expect(table).toContainText('ShipmentReturned');
    // Newest first: the event that came last is the top row.
    await expect(table.locator('tbody.event').first()).toContainText('ShipmentReturned');

    // "Add new like this" starts the form from an existing event.
    await page.getByRole('button', { name: 'Expand event 1 in shipment-5' }).click();
    await page.getByRole('button', { name: 'Add new like this' }).click();
    await expect(dialog.getByLabel('Event type')).toHaveValue('ShipmentDispatched');
    await expect(dialog.getByLabel('Data', { exact: true })).toHaveValue(/"carrier": "DHL"/);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    client.close();
  });

  test('adds the first event of a new stream from the streams page', async ({ signedIn: page }) => {
    await page.getByRole('button', { name: 'Add event' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add event' });
    await dialog.getByLabel('Stream').fill('brand-new-7');
    await dialog.getByLabel('Event type').fill('Created');
    await dialog.getByLabel('Data', { exact: true }).fill('{"hello": "world"}');
    await dialog.getByRole('button', { name: 'Add event' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Added event' })).toContainText('0@brand-new-7');
    await page.getByRole('link', { name: '0@brand-new-7' }).click();
    await expect(page.getByRole('table', { name: 'Events in brand-new-7' })).toContainText('Created');
  });

  test('edits stream metadata and sees the truncation at once', async ({ signedIn: page, homeport }) => {
    const client = await connectClient(homeport.tcpPort, 'metadata-seeder');
    await appendMany(client, 'audit-3', 30, 'Audited');
    client.close();

    await page.goto(`${homeport.httpUrl}/ui/eventlog/streams/audit-3`);
    const table = page.getByRole('table', { name: 'Events in audit-3' });
    await expect(table.locator('tbody.event')).toHaveCount(20);
    await expect(page.getByTestId('metadata-limits')).toHaveText('none (every event is kept)');

    await page.getByRole('button', { name: 'Edit metadata' }).click();
    const dialog = page.getByRole('dialog', { name: 'Metadata of audit-3' });
    // A bad value is refused with its reason.
    await dialog.getByLabel('Max count').fill('-5');
    await dialog.getByRole('button', { name: 'Save metadata' }).click();
    await expect(dialog.getByRole('alert')).toHaveText('Max count must be a whole number ≥ 1');

    await dialog.getByLabel('Max count').fill('');
    await dialog.getByLabel('Truncate before (tb)').fill('25');
    await dialog.getByLabel('Read ($r)').fill('$admins, auditor');
    await dialog.getByLabel('Other keys (JSON object)').fill('{"owner": "compliance"}');
    await page.screenshot({ path: screenshotPath('eventlog-metadata-editor'), fullPage: false });
    await dialog.getByRole('button', { name: 'Save metadata' }).click();
    await expect(dialog).toBeHidden();

    await expect(page.getByTestId('metadata-limits')).toHaveText('truncated before event 25');
    await expect(
      page.getByRole('list', { name: 'Stream metadata' }).or(page.getByLabel('Stream metadata')),
    ).toContainText('read: $admins, auditor');
    await expect(table.locator('tbody.event')).toHaveCount(5);
    await expect(page.getByText('Events 25–29 of 30')).toBeVisible();
    const pager = page.getByRole('navigation', { name: 'Stream pages' });
    await expect(pager.getByRole('button', { name: /^Previous page/ })).toBeDisabled();
    await expect(pager.getByRole('button', { name: /^First page/ })).toBeDisabled();
    await page.screenshot({ path: screenshotPath('eventlog-metadata-truncated'), fullPage: false });

    // A real client sees the same truncation.
    const check = await connectClient(homeport.tcpPort, 'metadata-checker');
    const slice = await check.readStreamEventsForward('audit-3', 0, 100, false);
    expect(slice.events.map((e) => e.event!.eventNumber.toNumber())).toEqual([25, 26, 27, 28, 29]);
    const meta = await check.getStreamMetadataRaw('audit-3');
    expect(meta.streamMetadata).toEqual({ owner: 'compliance', $tb: 25, $acl: { $r: ['$admins', 'auditor'] } });
    check.close();
  });

  test('soft deletes and hard deletes a stream, after a confirmation that names the consequence', async ({
    signedIn: page,
    homeport,
  }) => {
    const client = await connectClient(homeport.tcpPort, 'delete-seeder');
    await appendMany(client, 'temp-soft', 3);
    await appendMany(client, 'temp-hard', 3);

    await page.goto(`${homeport.httpUrl}/ui/eventlog/streams/temp-soft`);
    await page.getByRole('button', { name: 'Delete stream…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete stream temp-soft' });
    await expect(dialog).toContainText("the stream's 3 events stop being readable");
    await expect(dialog).toContainText('numbered on from 3');
    await dialog.getByRole('button', { name: 'Soft delete stream' }).click();
    await expect(page.getByText('temp-soft was soft deleted.')).toBeVisible();
    await expect(page.getByText('There is no stream temp-soft (yet).')).toBeVisible();
    const soft = await client.readStreamEventsForward('temp-soft', 0, 10, false);
    expect(soft.status).toBe('streamNotFound');

    await page.goto(`${homeport.httpUrl}/ui/eventlog/streams/temp-hard`);
    await page.getByRole('button', { name: 'Delete stream…' }).click();
    const hardDialog = page.getByRole('dialog', { name: 'Delete stream temp-hard' });
    await hardDialog.getByLabel(/Hard delete/).check();
    await expect(hardDialog).toContainText('can never be written to again');
    const confirm = hardDialog.getByRole('button', { name: 'Delete permanently' });
    await expect(confirm).toBeDisabled();
    await hardDialog.getByLabel('Type the stream name to confirm').fill('temp-hard');
    await page.screenshot({ path: screenshotPath('eventlog-delete-confirm'), fullPage: false });
    await confirm.click();
    await expect(page.getByText('temp-hard was deleted permanently.')).toBeVisible();
    await expect(page.getByRole('alert')).toContainText('Stream "temp-hard" has been deleted');
    const hard = await client.readStreamEventsForward('temp-hard', 0, 10, false);
    expect(hard.status).toBe('streamDeleted');
    client.close();
  });
});
