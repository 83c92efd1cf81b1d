import { expect, test } from './fixtures.ts';

test('checks from the Server view whether other servers can reach the instance', async ({ signedIn: page }) => {
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Server' }).click();
  await page.getByRole('button', { name: 'Check federation' }).click();
  const table = page.getByRole('table', { name: 'Federation' });
  // The e2e server listens on loopback without a public https address: reachable, with the reasons it would not federate.
  await expect(table.locator('tr[data-check="reach"]')).toHaveAttribute('data-status', 'ok');
  await expect(table.locator('tr[data-check="nodeinfo"]')).toHaveAttribute('data-status', 'ok');
  await expect(table.locator('tr[data-check="public-url"]')).toHaveAttribute('data-status', 'warning');
  await expect(table.locator('tr[data-check="public-url"]')).toContainText('is not https');
  // A warning is not a pass: the verdict says the instance is not ready for other servers.
  await expect(page.getByTestId('federation-verdict')).toContainText('not ready for other servers yet');
  await expect(page.getByTestId('federation-verdict')).not.toContainText('can reach this instance');
});
