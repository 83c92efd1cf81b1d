import { jsonEvent as grpcEvent, KurrentDBClient } from '@kurrent/kurrentdb-client';
import { es, jsonEvent } from './es-client.ts';
import { expect, test } from '@playwright/test';
import { OWNER, startHomeportProcess, type RunningHomeport } from './homeport.ts';

/*
 * The Server view's connection strings name the signed-in account, never a password (nor the public
 * default one), for every event-log listener (TCP, TLS, gRPC); what the copy buttons put on the clipboard
 * connects with real clients once the password is supplied.
 */

let hp: RunningHomeport;
test.beforeAll(async () => {
  hp = await startHomeportProcess(['--tcp-tls-port', '0']);
});
test.afterAll(async () => {
  await hp?.stop();
});

/** Runs a copied node-eventstore-client snippet as a program would, the password in its environment. */
async function runSnippet(snippet: string, stream: string): Promise<number> {
  const make = new Function('EventStore', 'process', `return ${snippet};`) as (
    lib: typeof es,
    proc: { env: Record<string, string> },
  ) => es.EventStoreNodeConnection;
  const connection = make(es, { env: { HOMEPORT_PASSWORD: OWNER.password } });
  connection.on('error', () => {});
  const connected = new Promise((resolve) => connection.once('connected', resolve));
  await connection.connect();
  await connected;
  try {
    await connection.appendToStream(stream, es.expectedVersion.any, [jsonEvent('Connected', { stream })]);
    const read = await connection.readStreamEventsForward(stream, 0, 10, true);
    return read.events.length;
  } finally {
    connection.close();
  }
}

test('connection strings for the signed-in user, without the password, and they connect', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.goto(`${hp.httpUrl}/ui/server`);
  await page.getByLabel('User name').fill(OWNER.name);
  await page.getByLabel('Password').fill(OWNER.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Server' })).toBeVisible();
  const listeners = page.getByRole('table', { name: 'Listeners' });
  await expect(listeners.getByRole('rowheader', { name: 'Event log (gRPC)' })).toBeVisible();

  const copied = async (label: string, listener: string) => {
    await listeners.getByRole('button', { name: `Copy ${label} connection string for ${listener}` }).click();
    const text = await page.evaluate(() => navigator.clipboard.readText());
    expect(text).toContain(OWNER.name);
    expect(text).not.toContain(OWNER.password);
    expect(text).not.toContain('changeit');
    return text;
  };

  // TCP: the snippet connects, writes and reads as the owner.
  const tcp = await copied('node-eventstore-client', 'Event log (TCP)');
  expect(tcp).toContain(`tcp://127.0.0.1:${hp.tcpPort}`);
  expect(await runSnippet(tcp, 'copied-tcp')).toBe(1);
  const dotnet = await copied('.NET EventStore.ClientAPI', 'Event log (TCP)');
  expect(dotnet).toBe(
    `ConnectTo=tcp://127.0.0.1:${hp.tcpPort};DefaultUserCredentials=owner:<password>;UseSslConnection=false`,
  );

  // TLS: the same over the encrypted listener.
  const tls = await copied('node-eventstore-client', 'Event log (TLS)');
  expect(tls).toContain('useSslConnection: true');
  expect(await runSnippet(tls, 'copied-tls')).toBe(1);
  await copied('.NET EventStore.ClientAPI', 'Event log (TLS)');

  // gRPC: the KurrentDB connection string, with the password put in its place, reads what TCP wrote.
  const grpc = await copied('KurrentDB and EventStoreDB gRPC clients', 'Event log (gRPC)');
  expect(grpc).toMatch(/^kurrentdb:\/\/owner:<password>@127\.0\.0\.1:\d+\?/);
  const client = KurrentDBClient.connectionString(grpc.replace('<password>', encodeURIComponent(OWNER.password)));
  try {
    await client.appendToStream('copied-grpc', grpcEvent({ type: 'Connected', data: {} }));
    let count = 0;
    for await (const _ of client.readStream('copied-tcp')) count++;
    expect(count).toBe(1);
  } finally {
    await client.dispose();
  }
});

test('an access token made in the Server view lets a gRPC client in as its user until it is revoked', async ({
  page,
  context,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.goto(`${hp.httpUrl}/ui/server`);
  await page.getByLabel('User name').fill(OWNER.name);
  await page.getByLabel('Password').fill(OWNER.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const listeners = page.getByRole('table', { name: 'Listeners' });
  await listeners
    .getByRole('button', {
      name: 'Copy KurrentDB and EventStoreDB gRPC clients connection string for Event log (gRPC)',
    })
    .click();
  // The address without account: the token is the credential.
  const address = (await page.evaluate(() => navigator.clipboard.readText())).replace(/\/\/[^@/]+@/, '//');

  const form = page.getByRole('form', { name: 'New access token' });
  await form.getByLabel('User').selectOption(OWNER.name);
  await form.getByLabel('Label').fill('e2e program');
  await form.getByRole('button', { name: 'Create token' }).click();
  const bearerToken = (await page.getByTestId('issued-token').textContent()) ?? '';
  expect(bearerToken.length).toBeGreaterThan(40);
  const row = page.getByRole('table', { name: 'Access tokens' }).getByRole('row', { name: /e2e program/ });
  await expect(row).toContainText(OWNER.name);

  const client = KurrentDBClient.connectionString(address);
  try {
    const appended = await client.appendToStream('token-e2e', grpcEvent({ type: 'ByToken', data: {} }), {
      credentials: { bearerToken },
    });
    expect(appended.success).toBe(true);

    await row.getByRole('button', { name: /^Revoke token / }).click();
    await expect(row).toHaveCount(0);
    await expect(
      client.appendToStream('token-e2e', grpcEvent({ type: 'ByToken', data: {} }), { credentials: { bearerToken } }),
    ).rejects.toThrow();
  } finally {
    await client.dispose();
  }
});
