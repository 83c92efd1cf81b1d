import { connectClient, es, jsonEvent } from './es-client.ts';
import { expect, screenshotPath, test } from './fixtures.ts';
import { OWNER, startHomeportProcess, type RunningHomeport } from './homeport.ts';

// This test reads info-level log lines, so it runs its own Homeport (the shared one logs warnings only).
let homeport: RunningHomeport;
test.beforeAll(async () => {
  homeport = await startHomeportProcess(['--log-level', 'info']);
});
test.afterAll(async () => {
  await homeport.stop();
});

test('server view: copyable connection strings, event-log users, and the log with filters', async ({
  page,
  context,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.goto(`${homeport.httpUrl}/ui/server`);
  await page.getByLabel('User name').fill(OWNER.name);
  await page.getByLabel('Password').fill(OWNER.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Server' })).toBeVisible();

  // The node-eventstore-client connection string points at this server's TCP port.
  const copy = page.getByRole('button', { name: 'Copy node-eventstore-client connection string for Event log (TCP)' });
  await copy.click();
  const text = await page.evaluate(() => navigator.clipboard.readText());
  expect(text).toContain(`tcp://127.0.0.1:${homeport.tcpPort}`);
  await expect(page.getByRole('table', { name: 'Databases' })).toContainText('eventlog.db');

  // ops keeps EventStoreDB's public password on a new install: warned about, as admin's is, until changed.
  await expect(page.getByTestId('default-password-ops')).toContainText('changeit');
  await page.getByRole('button', { name: 'Change it now: the password of ops' }).click();
  const opsPassword = page.getByRole('dialog', { name: 'Change the password of ops' });
  await opsPassword.getByLabel('New password').fill('ops-own-password');
  await opsPassword.getByLabel('Repeat it').fill('ops-own-password');
  await opsPassword.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByText('Changed the password of ops.')).toBeVisible();
  await expect(page.getByTestId('default-password-ops')).toHaveCount(0);

  // Add a user, who can then write through a real client.
  await page.getByRole('button', { name: 'Add user' }).click();
  const add = page.getByRole('dialog', { name: 'Add an event-log user' });
  await add.getByLabel('User name').fill('writer');
  await add.getByLabel('Full name').fill('Batch Writer');
  await add.getByLabel('Password').fill('w-secret-1');
  await add.getByLabel('Groups').fill('$ops, writers');
  await add.getByRole('button', { name: 'Add user' }).click();
  const users = page.getByRole('table', { name: 'Event-log users' });
  await expect(users).toContainText('Batch Writer');
  await expect(users.getByRole('row', { name: /writer/ })).toContainText('$ops, writers');

  const asWriter = async (password: string) => {
    const conn = es.createConnection(
      {
        defaultUserCredentials: new es.UserCredentials('writer', password),
        log: { debug() {}, info() {}, error() {} },
      },
      `tcp://127.0.0.1:${homeport.tcpPort}`,
    );
    const connected = new Promise((r) => conn.once('connected', r));
    await conn.connect();
    await connected;
    try {
      await conn.appendToStream('writer-check', es.expectedVersion.any, [jsonEvent('Checked', { password })]);
      return 'ok';
    } catch (err) {
      return `${(err as Error).name}: ${(err as Error).message}`;
    } finally {
      conn.close();
    }
  };
  expect(await asWriter('w-secret-1')).toBe('ok');

  // Cancelling the dialog changes nothing and says nothing changed.
  await page.getByRole('button', { name: 'Change password of writer' }).click();
  const pw = page.getByRole('dialog', { name: 'Change the password of writer' });
  await pw.getByRole('button', { name: 'Cancel' }).click();
  await expect(pw).toBeHidden();
  await expect(page.getByText('Changed the password of writer.')).toHaveCount(0);

  // Change the password: the old one stops working, the new one works.
  await page.getByRole('button', { name: 'Change password of writer' }).click();
  await pw.getByLabel('New password').fill('w-secret-2');
  await pw.getByLabel('Repeat it').fill('w-secret-3');
  await pw.getByRole('button', { name: 'Change password' }).click();
  await expect(pw.getByRole('alert')).toHaveText('The two passwords differ');
  await pw.getByLabel('Repeat it').fill('w-secret-2');
  await pw.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByText('Changed the password of writer.')).toBeVisible();
  await expect.poll(() => asWriter('w-secret-2')).toBe('ok');
  // The server's NotAuthenticated reply, as the client reports it (not a timeout or another failure).
  await expect.poll(() => asWriter('w-secret-1')).toMatch(/authenticat/i);
  await page.screenshot({ path: screenshotPath('server-users'), fullPage: true });

  // Remove the user.
  await page.getByRole('button', { name: 'Remove writer' }).click();
  const remove = page.getByRole('dialog', { name: 'Remove user writer' });
  await remove.getByRole('button', { name: 'Remove user' }).click();
  await expect(page.getByText('Removed user writer.')).toBeVisible();
  await expect(users).not.toContainText('Batch Writer');

  // The log tail: the user changes were logged; filters narrow it down.
  const log = page.getByRole('list', { name: 'Server log' });
  await page.getByLabel('Contains').fill('/eventlog/users');
  await expect(log).toContainText('DELETE');
  await expect(log).toContainText('/api/homeport/v1/eventlog/users/writer/password');
  // The UI's own polling (GET) stays out of the log.
  await expect(log).not.toContainText('"method":"GET"');
  await page.getByLabel('Level').selectOption('error');
  await expect(page.getByText('No log lines at this level containing that text.')).toBeVisible();
  await page.getByLabel('Level').selectOption('info');
  await page.getByLabel('Contains').fill('');
  await expect(log.locator('li').first()).toBeVisible();

  const client = await connectClient(homeport.tcpPort, 'server-view-check');
  await client.appendToStream('server-check', es.expectedVersion.any, [jsonEvent('Ping', {})]);
  client.close();
  await page.screenshot({ path: screenshotPath('server-view-full'), fullPage: true });
});
