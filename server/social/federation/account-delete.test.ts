import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOf, keyOf, signedHeaders, strangerKey } from './testing/inbox-clients.ts';
import {
  eventually,
  followingPair,
  type TestInstance,
  type TestNetwork,
  type NetworkUser as User,
} from './testing/test-network.ts';

/*
 * Deleting an account reaches the other servers: alice on a.test is deleted; a.test signs a Delete of her
 * actor with her key, sends it to every server it knows and then forgets the key. b.test checks the
 * signature with the key it has kept, or, when it has none, takes a.test's 410 Gone for her actor as the
 * proof: alice, her posts and bob's follow of her go.
 */

let net: TestNetwork;
let a: TestInstance;
let b: TestInstance;
let alice: User;
let bob: User;
let aliceOnB: string;
let bobOnA: string;

beforeAll(async () => {
  ({ net, a, b, alice, bob, aliceOnB, bobOnA } = await followingPair());
});

afterAll(async () => {
  await net?.close();
});

describe('deleting an account', () => {
  it('removes it and its posts on the servers that knew it, and forgets its key', async () => {
    await alice.client.v1.statuses.create({ status: 'a post before leaving' });
    await eventually(
      async () => (await bob.client.v1.timelines.home.list()).some((s) => s.content.includes('a post before leaving')),
      'alice’s post at b',
    );

    const mark = net.log.length;
    a.social.context.accounts.deleteLocal(alice.accountId);
    await a.social.federation!.idle();
    expect(a.social.context.store.accounts.keyPair(alice.accountId)!.privateKey).toBeNull();

    await eventually(() => b.social.context.store.accounts.byId(aliceOnB)!.deletedAt !== null, 'alice deleted at b');
    // b's queue can act on the Delete before the network's log holds the 202 its sender then receives.
    await eventually(
      () =>
        net.log.slice(mark).some((r) => r.method === 'POST' && r.url.startsWith('https://b.test/') && r.status === 202),
      'the Delete accepted by b',
    );
    expect((await bob.client.v1.timelines.home.list()).some((s) => s.content.includes('a post before leaving'))).toBe(
      false,
    );
    expect(b.social.context.store.relationships.follow(bob.accountId, aliceOnB)).toBeNull();
    await expect(bob.client.v1.accounts.$select(aliceOnB).fetch()).rejects.toThrow();
  });

  it('takes the 410 Gone of the account’s own server as proof when the key is no longer known', async () => {
    const dave = await a.createUser('dave');
    const daveOnB = (await bob.client.v1.accounts.lookup({ acct: 'dave@a.test' })).id;
    const daveKey = await keyOf(a, 'dave');
    // b.test's cached documents and keys have expired.
    b.social.context.store.db.prepare('DELETE FROM federation_kv').run();
    const mark = net.log.length;
    a.social.context.accounts.deleteLocal(dave.accountId);
    await a.social.federation!.idle();
    await eventually(() => b.social.context.store.accounts.byId(daveOnB)!.deletedAt !== null, 'dave deleted at b');
    expect(
      net.log
        .slice(mark)
        .some((r) => r.method === 'GET' && r.url.startsWith('https://a.test/users/dave') && r.status === 410),
    ).toBe(true);
    // Gone: what its key signs next is refused at once, and its key is not asked for again.
    const after = net.log.length;
    const create = JSON.stringify(await createOf('https://a.test/users/dave', 'https://b.test/users/bob'));
    const res = await fetch('https://b.test/inbox', {
      method: 'POST',
      headers: await signedHeaders('https://b.test/inbox', create, daveKey, 'https://a.test/users/dave#main-key'),
      body: create,
    });
    expect(res.status).toBe(401);
    expect(await res.text()).toContain('gone');
    expect(net.log.slice(after).some((r) => r.method === 'GET')).toBe(false);
  });

  it('refuses a later activity from the deleted account at once, even signed with a key still held', async () => {
    const erin = await a.createUser('erin');
    // erin's Follow makes b fetch and keep her key.
    await erin.client.v1.accounts.$select(bobOnA).follow();
    const erinOnB = await eventually(() => b.social.context.store.accounts.byHandle('erin', 'a.test')?.id, 'erin at b');
    await eventually(() => b.social.context.store.relationships.follow(erinOnB, bob.accountId), 'erin follows bob');
    const key = await keyOf(a, 'erin');
    a.social.context.accounts.deleteLocal(erin.accountId);
    await a.social.federation!.idle();
    await eventually(() => b.social.context.store.relationships.follow(erinOnB, bob.accountId) === null, 'erin gone');

    const keyId = 'https://a.test/users/erin#main-key';
    const mark = net.log.length;
    // As Mastodon, which no longer has the account: refused (401), and the gone actor is not fetched per activity.
    for (let i = 0; i < 2; i++) {
      const create = await createOf('https://a.test/users/erin', 'https://b.test/users/bob');
      const body = JSON.stringify(create);
      const res = await fetch('https://b.test/inbox', {
        method: 'POST',
        headers: await signedHeaders('https://b.test/inbox', body, key, keyId),
        body,
      });
      expect(res.status).toBe(401);
      expect(await res.text()).toContain('gone');
      await b.social.federation!.idle();
      expect(b.social.context.store.federation.statusByUri(create.object.id)).toBeNull();
    }
    // Its Delete sent again is taken (202) and changes nothing.
    const again = JSON.stringify({
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: 'https://a.test/users/erin#delete-again',
      type: 'Delete',
      actor: 'https://a.test/users/erin',
      object: 'https://a.test/users/erin',
      to: ['https://www.w3.org/ns/activitystreams#Public'],
    });
    const res = await fetch('https://b.test/inbox', {
      method: 'POST',
      headers: await signedHeaders('https://b.test/inbox', again, key, keyId),
      body: again,
    });
    expect(res.status).toBe(202);
    expect(net.log.slice(mark).some((r) => r.method === 'GET' && r.url.startsWith('https://a.test/users/erin'))).toBe(
      false,
    );
    expect(b.social.context.store.accounts.byUri('https://a.test/users/erin')).toBeNull();
    expect(b.social.context.store.accounts.byHandle('erin', 'a.test')).toBeNull();
    await expect(bob.client.v1.accounts.lookup({ acct: 'erin@a.test' })).rejects.toThrow();
    await expect(bob.client.v1.accounts.$select(erinOnB).fetch()).rejects.toThrow();
  });

  it('remembers a key its server answers 410 Gone for: what it signs next is refused without asking again', async () => {
    net.addRemote('gone.test', () => new Response('gone', { status: 410 }));
    const key = await strangerKey();
    const keyId = 'https://gone.test/users/zed#main-key';
    const post = async () => {
      const body = JSON.stringify(await createOf('https://gone.test/users/zed', 'https://b.test/users/bob'));
      return fetch('https://b.test/inbox', {
        method: 'POST',
        headers: await signedHeaders('https://b.test/inbox', body, key, keyId),
        body,
      });
    };
    const asked = () => net.log.filter((r) => r.url.startsWith('https://gone.test/')).length;
    expect((await post()).status).toBe(401);
    const fetched = asked();
    expect(fetched).toBeGreaterThan(0);
    const again = await post();
    expect(again.status).toBe(401);
    expect(await again.text()).toContain('gone');
    expect(asked()).toBe(fetched);
  });

  it('refuses an unsigned Delete of an account that still exists', async () => {
    const carol = await a.createUser('carol');
    const carolOnB = (await bob.client.v1.accounts.lookup({ acct: 'carol@a.test' })).id;
    const forged = {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: 'https://a.test/users/carol#delete',
      type: 'Delete',
      actor: 'https://a.test/users/carol',
      object: 'https://a.test/users/carol',
      to: ['https://www.w3.org/ns/activitystreams#Public'],
    };
    const res = await fetch('https://b.test/inbox', {
      method: 'POST',
      headers: { 'content-type': 'application/activity+json' },
      body: JSON.stringify(forged),
    });
    expect(res.status).toBe(401);
    expect(b.social.context.store.accounts.byId(carolOnB)!.deletedAt).toBeNull();
    void carol;
  });
});
