import { appendMany, connectClient, es, jsonEvent } from './es-client.ts';
import { expect, screenshotPath, test } from './fixtures.ts';

test.describe('browsing the event log', () => {
  test('browses streams, searches by prefix and wildcard, and opens a category', async ({
    signedIn: page,
    homeport,
  }) => {
    const client = await connectClient(homeport.tcpPort, 'browse-seeder');
    for (const id of ['1', '2', '10']) {
      await client.appendToStream(`invoice-${id}`, es.expectedVersion.any, [
        jsonEvent('InvoiceIssued', { id, total: Number(id) * 12.5 }),
      ]);
    }
    await client.appendToStream('payment-1', es.expectedVersion.any, [jsonEvent('PaymentReceived', { invoice: '1' })]);
    client.close();

    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Event log' }).click();
    const changed = page.getByRole('table', { name: 'Recently changed streams' });
    await expect(changed).toContainText('payment-1');
    await expect(changed.getByRole('row').nth(1)).toContainText('payment-1');
    await expect(page.getByRole('table', { name: 'Recently created streams' })).toContainText('invoice-10');
    await expect(
      page.getByRole('list', { name: 'Stream categories' }).getByRole('link', { name: 'invoice: 3 streams' }),
    ).toBeVisible();
    await page.screenshot({ path: screenshotPath('eventlog-streams'), fullPage: true });

    // Prefix search, typed and submitted with the keyboard.
    await page.getByLabel('Find streams').fill('invoice-1');
    await page.getByLabel('Find streams').press('Enter');
    const results = page.getByRole('table', { name: 'Matching streams' });
    await expect(results.getByRole('link')).toHaveText(['invoice-1', 'invoice-10']);
    await page.screenshot({ path: screenshotPath('eventlog-search-prefix'), fullPage: true });

    // A * makes it a wildcard search.
    await page.getByLabel('Find streams').fill('*-1');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect(results.getByRole('link')).toHaveText(['invoice-1', 'payment-1']);

    // Exact name that does not exist offers to open it anyway.
    await page.getByRole('combobox', { name: 'Match' }).selectOption('exact');
    await page.getByLabel('Find streams').fill('invoice-3');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect(page.getByText('No stream matches “invoice-3”.')).toBeVisible();

    // Categories lead to a prefix search.
    await page.getByRole('button', { name: 'Clear search' }).click();
    await page.getByRole('link', { name: 'invoice: 3 streams' }).click();
    await expect(results.getByRole('link')).toHaveText(['invoice-1', 'invoice-10', 'invoice-2']);
    await results.getByRole('link', { name: 'invoice-2' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'invoice-2' })).toBeVisible();
    await expect(page.getByRole('table', { name: 'Events in invoice-2' })).toContainText('InvoiceIssued');
  });

  test('pages a 1,000-event stream both ways with buttons that stay put', async ({ signedIn: page, homeport }) => {
    const client = await connectClient(homeport.tcpPort, 'paging-seeder');
    await appendMany(client, 'ledger-1', 1000, 'Posted');
    client.close();

    await page.goto(`${homeport.httpUrl}/ui/eventlog/streams/ledger-1`);
    const table = page.getByRole('table', { name: 'Events in ledger-1' });
    const pager = page.getByRole('navigation', { name: 'Stream pages' });
    const button = (name: string) => pager.getByRole('button', { name: new RegExp(`^${name} page`) });
    const numbers = () => table.locator('tbody.event > tr:first-child > td.num:nth-child(2)');

    // Newest page first, newest event on top (as KurrentDB's UI shows them): 999 down to 980, nothing newer.
    await expect(numbers().last()).toHaveText('980');
    await expect(numbers().first()).toHaveText('999');
    await expect(button('Next')).toBeDisabled();
    await expect(button('Last')).toBeDisabled();
    await expect(button('Previous')).toBeEnabled();

    const box = await button('Next').boundingBox();
    await button('Previous').click();
    await expect(numbers().last()).toHaveText('960');
    await expect(numbers().first()).toHaveText('979');
    // The buttons did not move when their state changed.
    expect(await button('Next').boundingBox()).toEqual(box);
    await expect(button('Next')).toBeEnabled();

    await page.getByLabel('Per page').selectOption('100');
    await expect(numbers()).toHaveCount(100);

    await button('First').click();
    await expect(numbers().last()).toHaveText('0');
    await expect(numbers().first()).toHaveText('99');
    await expect(button('First')).toBeDisabled();
    await expect(button('Previous')).toBeDisabled();
    await expect(page).toHaveURL(/from=0&dir=forward/);
    await page.screenshot({ path: screenshotPath('eventlog-stream-first-page'), fullPage: false });

    await button('Next').click();
    await expect(numbers().last()).toHaveText('100');
    // Back returns to the same page (the page is in the address).
    await page.goBack();
    await expect(numbers().last()).toHaveText('0');

    await button('Last').click();
    await expect(numbers().first()).toHaveText('999');
    await expect(numbers().last()).toHaveText('900');
    await expect(page.getByText('Events 900–999 of 1,000')).toBeVisible();
    await page.screenshot({ path: screenshotPath('eventlog-stream-last-page'), fullPage: false });
  });

  test('expands an event, copies its JSON, expands all for the browser find, and opens one event', async ({
    signedIn: page,
    homeport,
    context,
  }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const client = await connectClient(homeport.tcpPort, 'expand-seeder');
    await client.appendToStream('cart-9', es.expectedVersion.any, [
      jsonEvent('ItemAdded', { sku: 'TEA-01', qty: 2 }, { correlationId: 'c-123' }),
      jsonEvent('ItemAdded', { sku: 'MUG-07', qty: 1 }),
      jsonEvent('CheckedOut', { total: 31.5 }),
    ]);
    await client.appendToStream('cart-links', es.expectedVersion.any, [
      es.createEventData(crypto.randomUUID(), '$>', false, Buffer.from('2@cart-9')),
    ]);
    client.close();

    await page.goto(`${homeport.httpUrl}/ui/eventlog/streams/cart-9`);
    await page.getByRole('button', { name: 'Expand event 0 in cart-9' }).click();
    const detail = page.locator('tr.event-detail');
    await expect(detail).toContainText('"sku": "TEA-01"');
    await expect(detail).toContainText('"correlationId": "c-123"');
    await page.getByRole('button', { name: 'Copy event 0 as JSON' }).click();
    await expect(page.getByRole('button', { name: 'Copy event 0 as JSON' })).toHaveText(/Copied/);
    const copied = JSON.parse(await page.evaluate(() => navigator.clipboard.readText()));
    expect(copied).toMatchObject({
      streamId: 'cart-9',
      eventNumber: 0,
      eventType: 'ItemAdded',
      data: { sku: 'TEA-01', qty: 2 },
      metadata: { correlationId: 'c-123' },
    });
    await page.screenshot({ path: screenshotPath('eventlog-event-expanded'), fullPage: true });

    // Expand all: every event's data is text on the page, so the browser's find sees MUG-07.
    await page.getByRole('button', { name: 'Expand all' }).click();
    await expect(page.locator('tr.event-detail')).toHaveCount(3);
    await expect(page.getByText('"MUG-07"')).toBeVisible();
    await page.getByRole('button', { name: 'Collapse all' }).click();
    await expect(page.locator('tr.event-detail')).toHaveCount(0);

    // One event, with its neighbours.
    await page.getByRole('link', { name: 'Open event 1 in cart-9' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Event 1 in cart-9');
    await expect(page.getByTestId('event-number')).toHaveText('1');
    await expect(page.getByRole('region', { name: 'Data', exact: true })).toContainText('"MUG-07"');
    await page.getByRole('link', { name: 'Next event (2)' }).click();
    await expect(page.getByTestId('event-number')).toHaveText('2');
    await expect(page.getByRole('button', { name: 'Next event (none)' })).toBeDisabled();
    await page.screenshot({ path: screenshotPath('eventlog-event-page'), fullPage: true });

    // A link event shows where it points, and resolves to the target.
    await page.goto(`${homeport.httpUrl}/ui/eventlog/streams/cart-links`);
    await expect(page.getByRole('link', { name: 'Link target: event 2 in cart-9' })).toBeVisible();
    await page.getByRole('link', { name: 'Link target: event 2 in cart-9' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Event 2 in cart-9');

    // An event that is not there: said plainly, with the way back to its stream and nothing to try again.
    await page.goto(`${homeport.httpUrl}/ui/eventlog/streams/cart-9/events/77`);
    const missing = page.getByTestId('no-such-event');
    await expect(missing).toContainText('No such event');
    await expect(missing).toContainText('Event 77 is not in stream "cart-9"');
    await expect(page.getByRole('button', { name: 'Try again' })).toHaveCount(0);
    await missing.getByRole('link', { name: 'Back to the stream cart-9' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'cart-9' })).toBeVisible();
  });

  test('keyboard only: reach the search, the table and a row toggle', async ({ signedIn: page, homeport }) => {
    const client = await connectClient(homeport.tcpPort, 'keyboard-seeder');
    await client.appendToStream('kbd-1', es.expectedVersion.any, [jsonEvent('Typed', { key: 'Enter' })]);
    client.close();
    await page.goto(`${homeport.httpUrl}/ui/eventlog?q=kbd-&mode=prefix`);
    await expect(page.getByRole('table', { name: 'Matching streams' })).toContainText('kbd-1');
    // Tab to the stream link and follow it with Enter.
    const link = page.getByRole('table', { name: 'Matching streams' }).getByRole('link', { name: 'kbd-1' });
    for (let i = 0; i < 30 && !(await link.evaluate((el) => el === document.activeElement)); i++)
      await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('heading', { level: 1, name: 'kbd-1' })).toBeVisible();
    const toggle = page.getByRole('button', { name: 'Expand event 0 in kbd-1' });
    for (let i = 0; i < 40 && !(await toggle.evaluate((el) => el === document.activeElement)); i++)
      await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('button', { name: 'Collapse event 0 in kbd-1' })).toHaveAttribute(
      'aria-expanded',
      'true',
    );
    await expect(page.locator('tr.event-detail')).toContainText('"key": "Enter"');
  });
});
