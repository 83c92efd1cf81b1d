import { beforeAll, expect, it } from 'vitest';
import { UI_API_PREFIX } from '../../http/ui-api.ts';
import { useTestHomeport } from '../../http/testing/homeport.ts';
import type { UiScavengeStatus } from './scavenge.ts';

const server = useTestHomeport();
const tokens: Record<string, string> = {};

beforeAll(async () => {
  await server.hp.eventLog.users.add({ name: 'keeper', password: 'keeper-password', groups: ['$admins'] });
  const res = await fetch(`${server.hp.httpUrl}${UI_API_PREFIX}/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'keeper', password: 'keeper-password' }),
  });
  tokens.keeper = ((await res.json()) as { token: string }).token;
});

const call = (method: string, token = tokens.keeper) =>
  fetch(`${server.hp.httpUrl}${UI_API_PREFIX}/eventlog/scavenge`, {
    method,
    headers: { authorization: `Bearer ${token}` },
  });

it('starts a scavenge from the UI API and reports it running, then its result', async () => {
  expect(((await (await call('GET')).json()) as UiScavengeStatus).last).toBeNull();
  const started = (await (await call('POST')).json()) as { result: string; scavengeId: string };
  expect(['Started', 'InProgress']).toContain(started.result);
  const deadline = Date.now() + 20_000;
  let status = (await (await call('GET')).json()) as UiScavengeStatus;
  while (status.last?.scavengeId !== started.scavengeId) {
    if (Date.now() > deadline) throw new Error(`the scavenge never completed: ${JSON.stringify(status)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    status = (await (await call('GET')).json()) as UiScavengeStatus;
  }
  expect(status.running).toBeNull();
  expect(status.last).toMatchObject({ result: 'Success', error: '' });
  expect(status.last!.eventsRemoved).toBeGreaterThanOrEqual(0);
});

it('refuses without a session', async () => {
  expect((await call('POST', 'not-a-token')).status).toBe(401);
});
