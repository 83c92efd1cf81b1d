import crypto from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import { ExpectedVersion, type Principal } from '../index.ts';
import { UI_API_PREFIX } from '../../http/ui-api.ts';
import { useTestHomeport } from '../../http/testing/homeport.ts';
import type { ActivitySample } from './activity.ts';

const ADMIN: Principal = { name: 'admin', groups: ['$admins'] };
const server = useTestHomeport();
let token: string;

beforeAll(async () => {
  await server.hp.eventLog.users.add({ name: 'watcher', password: 'watcher-password', groups: ['$admins'] });
  const res = await fetch(`${server.hp.httpUrl}${UI_API_PREFIX}/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'watcher', password: 'watcher-password' }),
  });
  token = ((await res.json()) as { token: string }).token;
});

const activity = async (since?: number) => {
  const res = await fetch(`${server.hp.httpUrl}${UI_API_PREFIX}/eventlog/activity${since ? `?since=${since}` : ''}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { sampledAt: number; intervalMs: number; samples: ActivitySample[] };
};

it('keeps the activity series on the server: events written before anyone asks are in the first answer', async () => {
  const events = Array.from({ length: 25 }, (_, i) => ({
    eventId: crypto.randomUUID(),
    eventType: 'Tick',
    isJson: true,
    data: Buffer.from(JSON.stringify({ i })),
    metadata: Buffer.from('{}'),
  }));
  const r = await server.hp.eventLog.store.appendToStream('ticks', ExpectedVersion.Any, events, ADMIN);
  expect(r.result).toBe('Success');
  // Sampled every second by the server itself: wait (bounded) until the second with the writes is recorded.
  // Each sample covers about a second, so its rate is about the events it saw.
  const counted = (samples: ActivitySample[]) => Math.round(samples.reduce((n, s) => n + s.writtenPerSecond, 0));
  const deadline = Date.now() + 15_000;
  let answer = await activity();
  while (counted(answer.samples) < 25) {
    if (Date.now() > deadline) throw new Error(`no sample counted the writes: ${JSON.stringify(answer.samples)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    answer = await activity();
  }
  expect(answer.intervalMs).toBe(1000);
  expect(counted(answer.samples)).toBe(25);
  // `since` answers only what is newer (the page's next poll).
  const last = answer.samples[answer.samples.length - 1].at;
  expect((await activity(last)).samples.every((s) => s.at > last)).toBe(true);
});
