import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { createLogger, LogRing } from '../../logger.ts';
import { SocialEvents, type SocialEventType } from '../events.ts';
import { openSocial, openSocialAdmin, type Social } from '../social.ts';

/*
 * A bulk change made with the admin CLI while no server runs (here 1,200 posts) leaves as many relayed events.
 * The next start delivers them a batch per turn of the event loop, after it has returned: delivered in one go they
 * held the start (41 s for the 249,000 a 200,000-status import left) and queued every listener's work at once
 * (737 MiB of heap).
 */

const POSTS = 1_200;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'homeport-relay-backlog-'));
const logger = () => createLogger({ level: 'warn', toConsole: false, ring: new LogRing(10) });
let social: Social | null = null;

afterAll(async () => {
  await social?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

it('delivers a large backlog of relayed events after the start, in batches between other work, each event once', async () => {
  const admin = openSocialAdmin({ dataDir: dir, logger: logger() });
  const { account } = await admin.context.accounts.create({
    username: 'importer',
    email: 'importer@example.test',
    password: 'a long enough password',
    confirmed: true,
    approved: true,
  });
  const poster = { account, user: admin.context.store.users.byAccountId(account.id), applicationId: null };
  admin.context.store.transaction(() => {
    for (let i = 0; i < POSTS; i++)
      admin.context.statuses.post(poster, { text: `imported ${i}`, visibility: 'public' });
  });
  const waiting = admin.context.store.relayedEvents.after(0, 100_000);
  expect(waiting.filter((r) => r.type === 'status.created')).toHaveLength(POSTS);
  await admin.close();

  // Every delivery seen, from the start on, with the turn of the event loop it came in (a timer counts turns).
  const delivered: { type: SocialEventType; statusId?: string; turn: number }[] = [];
  let turn = 0;
  const turns = setInterval(() => turn++, 0);
  const deliverRelayed = SocialEvents.prototype.deliverRelayed;
  SocialEvents.prototype.deliverRelayed = function (type, event) {
    delivered.push({ type, statusId: (event as { status?: { id: string } }).status?.id, turn });
    deliverRelayed.call(this, type, event);
  };
  try {
    social = await openSocial({ dataDir: dir, logger: logger(), domain: 'localhost:0', generalRateLimit: false });
    const store = social.context.store;
    // The start returned with the backlog still waiting (delivered in one go, none was left by now).
    expect(store.relayedEvents.after(0, 1)).toHaveLength(1);
    await vi.waitFor(() => expect(store.relayedEvents.after(0, 1)).toHaveLength(0), { timeout: 30_000, interval: 10 });
  } finally {
    clearInterval(turns);
    SocialEvents.prototype.deliverRelayed = deliverRelayed;
  }
  // Every event once, in the order relayed.
  expect(delivered.map((d) => d.type)).toEqual(waiting.map((r) => r.type));
  const statusIds = delivered.flatMap((d) => (d.type === 'status.created' ? [d.statusId] : []));
  expect(new Set(statusIds).size).toBe(POSTS);
  // Timers ran while it was delivered: it was spread over many turns, not one.
  expect(new Set(delivered.map((d) => d.turn)).size).toBeGreaterThan(5);
}, 60_000);
