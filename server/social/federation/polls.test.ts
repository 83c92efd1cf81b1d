import { describe, expect, it } from 'vitest';
import { eventually, useFollowingPair } from './testing/test-network.ts';

/*
 * Polls across servers, as Mastodon does them: alice's poll reaches b.test as a Question with its options;
 * bob's vote goes back as a Note named after the option; a.test counts it and sends the Question again
 * (Update) with the new counts, which b.test takes without calling the post edited.
 */

const t = useFollowingPair();

const tally = (poll: { options: { title: string; votesCount?: number | null }[] }) =>
  poll.options.map((o) => `${o.title}:${o.votesCount}`).join(' ');

describe('polls across servers', () => {
  it('votes travel to the poll’s server and the counts come back', async () => {
    const posted = await t.alice.client.v1.statuses.create({
      status: 'what do you drink?',
      poll: { options: ['tea', 'coffee', 'water'], expiresIn: 3600 },
    });
    const seen = await eventually(
      async () => (await t.bob.client.v1.timelines.home.list()).find((s) => s.content.includes('what do you drink?')),
      'the poll at b',
    );
    expect(tally(seen.poll!)).toBe('tea:0 coffee:0 water:0');
    expect(seen.poll!.multiple).toBe(false);
    expect(new Date(seen.poll!.expiresAt!).getTime()).toBeGreaterThan(Date.now());

    const voted = await t.bob.client.v1.polls.$select(seen.poll!.id).votes.create({ choices: [1] });
    expect(voted.ownVotes).toEqual([1]);
    expect(tally(voted)).toBe('tea:0 coffee:1 water:0');

    // a.test counted bob's vote…
    await eventually(
      async () => (await t.alice.client.v1.polls.$select(posted.poll!.id).fetch()).votesCount === 1,
      'the vote at a',
    );
    expect(tally(await t.alice.client.v1.polls.$select(posted.poll!.id).fetch())).toBe('tea:0 coffee:1 water:0');

    // …and a vote made on a.test reaches b.test through the Update of the Question.
    const carol = await t.a.createUser('carol');
    await carol.client.v1.polls.$select(posted.poll!.id).votes.create({ choices: [0] });
    await eventually(
      async () => (await t.bob.client.v1.polls.$select(seen.poll!.id).fetch()).votesCount === 2,
      'the new counts at b',
    );
    const atB = await t.bob.client.v1.polls.$select(seen.poll!.id).fetch();
    expect(tally(atB)).toBe('tea:1 coffee:1 water:0');
    expect(atB.votersCount).toBe(2);
    expect(atB.ownVotes).toEqual([1]);
    expect((await t.bob.client.v1.statuses.$select(seen.id).fetch()).editedAt).toBeNull();

    // A second vote is refused where it is made, and a repeated Note would not count twice.
    await expect(t.bob.client.v1.polls.$select(seen.poll!.id).votes.create({ choices: [2] })).rejects.toThrow();
    expect((await t.alice.client.v1.polls.$select(posted.poll!.id).fetch()).votesCount).toBe(2);
    void t.net;
  });

  it('a remote poll that ends notifies the voters here', async () => {
    await t.alice.client.v1.statuses.create({
      status: 'pick a colour',
      poll: { options: ['red', 'blue'], expiresIn: 3600 },
    });
    const seen = await eventually(
      async () => (await t.bob.client.v1.timelines.home.list()).find((s) => s.content.includes('pick a colour')),
      'the poll at b',
    );
    await t.bob.client.v1.polls.$select(seen.poll!.id).votes.create({ choices: [0] });
    // Its end, as b.test knows it, passes (the API allows no poll shorter than five minutes).
    const ctxB = t.net.instances.get('b.test')!.social.context;
    ctxB.store.db.prepare('UPDATE polls SET expires_at = ? WHERE id = ?').run(ctxB.store.now() - 1000, seen.poll!.id);
    expect(ctxB.polls.notifyExpired()).toBeGreaterThanOrEqual(1);
    const notes = await t.bob.client.v1.notifications.list({ types: ['poll'] });
    expect(notes.map((n) => n.status?.id)).toContain(seen.id);
  });
});
