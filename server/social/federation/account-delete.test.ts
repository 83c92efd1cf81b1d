import { describe, expect, it } from 'vitest';
import { createOf, keyOf, signedHeaders, strangerKey } from './testing/inbox-clients.ts';
import { eventually, useFollowingPair } from './testing/test-network.ts';

/*
 * Deleting an account reaches the other servers: alice on a.test is deleted; a.test signs a Delete of her
 * actor with her key, sends it to every server it knows and then forgets the key. b.test checks the
 * signature with the key it has kept, or, when it has none, takes a.test's 410 Gone for her actor as the
 * proof: alice, her posts and bob's follow of her go.
 */

const t = useFollowingPair();

/**
 * A stranger on `host`, whose server answers 410 Gone to everything, posting to bob on b.test; `asked` counts
 * the requests made to its server.
 */
async function goneSigner(host: string) {
  t.net.addRemote(host, () => new Response('gone', { status: 410 }));
  const key = await strangerKey();
  const post = async () => {
    const body = JSON.stringify(await createOf(`https://${host}/users/zed`, 'https://b.test/users/bob'));
    return fetch('https://b.test/inbox', {
      method: 'POST',
      headers: await signedHeaders('https://b.test/inbox', body, key, `https://${host}/users/zed#main-key`),
      body,
    });
  };
  const asked = () => t.net.log.filter((r) => r.url.startsWith(`https://${host}/`)).length;
  return { post, asked };
}

describe('deleting an account', () => {
  it('removes it and its posts on the servers that knew it, and forgets its key', async () => {
    await t.alice.client.v1.statuses.create({ status: 'a post before leaving' });
    await eventually(
      async () =>
        (await t.bob.client.v1.timelines.home.list()).some((s) => s.content.includes('a post before leaving')),
      'alice’s post at b',
    );

    const mark = t.net.log.length;
    t.a.social.context.accounts.deleteLocal(t.alice.accountId);
    await t.a.social.federation!.idle();
    expect(t.a.social.context.store.accounts.keyPair(t.alice.accountId)!.privateKey).toBeNull();

    await eventually(
      () => t.b.social.context.store.accounts.byId(t.aliceOnB)!.deletedAt !== null,
      'alice deleted at b',
    );
    // b's queue can act on the Delete before the network's log holds the 202 its sender then receives.
    await eventually(
      () =>
        t.net.log
          .slice(mark)
          .some((r) => r.method === 'POST' && r.url.startsWith('https://b.test/') && r.status === 202),
      'the Delete accepted by b',
    );
    expect((await t.bob.client.v1.timelines.home.list()).some((s) => s.content.includes('a post before leaving'))).toBe(
      false,
    );
    expect(t.b.social.context.store.relationships.follow(t.bob.accountId, t.aliceOnB)).toBeNull();
    await expect(t.bob.client.v1.accounts.$select(t.aliceOnB).fetch()).rejects.toThrow();
  });

  it('takes the 410 Gone of the account’s own server as proof when the key is no longer known', async () => {
    const dave = await t.a.createUser('dave');
    const daveOnB = (await t.bob.client.v1.accounts.lookup({ acct: 'dave@a.test' })).id;
    const daveKey = await keyOf(t.a, 'dave');
    // b.test's cached documents and keys have expired.
    t.b.social.context.store.db.prepare('DELETE FROM federation_kv').run();
    const mark = t.net.log.length;
    t.a.social.context.accounts.deleteLocal(dave.accountId);
    await t.a.social.federation!.idle();
    await eventually(() => t.b.social.context.store.accounts.byId(daveOnB)!.deletedAt !== null, 'dave deleted at b');
    expect(
      t.net.log
        .slice(mark)
        .some((r) => r.method === 'GET' && r.url.startsWith('https://a.test/users/dave') && r.status === 410),
    ).toBe(true);
    // Gone: what its key signs next is refused at once, and its key is not asked for again.
    const after = t.net.log.length;
    const create = JSON.stringify(await createOf('https://a.test/users/dave', 'https://b.test/users/bob'));
    const res = await fetch('https://b.test/inbox', {
      method: 'POST',
      headers: await signedHeaders('https://b.test/inbox', create, daveKey, 'https://a.test/users/dave#main-key'),
      body: create,
    });
    expect(res.status).toBe(401);
    expect(await res.text()).toContain('gone');
    expect(t.net.log.slice(after).some((r) => r.method === 'GET')).toBe(false);
  });

  it('refuses a later activity from the deleted account at once, even signed with a key still held', async () => {
    const erin = await t.a.createUser('erin');
    // erin's Follow makes b fetch and keep her key.
    await erin.client.v1.accounts.$select(t.bobOnA).follow();
    const erinOnB = await eventually(
      () => t.b.social.context.store.accounts.byHandle('erin', 'a.test')?.id,
      'erin at b',
    );
    await eventually(() => t.b.social.context.store.relationships.follow(erinOnB, t.bob.accountId), 'erin follows bob');
    const key = await keyOf(t.a, 'erin');
    t.a.social.context.accounts.deleteLocal(erin.accountId);
    await t.a.social.federation!.idle();
    await eventually(
      () => t.b.social.context.store.relationships.follow(erinOnB, t.bob.accountId) === null,
      'erin gone',
    );

    const keyId = 'https://a.test/users/erin#main-key';
    const mark = t.net.log.length;
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
      await t.b.social.federation!.idle();
      expect(t.b.social.context.store.federation.statusByUri(create.object.id)).toBeNull();
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
    expect(t.net.log.slice(mark).some((r) => r.method === 'GET' && r.url.startsWith('https://a.test/users/erin'))).toBe(
      false,
    );
    expect(t.b.social.context.store.accounts.byUri('https://a.test/users/erin')).toBeNull();
    expect(t.b.social.context.store.accounts.byHandle('erin', 'a.test')).toBeNull();
    await expect(t.bob.client.v1.accounts.lookup({ acct: 'erin@a.test' })).rejects.toThrow();
    await expect(t.bob.client.v1.accounts.$select(erinOnB).fetch()).rejects.toThrow();
  });

  it('remembers a key its server answers 410 Gone for: what it signs next is refused without asking again', async () => {
    const { post, asked } = await goneSigner('gone.test');
    expect((await post()).status).toBe(401);
    const fetched = asked();
    expect(fetched).toBeGreaterThan(0);
    const again = await post();
    expect(again.status).toBe(401);
    expect(await again.text()).toContain('gone');
    expect(asked()).toBe(fetched);
  });

  it('keeps what it knows to be gone across a restart: refused again without asking its server', async () => {
    const { post, asked } = await goneSigner('vanished.test');
    expect((await post()).status).toBe(401);
    const fetched = asked();
    expect(fetched).toBeGreaterThan(0);

    await t.b.close({ keepData: true });
    t.b = await t.net.add('b.test', { dataDir: t.b.dir });
    const again = await post();
    expect(again.status).toBe(401);
    expect(await again.text()).toContain('gone');
    expect(asked()).toBe(fetched);
  });

  it('refuses an unsigned Delete of an account that still exists', async () => {
    const carol = await t.a.createUser('carol');
    const carolOnB = (await t.bob.client.v1.accounts.lookup({ acct: 'carol@a.test' })).id;
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
    expect(t.b.social.context.store.accounts.byId(carolOnB)!.deletedAt).toBeNull();
    void carol;
  });
});
