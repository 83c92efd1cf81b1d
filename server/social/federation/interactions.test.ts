import { beforeAll, describe, expect, it } from 'vitest';
import { eventually, useFollowingPair, type NetworkUser as User } from './testing/test-network.ts';

/*
 * Favourites, boosts and blocks across two Homeports (a.test and b.test in this process, real signed HTTP
 * between them), each side acting through masto.js: Like and Undo(Like), Announce and Undo(Announce) in
 * both directions with counts and notifications, a boost of a third account's post fetched from its
 * origin, and Block ending follows both ways.
 */

let dave: User;

const t = useFollowingPair();

beforeAll(async () => {
  dave = await t.b.createUser('dave');
});

describe('remote statuses live', () => {
  it('a post arriving from another server reaches the streaming API: home and public:remote', async () => {
    const frames: { stream: string; event: string; payload?: string }[] = [];
    const sink = {
      accountId: t.alice.accountId,
      scopes: ['read'],
      send: (channel: { name: string }, event: string, payload?: string) =>
        void frames.push({ stream: channel.name, event, payload }),
    };
    const hub = t.a.social.streaming.hub;
    hub.subscribe(sink, { name: 'user', param: null, key: `user|${t.alice.accountId}` });
    hub.subscribe(sink, { name: 'public:remote', param: null, key: 'public:remote' });
    try {
      const post = await t.bob.client.v1.statuses.create({ status: 'live from b' });
      await eventually(async () => {
        await t.a.social.streaming.idle();
        return frames.filter((f) => f.event === 'update').length >= 2;
      }, 'bob’s post on alice’s streams');
      const updates = frames.filter((f) => f.event === 'update');
      expect(updates.map((f) => f.stream).sort()).toEqual(['public:remote', 'user']);
      expect(updates.every((f) => (JSON.parse(f.payload!) as { uri: string }).uri === post.uri)).toBe(true);
      await t.bob.client.v1.statuses.$select(post.id).remove();
      await eventually(async () => {
        await t.a.social.streaming.idle();
        return frames.filter((f) => f.event === 'delete').length >= 2;
      }, 'the deletion on alice’s streams');
    } finally {
      hub.remove(sink);
    }
  });
});

describe('interactions across servers', () => {
  it('a favourite of a remote post reaches its author as a Like, counted and notified, and is taken back', async () => {
    const post = await t.bob.client.v1.statuses.create({ status: 'like me from afar' });
    const copy = await eventually(
      async () => (await t.alice.client.v1.timelines.home.list()).find((s) => s.uri === post.uri),
      'bob’s post on a',
    );
    await t.alice.client.v1.statuses.$select(copy.id).favourite();
    await eventually(
      async () => (await t.bob.client.v1.statuses.$select(post.id).fetch()).favouritesCount === 1,
      'the like counted on b',
    );
    const notes = await t.bob.client.v1.notifications.list({ types: ['favourite'] });
    expect(notes.map((n) => [n.account?.acct, n.status?.id])).toEqual([['alice@a.test', post.id]]);
    expect((await t.bob.client.v1.statuses.$select(post.id).favouritedBy.list()).map((x) => x.acct)).toEqual([
      'alice@a.test',
    ]);

    await t.alice.client.v1.statuses.$select(copy.id).unfavourite();
    await eventually(
      async () => (await t.bob.client.v1.statuses.$select(post.id).fetch()).favouritesCount === 0,
      'the like undone on b',
    );
    expect(await t.bob.client.v1.notifications.list({ types: ['favourite'] })).toEqual([]);
  });

  it('a boost of a local post by a remote account is counted, notified and undone', async () => {
    const post = await t.alice.client.v1.statuses.create({ status: 'boost me' });
    const copy = await eventually(
      async () => (await t.bob.client.v1.timelines.home.list()).find((s) => s.uri === post.uri),
      'alice’s post on b',
    );
    await t.bob.client.v1.statuses.$select(copy.id).reblog();
    await eventually(
      async () => (await t.alice.client.v1.statuses.$select(post.id).fetch()).reblogsCount === 1,
      'the boost counted on a',
    );
    const notes = await t.alice.client.v1.notifications.list({ types: ['reblog'] });
    expect(notes.map((n) => [n.account?.acct, n.status?.id])).toEqual([['bob@b.test', post.id]]);
    expect((await t.alice.client.v1.statuses.$select(post.id).rebloggedBy.list()).map((x) => x.acct)).toEqual([
      'bob@b.test',
    ]);

    await t.bob.client.v1.statuses.$select(copy.id).unreblog();
    await eventually(
      async () => (await t.alice.client.v1.statuses.$select(post.id).fetch()).reblogsCount === 0,
      'the boost undone on a',
    );
    expect(await t.alice.client.v1.notifications.list({ types: ['reblog'] })).toEqual([]);
  });

  it('a boost of a post alice never saw reaches her home, fetched from its origin', async () => {
    const post = await dave.client.v1.statuses.create({ status: 'dave, whom alice does not follow' });
    const daveOnB = await t.bob.client.v1.statuses.$select(post.id).fetch();
    await t.bob.client.v1.statuses.$select(daveOnB.id).reblog();
    const boost = await eventually(
      async () => (await t.alice.client.v1.timelines.home.list()).find((s) => s.reblog?.uri === post.uri),
      'bob’s boost of dave’s post on a',
    );
    expect(boost.account.acct).toBe('bob@b.test');
    expect(boost.reblog!.account.acct).toBe('dave@b.test');
    expect(boost.reblog!.content).toContain('whom alice does not follow');
  });

  it('a report asked to be forwarded reaches the reported account’s server as a Flag, for its staff', async () => {
    const moderator = await t.a.createUser('harbourmaster');
    t.a.social.context.store.db
      .prepare("UPDATE users SET role = 'moderator' WHERE account_id = ?")
      .run(moderator.accountId);
    const post = await t.alice.client.v1.statuses.create({ status: 'reportable' });
    const copy = await eventually(
      async () => (await t.bob.client.v1.timelines.home.list()).find((s) => s.uri === post.uri),
      'alice’s post on b',
    );
    const report = await t.bob.client.v1.reports.create({
      accountId: t.aliceOnB,
      statusIds: [copy.id],
      comment: 'please look',
      forward: true,
    });
    expect(report.forwarded).toBe(true);
    const note = await eventually(
      async () => (await moderator.client.v1.notifications.list({ types: ['admin.report'] }))[0],
      'the forwarded report on a',
    );
    expect(note.report?.targetAccount.id).toBe(t.alice.accountId);
    expect(note.report?.statusIds).toEqual([post.id]);
    expect(note.report?.comment).toBe('please look');
    // Forwarded in the name of b's instance actor, never of the reporter.
    expect(note.account?.acct).not.toBe('bob@b.test');
  });

  it('a remote block ends follows both ways', async () => {
    await t.bob.client.v1.accounts.$select(t.aliceOnB).block();
    await eventually(async () => {
      const [rel] = await t.alice.client.v1.accounts.relationships.fetch({ id: [t.bobOnA] });
      return !rel.following && !rel.followedBy;
    }, 'the follows between alice and bob ended on a');
    expect(
      (await t.alice.client.v1.accounts.$select(t.alice.accountId).followers.list()).map((x) => x.acct),
    ).not.toContain('bob@b.test');
  });
});
