import crypto from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import { ExpectedVersion } from '../index.ts';
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

it('reports the progress of the scavenge under way as a percentage', async () => {
  const { store } = server.hp.eventLog;
  const jsonEvent = (eventType: string, body: unknown) => ({
    eventId: crypto.randomUUID(),
    eventType,
    isJson: true,
    data: Buffer.from(JSON.stringify(body)),
    metadata: Buffer.alloc(0),
  });
  // 100 truncated streams: more than one step's 64, so the scavenge can be held between two steps.
  // Written together, so they share group commits.
  await Promise.all(
    Array.from({ length: 100 }, (_, i) =>
      Promise.all([
        store.appendToStream(`held-${i}`, ExpectedVersion.Any, [jsonEvent('Tick', { i }), jsonEvent('Tick', {})], null),
        store.appendToStream(`$$held-${i}`, ExpectedVersion.Any, [jsonEvent('$metadata', { $tb: 1 })], null),
      ]),
    ),
  );
  // Hold the scavenge's next step once its first one is done (its steps are the store's internal writes).
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  type Writes = { runSystemWrite<T>(fn: (writer: never) => T, options?: { internal?: boolean }): Promise<T> };
  const writes = store as unknown as Writes;
  const runSystemWrite = writes.runSystemWrite.bind(store);
  writes.runSystemWrite = async (fn, options) => {
    if ((store.scavengeProgress()?.streamsDone ?? 0) > 0) await released;
    return runSystemWrite(fn, options);
  };
  try {
    const started = (await (await call('POST')).json()) as { scavengeId: string };
    let status = (await (await call('GET')).json()) as UiScavengeStatus;
    const deadline = Date.now() + 20_000;
    while (!status.running?.progress?.streamsDone) {
      if (Date.now() > deadline) throw new Error(`no progress reported: ${JSON.stringify(status)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      status = (await (await call('GET')).json()) as UiScavengeStatus;
    }
    expect(status.running).toMatchObject({ scavengeId: started.scavengeId });
    const { percent, streamsDone, streamsTotal, eventsRemoved } = status.running!.progress!;
    expect(streamsTotal).toBeGreaterThanOrEqual(100);
    expect(streamsDone).toBe(64);
    expect(percent).toBe(Math.floor((100 * streamsDone) / streamsTotal));
    expect(eventsRemoved).toBeGreaterThan(0);
    release();
    while (status.last?.scavengeId !== started.scavengeId) {
      if (Date.now() > deadline) throw new Error(`the scavenge never completed: ${JSON.stringify(status)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      status = (await (await call('GET')).json()) as UiScavengeStatus;
    }
    expect(status.running).toBeNull();
    expect(status.last!.eventsRemoved).toBeGreaterThanOrEqual(100);
  } finally {
    release();
    writes.runSystemWrite = runSystemWrite;
  }
});

it('refuses without a session', async () => {
  expect((await call('POST', 'not-a-token')).status).toBe(401);
});
