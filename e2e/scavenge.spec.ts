import { appendMany, connectClient, es } from './es-client.ts';
import { expect, test } from './fixtures.ts';

test('Scavenge from the Server view removes what no read returns, following it to its result', async ({
  signedIn: page,
  homeport,
}) => {
  // A stream truncated below its event 8: those events are removed by the next scavenge.
  const client = await connectClient(homeport.tcpPort, 'scavenge-seeder');
  await appendMany(client, 'scavenge-me', 10, 'Tick');
  await client.setStreamMetadataRaw('scavenge-me', es.expectedVersion.any, { $tb: 8 });
  client.close();

  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Server' }).click();
  await page.getByRole('button', { name: 'Scavenge', exact: true }).click();
  await expect(page.getByTestId('scavenge-last')).toContainText('Success', { timeout: 30_000 });
  await expect(page.getByTestId('scavenge-last')).toContainText(/[1-9][\d,]* events removed/);
  await expect(page.getByRole('button', { name: 'Scavenge', exact: true })).toBeEnabled();
});
