import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSocialTestServer, type SocialTestServer, type TestUser } from '../../testing/harness.ts';

/*
 * Follow suggestions over a hand-built graph: staff picks, past interactions weighted by kind, friends of
 * friends by how many friends follow them, and what is never suggested (locked, muted, blocked, followed,
 * dismissed, oneself).
 */

let server: SocialTestServer;
const u: Record<string, TestUser> = {};

beforeAll(async () => {
  server = await startSocialTestServer();
  for (const name of [
    'me',
    'a',
    'b',
    'popular',
    'single',
    'faved',
    'boosted',
    'locked',
    'muted',
    'blocker',
    'pick',
    'newcomer',
    'hidden',
  ]) {
    u[name] = await server.createUser(name);
    // Only accounts that chose to be discoverable are suggested.
    if (name !== 'hidden') await server.masto(u[name].token).v1.accounts.updateCredentials({ discoverable: true });
  }
  const follow = (who: string, whom: string) =>
    server.masto(u[who].token).v1.accounts.$select(u[whom].accountId).follow();
  await follow('me', 'a');
  await follow('me', 'b');
  for (const friend of ['a', 'b']) {
    await follow(friend, 'popular');
    await follow(friend, 'locked');
    await follow(friend, 'muted');
    await follow(friend, 'blocker');
    await follow(friend, 'hidden');
  }
  await follow('a', 'single');
  await server.masto(u.locked.token).v1.accounts.updateCredentials({ locked: true });
  await server.masto(u.me.token).v1.accounts.$select(u.muted.accountId).mute();
  await server.masto(u.blocker.token).v1.accounts.$select(u.me.accountId).block();
  const faved = await server.masto(u.faved.token).v1.statuses.create({ status: 'worth a star' });
  const boosted = await server.masto(u.boosted.token).v1.statuses.create({ status: 'worth a boost' });
  await server.masto(u.me.token).v1.statuses.$select(faved.id).favourite();
  await server.masto(u.me.token).v1.statuses.$select(boosted.id).reblog();
  server.admin.setSetting('featured_accounts', 'pick');
});

afterAll(async () => {
  await server?.close();
});

async function suggestions(token: string) {
  const res = await server.fetch(`${server.url}/api/v2/suggestions?limit=20`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as { source: string; sources: string[]; account: { id: string; username: string } }[];
}

describe('follow suggestions', () => {
  it('ranks staff picks, past interactions and friends of friends, and leaves out what must not be suggested', async () => {
    const found = await suggestions(u.me.token);
    const names = found.map((s) => s.account.username);
    expect(names.slice(0, 5)).toEqual(['pick', 'boosted', 'faved', 'popular', 'single']);
    expect(found[0]).toMatchObject({ source: 'staff', sources: ['featured'] });
    expect(found[1]).toMatchObject({ source: 'past_interactions', sources: ['most_interactions'] });
    expect(found[3].sources).toContain('friends_of_friends');
    for (const never of ['me', 'a', 'b', 'locked', 'muted', 'blocker', 'hidden']) expect(names).not.toContain(never);
  });

  it('starts a user who follows no one from staff picks and the most followed accounts', async () => {
    const names = (await suggestions(u.newcomer.token)).map((s) => s.account.username);
    expect(names[0]).toBe('pick');
    expect(names).toContain('popular');
    expect(names.indexOf('popular')).toBeLessThan(names.indexOf('single'));
  });

  it('forgets a dismissed suggestion, and answers the deprecated v1 with accounts', async () => {
    const res = await server.fetch(`${server.url}/api/v1/suggestions/${u.popular.accountId}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${u.me.token}` },
    });
    expect(res.status).toBe(200);
    expect((await suggestions(u.me.token)).map((s) => s.account.username)).not.toContain('popular');
    const v1 = await server.masto(u.me.token).v1.suggestions.list();
    expect(v1.map((a) => a.username)).toContain('single');
    expect(v1.map((a) => a.username)).not.toContain('popular');
  });
});
