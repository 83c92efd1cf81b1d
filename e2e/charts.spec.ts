import { connectClient, es, jsonEvent } from './es-client.ts';
import { expect, screenshotPath, test } from './fixtures.ts';

/*
 * The live charts are kept on the server: writes and deliveries from before the page opened are on the
 * chart the moment it opens, with axes (units, clock times) and the value under the pointer; a subscription
 * that ended does not turn its deliveries into a false 0/s.
 */

test('a chart is full on first open, with axes and hover values', async ({ page, homeport }) => {
  await page.goto(`${homeport.httpUrl}/ui/eventlog`);
  const client = await connectClient(homeport.tcpPort, 'chart-writer');
  const seen: string[] = [];
  const subscription = await client.subscribeToStream('chart-ticks', false, (_s, e) => {
    seen.push(e.originalEvent!.eventType);
  });
  for (let i = 0; i < 40; i++)
    await client.appendToStream('chart-ticks', es.expectedVersion.any, [jsonEvent('Tick', { i })]);
  await expect.poll(() => seen.length).toBe(40);
  // The subscription ends before anyone looks: its deliveries stay counted.
  subscription.close();
  client.close();

  // Signed in only now: the page has never sampled anything itself.
  await page.getByLabel('User name').fill('owner');
  await page.getByLabel('Password').fill('owner-e2e-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Subscriptions' }).click();
  const charts = page.getByRole('group', { name: 'Activity over the last 5 minutes' });
  const written = charts.getByRole('figure', { name: /Events written/ });
  const delivered = charts.getByRole('figure', { name: /Deliveries/ });
  // Peaks from before the page opened.
  await expect(written).not.toContainText('peak 0/s');
  await expect(delivered).not.toContainText('peak 0/s');
  await expect(written.locator('path.chart-line')).toHaveCount(1);
  // Axes: the unit on the value axis, clock times on the time axis.
  await expect(written.locator('text.chart-label').first()).toHaveText('0/s');
  await expect(written.locator('text.chart-label').filter({ hasText: /^\d{1,2}:\d{2}:\d{2}/ })).toHaveCount(3);

  // Hover: the value at the moment under the pointer, found by sweeping across the plot.
  const svg = written.getByRole('img');
  const box = (await svg.boundingBox())!;
  const hover = written.getByTestId('chart-hover');
  let found = '';
  for (let f = 0.99; f > 0.1 && !/[1-9]/.test(found.split(': ')[1] ?? ''); f -= 0.01) {
    await page.mouse.move(box.x + box.width * f, box.y + box.height / 2);
    found = (await hover.textContent()) ?? '';
  }
  expect(found).toMatch(/^\d{1,2}:\d{2}:\d{2}.*: [\d.,]+[k]?\/s$/);
  await page.screenshot({ path: screenshotPath('subscriptions-charts') });
  // The longer periods show the same history.
  await page.getByRole('group', { name: 'Chart period' }).getByRole('button', { name: '1 hour' }).click();
  await expect(
    page.getByRole('group', { name: 'Activity over the last 1 hour' }).getByRole('figure', { name: /Deliveries/ }),
  ).not.toContainText('peak 0/s');
});
