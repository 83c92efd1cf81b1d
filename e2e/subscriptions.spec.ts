import { connectClient, es, jsonEvent } from './es-client.ts';
import { expect, screenshotPath, test } from './fixtures.ts';

test.describe('subscriptions', () => {
  test('creates a group in the UI, a real consumer joins, a Nak parks a message, replay from the UI delivers it again, and the rate moves', async ({
    signedIn: page,
    homeport,
  }) => {
    test.setTimeout(90_000);
    const writer = await connectClient(homeport.tcpPort, 'order-writer');
    await writer.appendToStream('orders-live', es.expectedVersion.any, [
      jsonEvent('OrderPlaced', { order: 1 }),
      jsonEvent('OrderPlaced', { order: 2 }),
    ]);

    // Create the group through the form.
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Subscriptions' }).click();
    await expect(page.getByText('No persistent subscription groups.')).toBeVisible();
    await page.getByRole('link', { name: 'New persistent group' }).click();
    await page.getByLabel('Stream', { exact: true }).fill('orders-live');
    await page.getByLabel('Group name').fill('shipping');
    await page.getByLabel('The beginning of the stream').check();
    await page.getByLabel('Max retry count').fill('3');
    await page.getByLabel('Consumer strategy').selectOption('DispatchToSingle');
    await page.screenshot({ path: screenshotPath('subscriptions-new-group'), fullPage: true });
    await page.getByRole('button', { name: 'Create group' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Group shipping on orders-live');
    const settings = page.getByLabel('Group settings');
    await expect(settings).toContainText('Max retry count3');
    await expect(settings).toContainText('Consumer strategyDispatchToSingle');
    await expect(page.getByText('No consumer is connected to this group.')).toBeVisible();

    // A real consumer: parks anything marked poison the first time, acknowledges everything else.
    const consumerConn = await connectClient(homeport.tcpPort, 'shipping-worker');
    const deliveries: { order: number; retry: number }[] = [];
    const parkedOnce = new Set<string>();
    await consumerConn.connectToPersistentSubscription(
      'orders-live',
      'shipping',
      (sub, e) => {
        const data = JSON.parse(e.event!.data!.toString()) as { order: number; poison?: boolean };
        deliveries.push({ order: data.order, retry: 0 });
        const id = e.originalEvent!.eventId;
        if (data.poison && !parkedOnce.has(id)) {
          parkedOnce.add(id);
          sub.fail(e, es.PersistentSubscriptionNakEventAction.Park, 'address missing');
        } else sub.acknowledge(e);
      },
      undefined,
      undefined,
      10,
      false,
    );
    const consumers = page.getByRole('table', { name: 'Connected consumers' });
    await expect(consumers).toContainText('shipping-worker');
    await expect(consumers).toContainText('admin');
    await expect.poll(() => deliveries.map((d) => d.order)).toEqual([1, 2]);
    await expect(page.getByTestId('detail-total')).toHaveText('2');

    // Park one with a Nak.
    await writer.appendToStream('orders-live', es.expectedVersion.any, [
      jsonEvent('OrderPlaced', { order: 3, poison: true }),
      jsonEvent('OrderPlaced', { order: 4 }),
    ]);
    await expect(page.getByTestId('detail-parked')).toHaveText('1');
    const parked = page.getByRole('table', { name: 'Parked messages' });
    await expect(parked).toContainText('2@orders-live');
    await parked.getByRole('button', { name: /^Expand event 0 in/ }).click();
    await expect(page.locator('tr.event-detail')).toContainText('"poison": true');
    await expect(page.locator('tr.event-detail')).toContainText('address missing');
    await page.screenshot({ path: screenshotPath('subscriptions-group-parked'), fullPage: true });

    // Replay it from the UI: the consumer gets it again (and acknowledges it this time).
    await page.getByRole('button', { name: 'Replay parked messages…' }).click();
    const replay = page.getByRole('dialog', { name: 'Replay parked messages' });
    await expect(replay).toContainText('1 are parked now.');
    await replay.getByLabel('All parked messages').check();
    await replay.getByRole('button', { name: 'Replay' }).click();
    await expect(page.getByText('Replayed 1 parked message.')).toBeVisible();
    await expect.poll(() => deliveries.filter((d) => d.order === 3).length).toBe(2);
    await expect(page.getByTestId('detail-parked')).toHaveText('0');
    await expect(page.getByText('No parked messages.')).toBeVisible();

    // The overview: clients, live subscriptions and the group, grouped under its stream.
    await writer.subscribeToStream('orders-live', false, () => undefined);
    await page.getByRole('link', { name: 'Subscriptions' }).first().click();
    const clients = page.getByRole('table', { name: 'Connected clients' });
    await expect(clients).toContainText('shipping-worker');
    await expect(clients).toContainText('order-writer');
    await expect(page.getByRole('table', { name: 'Live subscriptions' })).toContainText('order-writer');
    const row = page.getByTestId('group-row-orders-live::shipping');
    await expect(page.getByRole('table', { name: 'Groups on orders-live' })).toBeVisible();
    await expect(row.getByTestId('group-rate')).toHaveText('0/s');

    // Watch the rate change: writes at a steady pace show up as a rate; when they stop it falls back to 0.
    let n = 100;
    const pace = setInterval(() => {
      void writer.appendToStream('orders-live', es.expectedVersion.any, [jsonEvent('OrderPlaced', { order: n++ })]);
    }, 50);
    try {
      await expect(row.getByTestId('group-rate')).not.toHaveText('0/s', { timeout: 15_000 });
      await expect(row).toContainText('Live');
      // The live charts follow the same writes and deliveries.
      const charts = page.getByRole('group', { name: 'Activity over the last 5 minutes' });
      await expect(charts.getByRole('figure', { name: /Events written/ }).getByTestId('chart-current')).not.toHaveText(
        '0/s',
        { timeout: 15_000 },
      );
      await expect(charts.getByRole('figure', { name: /Deliveries/ }).getByTestId('chart-current')).not.toHaveText(
        '0/s',
        { timeout: 15_000 },
      );
      await expect(charts.getByRole('figure', { name: /Lag of orders-live\/shipping/ })).toBeVisible();
      await page.screenshot({ path: screenshotPath('subscriptions-overview-rate'), fullPage: true });
    } finally {
      clearInterval(pace);
    }
    await expect(row.getByTestId('group-rate')).toHaveText('0/s', { timeout: 15_000 });

    // Edit, then delete the group.
    await row.getByRole('link', { name: 'Group shipping on orders-live' }).click();
    await page.getByRole('link', { name: 'Edit settings' }).click();
    await page.getByLabel('Message timeout (ms)').fill('5000');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect(page.getByLabel('Group settings')).toContainText('Message timeout5,000 ms');
    await page.getByRole('button', { name: 'Delete group…' }).click();
    const del = page.getByRole('dialog', { name: 'Delete group shipping' });
    await expect(del).toContainText('The events in orders-live are not touched.');
    await del.getByRole('button', { name: 'Delete group' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Subscriptions' })).toBeVisible();
    await expect(page.getByText('No persistent subscription groups.')).toBeVisible();

    consumerConn.close();
    writer.close();
  });

  test('a group form with an impossible setting shows the server reason', async ({ signedIn: page, homeport }) => {
    await page.goto(`${homeport.httpUrl}/ui/subscriptions/new`);
    await page.getByLabel('Stream', { exact: true }).fill('orders-x');
    await page.getByLabel('Group name').fill('bad');
    await page.getByLabel('Read batch size').fill('900');
    await page.getByLabel('History buffer size').fill('100');
    await page.getByRole('button', { name: 'Create group' }).click();
    await expect(page.getByRole('alert')).toHaveText(
      'Read batch size (900) must be smaller than the history buffer size (100)',
    );
    await page.getByLabel('Stream', { exact: true }).fill('$all');
    await page.getByLabel('Read batch size').fill('20');
    await page.getByRole('button', { name: 'Create group' }).click();
    await expect(page.getByRole('alert')).toContainText('not available over the TCP protocol');
  });
});
