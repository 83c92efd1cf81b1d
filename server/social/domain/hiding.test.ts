import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSocialWithClock, type SocialTestServer, type TestUser } from '../testing/harness.ts';

/*
 * What a block and a mute hide, at their edges: a mention from a blocked account notifies nobody, and a mute
 * that has run out hides nothing any more, even while its row waits for the sweep that deletes expired mutes.
 * The server runs on an injected clock: the mute expires by moving it, and the sweep (every minute of real
 * time) does not run in between.
 */

let now = Date.parse('2030-01-01T12:00:00Z');
let server: SocialTestServer;
let lain: TestUser;
let bob: TestUser;
let carol: TestUser;

beforeAll(async () => {
  server = await startSocialWithClock(() => now);
  lain = await server.createUser('lain');
  bob = await server.createUser('bob');
  carol = await server.createUser('carol');
});

afterAll(async () => {
  await server?.close();
});

describe('blocks and mutes', () => {
  it('a mention from an account the recipient blocks does not notify; one from another account does', async () => {
    const client = server.masto(lain.token);
    await client.v1.accounts.$select(bob.accountId).block();
    const blocked = await server.masto(bob.token).v1.statuses.create({ status: '@lain from a blocked account' });
    const allowed = await server.masto(carol.token).v1.statuses.create({ status: '@lain from carol' });
    const mentions = await client.v1.notifications.list({ types: ['mention'], limit: 40 });
    // carol's mention came after bob's and is there: bob's was handled, and dropped.
    expect(mentions.map((n) => n.status?.id)).toContain(allowed.id);
    expect(mentions.map((n) => n.status?.id)).not.toContain(blocked.id);
    await client.v1.accounts.$select(bob.accountId).unblock();
  });

  it('an expired mute hides nothing, before the sweep has deleted it', async () => {
    const client = server.masto(lain.token);
    await client.v1.accounts.$select(carol.accountId).mute({ duration: 60 });
    const post = await server.masto(carol.token).v1.statuses.create({ status: 'a post while muted' });
    const publicIds = async () => (await client.v1.timelines.public.list({ local: true, limit: 40 })).map((s) => s.id);
    expect(await publicIds()).not.toContain(post.id);

    now += 61_000;
    const store = server.social.context.store;
    const rows = store.db.prepare('SELECT COUNT(*) AS n FROM mutes WHERE account_id = ?');
    // Checked in the same tick as the clock moved: the sweep cannot have run in between.
    expect(Number((rows.get(lain.accountId) as { n: bigint }).n)).toBe(1);
    expect(await publicIds()).toContain(post.id);
  });
});
