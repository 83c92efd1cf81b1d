import { beforeAll, describe, expect, it } from 'vitest';
import { apiCall as call, eventually, useServers, type NetworkUser as User } from './testing/test-network.ts';

/*
 * Moving an account between servers, as Mastodon does it: alice on a.test moves to newalice on b.test,
 * which names her as an alias first. carol on c.test followed alice: afterwards she follows newalice, not
 * alice, and her private note moved along; erin's mute of alice covers newalice too.
 */

const hosts = useServers({ a: {}, b: {}, c: {} });
let alice: User;
let newalice: User;
let carol: User;
let erin: User;

beforeAll(async () => {
  alice = await hosts.a.createUser('alice');
  newalice = await hosts.b.createUser('newalice');
  carol = await hosts.c.createUser('carol');
  erin = await hosts.c.createUser('erin');
});

describe('moving an account to another server', () => {
  it('is refused until the new account names the old one as an alias', async () => {
    const refused = await call(hosts.a, alice, 'POST', '/api/v1/homeport/account_migration', {
      acct: 'newalice@b.test',
    });
    expect(refused.status).toBe(422);
    expect(refused.json.details.acct[0].error).toBe('ERR_INVALID');
    expect(hosts.a.social.context.store.accounts.byId(alice.accountId)!.movedToAccountId).toBeNull();
  });

  it('moves followers, notes and mutes to the new account and marks the old one moved', async () => {
    const aliceOnC = (await carol.client.v1.accounts.lookup({ acct: 'alice@a.test' })).id;
    await carol.client.v1.accounts.$select(aliceOnC).follow();
    await carol.client.v1.accounts.$select(aliceOnC).note.create({ comment: 'met at the fediverse meetup' });
    await erin.client.v1.accounts.$select((await erin.client.v1.accounts.lookup({ acct: 'alice@a.test' })).id).mute();
    await eventually(
      async () => (await carol.client.v1.accounts.relationships.fetch({ id: [aliceOnC] }))[0].following,
      'carol follows alice',
    );

    const aliased = await call(hosts.b, newalice, 'POST', '/api/v1/homeport/account_migration/aliases', {
      acct: 'alice@a.test',
    });
    expect(aliased.status).toBe(200);
    expect(aliased.json.aliases).toEqual([{ uri: 'https://a.test/users/alice' }]);
    const moved = await call(hosts.a, alice, 'POST', '/api/v1/homeport/account_migration', { acct: 'newalice@b.test' });
    expect(moved.status).toBe(200);
    expect(moved.json.moved.acct).toBe('newalice@b.test');

    // c.test got the Move, checked newalice's aliases and carried carol over.
    const newaliceOnC = await eventually(
      () => hosts.c.social.context.store.accounts.byHandle('newalice', 'b.test')?.id,
      'newalice known at c',
    );
    await eventually(
      async () => (await carol.client.v1.accounts.relationships.fetch({ id: [newaliceOnC] }))[0].following,
      'carol follows newalice',
    );
    const [toOld, toNew] = await carol.client.v1.accounts.relationships.fetch({ id: [aliceOnC, newaliceOnC] });
    expect(toOld.following).toBe(false);
    expect(toNew.note).toBe('met at the fediverse meetup');
    expect((await erin.client.v1.accounts.relationships.fetch({ id: [newaliceOnC] }))[0].muting).toBe(true);
    const oldAsSeen = await carol.client.v1.accounts.$select(aliceOnC).fetch();
    expect(oldAsSeen.moved?.acct).toBe('newalice@b.test');
    // And b.test saw carol's new follow.
    await eventually(
      async () =>
        (await newalice.client.v1.accounts.$select(newalice.accountId).followers.list()).some(
          (f) => f.acct === 'carol@c.test',
        ),
      'carol among newalice’s followers',
    );
  });

  it('shows the move in the old account’s actor document, and posts of the new account reach the follower', async () => {
    const res = await fetch(`${hosts.a.url}/users/alice`, { headers: { accept: 'application/activity+json' } });
    const actor = (await res.json()) as { movedTo?: string };
    expect(actor.movedTo).toBe('https://b.test/users/newalice');
    await newalice.client.v1.statuses.create({ status: 'hello from my new home' });
    await eventually(
      async () =>
        (await carol.client.v1.timelines.home.list()).some((s) => s.content.includes('hello from my new home')),
      'newalice’s post in carol’s home',
    );
  });

  it('ignores a Move whose new account does not name the old one', async () => {
    const bob = await hosts.a.createUser('bob');
    await hosts.b.createUser('mallory');
    const bobOnC = (await carol.client.v1.accounts.lookup({ acct: 'bob@a.test' })).id;
    await carol.client.v1.accounts.$select(bobOnC).follow();
    await eventually(
      async () => (await carol.client.v1.accounts.relationships.fetch({ id: [bobOnC] }))[0].following,
      'carol follows bob',
    );
    // Forced on a.test's side (its own check would refuse): c.test must check again and refuse.
    const ctx = hosts.a.social.context;
    const malloryOnA = (await bob.client.v1.accounts.lookup({ acct: 'mallory@b.test' })).id;
    const mark = hosts.net.log.length;
    ctx.store.transaction(() => {
      ctx.store.accounts.setMovedTo(bob.accountId, malloryOnA);
      ctx.events.emit('account.moved', { accountId: bob.accountId, targetAccountId: malloryOnA });
    });
    await hosts.a.social.federation!.idle();
    // c.test received the Move and fetched mallory afresh (a.test knew her already before the mark).
    await eventually(
      () =>
        hosts.net.log
          .slice(mark)
          .some((r) => r.method === 'POST' && r.url.startsWith('https://c.test/') && r.status === 202),
      'the Move delivered to c',
    );
    await eventually(
      () => hosts.net.log.slice(mark).some((r) => r.method === 'GET' && r.url === 'https://b.test/users/mallory'),
      'c.test fetched mallory',
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(hosts.c.social.context.store.accounts.byHandle('bob', 'a.test')!.movedToAccountId).toBeNull();
    expect((await carol.client.v1.accounts.relationships.fetch({ id: [bobOnC] }))[0].following).toBe(true);
  });
});
