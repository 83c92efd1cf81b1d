import { beforeAll, describe, expect, it } from 'vitest';
import {
  apiCall as call,
  eventually,
  type TestInstance,
  useServers,
  type NetworkUser as User,
} from './testing/test-network.ts';

/*
 * The CSV exports and imports Mastodon users move with: alice's follows, lists, blocks, mutes, blocked
 * domains and bookmarks on a.test, exported and imported into a new account on c.test, come out the same.
 */

const hosts = useServers({ a: {}, b: {}, c: {} });
let alice: User;
let bob: User;
let newAlice: User;

/** Polls an import until it has finished, and returns it. */
async function finished(instance: TestInstance, user: User, id: string) {
  return eventually(async () => {
    const res = await call(instance, user, 'GET', `/api/v1/homeport/imports/${id}`);
    return res.json.state === 'finished' ? res.json : null;
  }, `import ${id} finished`);
}

beforeAll(async () => {
  alice = await hosts.a.createUser('alice');
  bob = await hosts.b.createUser('bob');
  await hosts.a.createUser('carol');
  await hosts.b.createUser('mallory');
  newAlice = await hosts.c.createUser('alice');
});

describe('CSV exports and imports', () => {
  it('moves follows, lists, blocks, mutes, blocked domains and bookmarks to another server', async () => {
    const bobOnA = (await alice.client.v1.accounts.lookup({ acct: 'bob@b.test' })).id;
    const carol = await alice.client.v1.accounts.lookup({ acct: 'carol' });
    const malloryOnA = (await alice.client.v1.accounts.lookup({ acct: 'mallory@b.test' })).id;
    await alice.client.v1.accounts.$select(bobOnA).follow({ reblogs: false });
    await alice.client.v1.accounts.$select(carol.id).follow();
    await eventually(
      async () => (await alice.client.v1.accounts.relationships.fetch({ id: [bobOnA] }))[0].following,
      'alice follows bob',
    );
    await alice.client.v1.accounts.$select(malloryOnA).block();
    await alice.client.v1.accounts.$select(carol.id).mute({ notifications: false });
    await alice.client.v1.domainBlocks.create({ domain: 'spam.example' });
    const list = await alice.client.v1.lists.create({ title: 'Friends' });
    await alice.client.v1.lists.$select(list.id).accounts.create({ accountIds: [bobOnA] });
    await bob.client.v1.statuses.create({ status: 'worth keeping' });
    const kept = await eventually(
      async () => (await alice.client.v1.timelines.home.list()).find((s) => s.content.includes('worth keeping')),
      'bob’s post at a',
    );
    await alice.client.v1.statuses.$select(kept.id).bookmark();

    const files: Record<string, string> = {};
    for (const kind of [
      'following_accounts',
      'lists',
      'blocked_accounts',
      'muted_accounts',
      'blocked_domains',
      'bookmarks',
    ]) {
      const res = await call(hosts.a, alice, 'GET', `/api/v1/homeport/exports/${kind}.csv`);
      expect(res.status).toBe(200);
      files[kind] = res.text;
    }
    expect(files.following_accounts.split('\n')[0]).toBe('Account address,Show boosts,Notify on new posts,Languages');
    expect(files.following_accounts).toContain('bob@b.test,false,false,');
    expect(files.blocked_accounts.trim()).toBe('mallory@b.test');
    expect(files.bookmarks.trim()).toBe(kept.uri);

    // Each import is answered at once (202) and worked off in the background; polled until finished.
    for (const [kind, data] of Object.entries(files)) {
      const rows = kind === 'following_accounts' ? 2 : 1;
      const res = await call(hosts.c, newAlice, 'POST', '/api/v1/homeport/imports', { type: kind, data });
      expect(res.status, `${kind}: ${res.text}`).toBe(202);
      expect(res.json).toMatchObject({ type: kind, mode: 'merge', total_items: rows });
      expect(['scheduled', 'in_progress', 'finished']).toContain(res.json.state);
      const done = await finished(hosts.c, newAlice, res.json.id);
      expect(done, kind).toMatchObject({ processed_items: rows, imported_items: rows, failed_items: 0, failures: [] });
    }

    const me = newAlice.client;
    const following = await eventually(async () => {
      const list = await me.v1.accounts.$select(newAlice.accountId).following.list();
      return list.length === 2 ? list : null;
    }, 'both follows at c');
    expect(following.map((f) => f.acct).sort()).toEqual(['bob@b.test', 'carol@a.test']);
    const bobOnC = following.find((f) => f.acct === 'bob@b.test')!.id;
    expect((await me.v1.accounts.relationships.fetch({ id: [bobOnC] }))[0].showingReblogs).toBe(false);
    expect((await me.v1.blocks.list()).map((x) => x.acct)).toEqual(['mallory@b.test']);
    expect((await me.v1.mutes.list()).map((x) => x.acct)).toEqual(['carol@a.test']);
    expect(await me.v1.domainBlocks.list()).toEqual(['spam.example']);
    const [friends] = await me.v1.lists.list();
    expect(friends.title).toBe('Friends');
    expect((await me.v1.lists.$select(friends.id).accounts.list()).map((x) => x.acct)).toEqual(['bob@b.test']);
    expect((await me.v1.bookmarks.list()).map((s) => s.uri)).toEqual([kept.uri]);
  });
});
