import AxeBuilder from '@axe-core/playwright';
import { appendMany, connectClient, es, jsonEvent } from './es-client.ts';
import { expect, screenshotPath, test } from './fixtures.ts';
import { OWNER, startHomeportProcess, type RunningHomeport } from './homeport.ts';

/** Every event id of a stream, read through a real client. */
async function eventIds(tcpPort: number, stream: string): Promise<string[]> {
  const client = await connectClient(tcpPort, 'replication-check');
  try {
    const ids: string[] = [];
    for (let from = 0; ; ) {
      const slice = await client.readStreamEventsForward(stream, from, 1000, false);
      ids.push(...slice.events.map((e) => e.event!.eventId));
      if (slice.isEndOfStream) return ids;
      from = Number(slice.nextEventNumber);
    }
  } finally {
    client.close();
  }
}

let target: RunningHomeport;
test.beforeAll(async () => {
  // The second Homeport stands in for the other server (a KurrentDB cluster, a colleague's store).
  target = await startHomeportProcess();
});
test.afterAll(async () => {
  await target?.stop();
});

test('Replication page: this Homeport into a second one over TCP, live to the end, then stopped', async ({
  signedIn: page,
  homeport,
}) => {
  const source = await connectClient(homeport.tcpPort, 'replication-seeder');
  await appendMany(source, 'handover-1', 1500, 'Shipped');
  await appendMany(source, 'handover-2', 1500, 'Shipped');

  await page.getByRole('navigation', { name: 'Event log' }).getByRole('link', { name: 'Replication' }).click();
  await expect(page).toHaveURL(/\/ui\/eventlog\/replication$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Replication' })).toBeVisible();

  await page.getByLabel('Send this Homeport’s log to another server').check();
  await page.getByLabel('Other server’s address').fill(`tcp://${OWNER.name}@127.0.0.1:${target.tcpPort}`);
  await page.getByLabel('Password', { exact: true }).fill(OWNER.password);
  // Only the handovers: the shared test server holds other tests' streams too.
  await page.getByLabel('Stream prefixes').fill('handover-');
  await page.getByLabel('Continuous').check();
  await page.getByRole('button', { name: 'Start replication' }).click();
  await expect(page.getByText(`Started: this Homeport → tcp://127.0.0.1:${target.tcpPort}.`)).toBeVisible();
  // The password was used once: the field is empty and the page never shows it.
  await expect(page.getByLabel('Password', { exact: true })).toHaveValue('');

  const card = page.getByTestId('replication');
  await expect(card).toHaveCount(1);
  await expect(card.getByRole('heading', { level: 3 })).toHaveText(`this Homeport → tcp://127.0.0.1:${target.tcpPort}`);
  // Caught up: live, at 100%, with its lag shown.
  await expect(card.getByText('Live', { exact: true })).toBeVisible({ timeout: 60_000 });
  await expect(card.getByTestId('replication-percent')).toHaveText('100.0%');
  await expect(card.getByTestId('replication-eta')).toBeVisible();
  expect(await eventIds(target.tcpPort, 'handover-2')).toEqual(await eventIds(homeport.tcpPort, 'handover-2'));

  // Continuous: an event written now reaches the other server.
  const late = jsonEvent('ShipmentLate', { days: 2 });
  await source.appendToStream('handover-3', es.expectedVersion.any, [late]);
  source.close();
  await expect.poll(() => eventIds(target.tcpPort, 'handover-3'), { timeout: 30_000 }).toEqual([late.eventId]);
  await expect(card.getByTestId('replication-eta')).toHaveText(/\d ms/);
  await page.screenshot({ path: screenshotPath('eventlog-replication-live'), fullPage: true });

  await card.getByRole('button', { name: /^Stop replication/ }).click();
  const summary = card.getByTestId('replication-summary');
  await expect(summary).toContainText(/Stopped: [\d,]+ events looked at, 3,001 copied/);
  expect(await eventIds(target.tcpPort, 'handover-1')).toEqual(await eventIds(homeport.tcpPort, 'handover-1'));
  await expect(page.locator('body')).not.toContainText(OWNER.password);

  // axe-core on the page with a finished replication, in both themes.
  const found: string[] = [];
  for (const theme of ['light', 'dark'] as const) {
    await page.getByLabel('Theme').selectOption(theme);
    const results = await new AxeBuilder({ page })
      .options({ rules: { 'label-content-name-mismatch': { enabled: true } } })
      .analyze();
    found.push(...results.violations.map((v) => `${theme}: ${v.id} ${v.nodes.map((n) => n.target).join(' | ')}`));
  }
  expect(found, found.join('\n')).toEqual([]);
  await page.screenshot({ path: screenshotPath('eventlog-replication-stopped'), fullPage: true });

  // Its own address: a reload comes back to it, with the replication listed.
  await page.reload();
  await expect(page.getByTestId('replication-summary')).toContainText('Stopped');
});
