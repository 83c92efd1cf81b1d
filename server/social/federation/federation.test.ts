import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestNetwork, eventually, type TestInstance, type TestNetwork } from './testing/test-network.ts';

/*
 * Two Homeport instances (https://a.test and https://b.test) federating inside this process: every request
 * between them is real HTTP handled by the other server (WebFinger, actors, signed inbox POSTs). The users
 * act only through the Mastodon API with masto.js.
 */

let net: TestNetwork;
let a: TestInstance;
let b: TestInstance;
let alice: Awaited<ReturnType<TestInstance['createUser']>>;
let bob: Awaited<ReturnType<TestInstance['createUser']>>;
let carol: Awaited<ReturnType<TestInstance['createUser']>>;

beforeAll(async () => {
  net = createTestNetwork();
  a = await net.add('a.test');
  b = await net.add('b.test');
  alice = await a.createUser('alice');
  carol = await a.createUser('carol', { locked: true });
  bob = await b.createUser('bob');
});
afterAll(async () => {
  await net?.close();
});

describe('federation between two Homeports', () => {
  it('finds a remote account through WebFinger, follows it, and its posts reach the home timeline', async () => {
    const remoteBob = await alice.client.v1.accounts.lookup({ acct: 'bob@b.test' });
    expect(remoteBob.acct).toBe('bob@b.test');
    expect(remoteBob.url).toBe('https://b.test/@bob');

    const requested = await alice.client.v1.accounts.$select(remoteBob.id).follow();
    expect(requested.requested || requested.following).toBe(true);
    // b accepts (bob is not locked): alice follows bob once the Accept arrives.
    await eventually(
      async () => (await alice.client.v1.accounts.relationships.fetch({ id: [remoteBob.id] }))[0].following,
      'alice follows bob',
    );
    const bobFollowers = await bob.client.v1.accounts.$select(bob.accountId).followers.list();
    expect(bobFollowers.map((f) => f.acct)).toEqual(['alice@a.test']);
    const notes = await bob.client.v1.notifications.list();
    expect(notes.map((n) => [n.type, n.account?.acct])).toContainEqual(['follow', 'alice@a.test']);

    const post = await bob.client.v1.statuses.create({
      status: 'Hello from #homeport b',
      spoilerText: 'a warning',
      language: 'en',
      visibility: 'public',
    });
    const arrived = await eventually(
      async () => (await alice.client.v1.timelines.home.list()).find((s) => s.uri === post.uri),
      'bob’s post in alice’s home timeline',
    );
    expect(arrived.account.acct).toBe('bob@b.test');
    expect(arrived.content).toContain('Hello from');
    expect(arrived.spoilerText).toBe('a warning');
    expect(arrived.sensitive).toBe(true);
    expect(arrived.language).toBe('en');
    expect(arrived.tags.map((t) => t.name)).toEqual(['homeport']);
    expect(arrived.visibility).toBe('public');
    const federated = await alice.client.v1.timelines.public.list({ remote: true });
    expect(federated.map((s) => s.uri)).toContain(post.uri);
  });

  it('follows a locked account with a request the owner authorizes through the API', async () => {
    const remoteCarol = (await bob.client.v1.accounts.search.list({ q: '@carol@a.test', resolve: true }))[0];
    expect(remoteCarol.locked).toBe(true);
    await bob.client.v1.accounts.$select(remoteCarol.id).follow();
    const request = await eventually(
      async () => (await carol.client.v1.followRequests.list())[0],
      'follow request at carol',
    );
    expect(request.acct).toBe('bob@b.test');
    expect((await carol.client.v1.notifications.list()).map((n) => n.type)).toContain('follow_request');
    expect((await bob.client.v1.accounts.relationships.fetch({ id: [remoteCarol.id] }))[0].requested).toBe(true);

    await carol.client.v1.followRequests.$select(request.id).authorize();
    await eventually(
      async () => (await bob.client.v1.accounts.relationships.fetch({ id: [remoteCarol.id] }))[0].following,
      'bob follows carol',
    );

    // Carol's followers-only post reaches bob; a mention reaches him as a notification.
    const post = await carol.client.v1.statuses.create({
      status: 'only for followers, @bob@b.test',
      visibility: 'private',
    });
    const arrived = await eventually(
      async () => (await bob.client.v1.timelines.home.list()).find((s) => s.uri === post.uri),
      'carol’s private post at bob',
    );
    expect(arrived.visibility).toBe('private');
    const mention = await eventually(
      async () =>
        (await bob.client.v1.notifications.list({ types: ['mention'] })).find((n) => n.status?.uri === post.uri),
      'mention notification',
    );
    expect(mention.account?.acct).toBe('carol@a.test');
  });

  it('threads replies across servers, and deletes reach the other side', async () => {
    const post = await alice.client.v1.statuses.create({ status: 'Question for @bob@b.test', visibility: 'public' });
    const atBob = await eventually(
      async () =>
        (await bob.client.v1.notifications.list({ types: ['mention'] })).find((n) => n.status?.uri === post.uri)
          ?.status,
      'alice’s mention at bob',
    );
    const reply = await bob.client.v1.statuses.create({
      status: '@alice@a.test an answer',
      inReplyToId: atBob.id,
      visibility: 'public',
    });
    const context = await eventually(async () => {
      const c = await alice.client.v1.statuses.$select(post.id).context.fetch();
      return c.descendants.find((s) => s.uri === reply.uri) ? c : null;
    }, 'bob’s reply in the thread at a');
    expect(context.descendants[0].inReplyToId).toBe(post.id);
    expect((await alice.client.v1.notifications.list({ types: ['mention'] })).map((n) => n.status?.uri)).toContain(
      reply.uri,
    );

    await bob.client.v1.statuses.$select(reply.id).remove();
    await eventually(
      async () => (await alice.client.v1.statuses.$select(post.id).context.fetch()).descendants.length === 0,
      'reply deleted at a',
    );
  });

  it('mentions someone never seen before: the account is looked up while posting and notified', async () => {
    const erin = await b.createUser('erin');
    const post = await alice.client.v1.statuses.create({ status: 'Welcome @erin@b.test!', visibility: 'direct' });
    expect(post.mentions.map((m) => m.acct)).toEqual(['erin@b.test']);
    // A private mention from someone erin does not follow waits in a notification request (Mastodon 4.3's default policy).
    const request = await eventually(
      async () => (await erin.client.v1.notifications.requests.list()).find((r) => r.account.acct === 'alice@a.test'),
      'erin’s notification request',
    );
    expect(request.lastStatus?.uri).toBe(post.uri);
    expect(await erin.client.v1.notifications.list({ types: ['mention'] })).toEqual([]);
    await erin.client.v1.notifications.requests.$select(request.id).accept();
    const mention = (await erin.client.v1.notifications.list({ types: ['mention'] })).find(
      (n) => n.status?.uri === post.uri,
    );
    expect(mention?.status?.visibility).toBe('direct');
  });

  it('direct messages from the other server reach the recipient’s conversations, and the reply joins the same one', async () => {
    const dm = await bob.client.v1.statuses.create({ status: '@alice@a.test just between us', visibility: 'direct' });
    const atA = await eventually(
      async () => (await alice.client.v1.conversations.list()).find((c) => c.lastStatus?.uri === dm.uri),
      'bob’s direct message in alice’s conversations',
    );
    expect(atA.unread).toBe(true);
    expect(atA.accounts.map((x) => x.acct)).toEqual(['bob@b.test']);
    expect(atA.lastStatus?.visibility).toBe('direct');

    const reply = await alice.client.v1.statuses.create({
      status: '@bob@b.test agreed',
      visibility: 'direct',
      inReplyToId: atA.lastStatus!.id,
    });
    const mine = (await alice.client.v1.conversations.list()).filter((c) =>
      c.accounts.some((x) => x.acct === 'bob@b.test'),
    );
    expect(mine.map((c) => [c.id, c.lastStatus?.id, c.unread])).toEqual([[atA.id, reply.id, false]]);
    const atB = await eventually(
      async () => (await bob.client.v1.conversations.list()).find((c) => c.lastStatus?.uri === reply.uri),
      'alice’s reply in bob’s conversation',
    );
    expect(atB.accounts.map((x) => x.acct)).toEqual(['alice@a.test']);
    expect(atB.unread).toBe(true);
    expect((await bob.client.v1.conversations.list()).map((c) => c.id)).toEqual([atB.id]);
  });

  it('unfollowing reaches the other server', async () => {
    const remoteBob = await alice.client.v1.accounts.lookup({ acct: 'bob@b.test' });
    await alice.client.v1.accounts.$select(remoteBob.id).unfollow();
    await eventually(
      async () => (await bob.client.v1.accounts.$select(bob.accountId).followers.list()).length === 0,
      'alice no longer follows bob at b',
    );
  });

  it('removing a follower from another server tells it with a Reject: the follow ends there too', async () => {
    const dora = await b.createUser('dora');
    const aliceOnB = (await dora.client.v1.accounts.lookup({ acct: 'alice@a.test' })).id;
    await dora.client.v1.accounts.$select(aliceOnB).follow();
    await eventually(
      async () => (await dora.client.v1.accounts.relationships.fetch({ id: [aliceOnB] }))[0].following,
      'dora follows alice',
    );
    const doraOnA = (await alice.client.v1.accounts.lookup({ acct: 'dora@b.test' })).id;
    await alice.client.v1.accounts.$select(doraOnA).removeFromFollowers();
    expect((await alice.client.v1.accounts.relationships.fetch({ id: [doraOnA] }))[0].followedBy).toBe(false);
    await eventually(
      async () => !(await dora.client.v1.accounts.relationships.fetch({ id: [aliceOnB] }))[0].following,
      'dora no longer follows alice on b',
    );
  });
});
