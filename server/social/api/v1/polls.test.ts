import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSocialWithClock, type SocialTestServer, type TestUser } from '../../testing/harness.ts';
import { blob, pngImage } from '../../testing/media-fixtures.ts';

/*
 * Polls and scheduled statuses against a server whose clock the test moves: votes, hidden totals, expiry
 * notifications exactly once, scheduled statuses published when due, also after a restart that missed
 * their time. Nothing sleeps: the test advances the clock and runs the due jobs.
 */

const clock = { now: Date.parse('2030-01-01T12:00:00.000Z') };
const MINUTE = 60_000;
let server: SocialTestServer;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;

beforeAll(async () => {
  server = await startSocialWithClock(() => clock.now, { keepData: true });
  [alice, bob, carol] = await Promise.all([
    server.createUser('alice'),
    server.createUser('bob'),
    server.createUser('carol'),
  ]);
  await server.masto(bob.token).v1.accounts.$select(alice.accountId).follow();
});

afterAll(async () => {
  const dir = server?.dir;
  await server?.close();
  if (dir) (await import('node:fs')).rmSync(dir, { recursive: true, force: true });
});

async function post(token: string, path: string, body: unknown) {
  const res = await server.fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('polls', () => {
  it('takes votes, refuses own, repeated, expired and malformed ones, and notifies once on expiry', async () => {
    const status = await server
      .masto(alice.token)
      .v1.statuses.create({ status: 'Tea or coffee?', poll: { options: ['tea', 'coffee', 'water'], expiresIn: 600 } });
    const pollId = status.poll!.id;
    expect(status.poll).toMatchObject({
      expired: false,
      multiple: false,
      votesCount: 0,
      votersCount: 0,
      voted: true,
      ownVotes: [],
    });
    expect(status.poll!.expiresAt).toBe(new Date(clock.now + 600_000).toISOString());

    const voted = await server.megalodon(bob.token).votePoll(pollId, [1]);
    expect(voted.data.voted).toBe(true);
    expect((voted.data as { own_votes?: number[] }).own_votes).toEqual([1]);
    const carolVote = await server
      .masto(carol.token)
      .v1.polls.$select(pollId)
      .votes.create({ choices: [0] });
    expect(carolVote.options.map((o) => o.votesCount)).toEqual([1, 1, 0]);
    expect(carolVote.votersCount).toBe(2);

    expect((await post(alice.token, `/api/v1/polls/${pollId}/votes`, { choices: [0] })).status).toBe(422);
    const repeated = await post(bob.token, `/api/v1/polls/${pollId}/votes`, { choices: [2] });
    expect(repeated.status).toBe(422);
    expect(repeated.body.error).toMatch(/already/);
    const dave = await server.createUser('dave');
    expect((await post(dave.token, `/api/v1/polls/${pollId}/votes`, { choices: [0, 1] })).status).toBe(422);
    expect((await post(dave.token, `/api/v1/polls/${pollId}/votes`, { choices: [7] })).status).toBe(422);
    expect((await post(dave.token, `/api/v1/polls/${pollId}/votes`, { choices: [] })).status).toBe(422);

    // Nothing ends early.
    clock.now += 599_000;
    expect(server.social.runDueJobs().pollsEnded).toBe(0);
    clock.now += 2_000;
    expect(server.social.runDueJobs().pollsEnded).toBe(1);
    expect(server.social.runDueJobs().pollsEnded).toBe(0);

    const pollNotes = async (user: TestUser) =>
      (await server.masto(user.token).v1.notifications.list({ types: ['poll'] })).map((n) => [
        n.status?.id,
        n.account.id,
      ]);
    expect(await pollNotes(alice)).toEqual([[status.id, alice.accountId]]);
    expect(await pollNotes(bob)).toEqual([[status.id, alice.accountId]]);
    expect(await pollNotes(carol)).toEqual([[status.id, alice.accountId]]);
    expect(await pollNotes(dave)).toEqual([]);

    const late = await post(dave.token, `/api/v1/polls/${pollId}/votes`, { choices: [2] });
    expect(late.status).toBe(422);
    expect(late.body.error).toMatch(/ended/);
    const ended = await server.megalodon().getPoll(pollId);
    expect(ended.data.expired).toBe(true);
  });

  it('hides totals of a hide_totals poll from everyone but its author until it ends; multiple choice', async () => {
    const status = await server.masto(alice.token).v1.statuses.create({
      status: 'Pick any',
      poll: { options: ['a', 'b'], expiresIn: 300, multiple: true, hideTotals: true },
    });
    const pollId = status.poll!.id;
    const bobs = await server
      .masto(bob.token)
      .v1.polls.$select(pollId)
      .votes.create({ choices: [0, 1] });
    expect(bobs.ownVotes).toEqual([0, 1]);
    expect(bobs.options.map((o) => o.votesCount)).toEqual([null, null]);
    expect((await server.masto(alice.token).v1.polls.$select(pollId).fetch()).options.map((o) => o.votesCount)).toEqual(
      [1, 1],
    );
    clock.now += 301_000;
    server.social.runDueJobs();
    expect((await server.masto(bob.token).v1.polls.$select(pollId).fetch()).options.map((o) => o.votesCount)).toEqual([
      1, 1,
    ]);
  });

  it('keeps polls of private statuses from those who cannot read them', async () => {
    const status = await server.masto(alice.token).v1.statuses.create({
      status: 'followers decide',
      visibility: 'private',
      poll: { options: ['x', 'y'], expiresIn: 3600 },
    });
    const res = await server.fetch(`${server.url}/api/v1/polls/${status.poll!.id}`);
    expect(res.status).toBe(404);
    expect((await server.masto(bob.token).v1.polls.$select(status.poll!.id).fetch()).id).toBe(status.poll!.id);
  });
});

describe('scheduled statuses', () => {
  it('lists, reschedules and publishes when due with every normal effect', async () => {
    const a = server.masto(alice.token);
    const media = await a.v1.media.create({ file: blob(await pngImage(30, 30), 'image/png') });
    const at = new Date(clock.now + 10 * MINUTE).toISOString();
    const scheduled = await a.v1.statuses.create({
      status: 'later, @carol',
      scheduledAt: at,
      mediaIds: [media.id],
      visibility: 'unlisted',
    });
    expect(scheduled.scheduledAt).toBe(at);
    expect(scheduled.params.text).toBe('later, @carol');
    expect(scheduled.mediaAttachments.map((m) => m.id)).toEqual([media.id]);
    // Media of a scheduled status may still be edited.
    const described = await a.v1.media.$select(media.id).update({ description: 'scheduled picture' });
    expect(described.description).toBe('scheduled picture');
    const listed = (await server.megalodon(alice.token).getScheduledStatuses()).data;
    expect(listed.map((s) => s.id)).toEqual([scheduled.id]);
    // Nobody else sees it.
    expect(
      (
        await server.fetch(`${server.url}/api/v1/scheduled_statuses/${scheduled.id}`, {
          headers: { Authorization: `Bearer ${bob.token}` },
        })
      ).status,
    ).toBe(404);

    const later = new Date(clock.now + 20 * MINUTE).toISOString();
    const moved = await a.v1.scheduledStatuses.$select(scheduled.id).update({ scheduledAt: later });
    expect(moved.scheduledAt).toBe(later);
    const tooSoon = await server.fetch(`${server.url}/api/v1/scheduled_statuses/${scheduled.id}`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${alice.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ scheduled_at: new Date(clock.now + MINUTE).toISOString() }),
    });
    expect(tooSoon.status).toBe(422);

    clock.now += 15 * MINUTE;
    expect(server.social.runDueJobs().published).toBe(0);
    clock.now += 6 * MINUTE;
    expect(server.social.runDueJobs().published).toBe(1);
    expect(await a.v1.scheduledStatuses.list()).toEqual([]);

    const published = (await a.v1.accounts.$select(alice.accountId).statuses.list({ limit: 1 }))[0];
    expect(published.content).toContain('later');
    expect(published.visibility).toBe('unlisted');
    expect(published.mediaAttachments.map((m) => [m.id, m.description])).toEqual([[media.id, 'scheduled picture']]);
    expect(published.createdAt).toBe(new Date(clock.now).toISOString());
    expect((await server.masto(bob.token).v1.timelines.home.list()).map((s) => s.id)).toContain(published.id);
    expect(
      (await server.masto(carol.token).v1.notifications.list({ types: ['mention'] })).map((n) => n.status?.id),
    ).toContain(published.id);
  });

  it('deletes a scheduled status, and an Idempotency-Key returns the same scheduled status', async () => {
    const a = server.masto(alice.token);
    const headers = { requestInit: { headers: { 'Idempotency-Key': 'schedule-once' } } };
    const first = await a.v1.statuses.create(
      { status: 'maybe', scheduledAt: new Date(clock.now + 60 * MINUTE).toISOString() },
      headers,
    );
    const again = await a.v1.statuses.create(
      { status: 'maybe', scheduledAt: new Date(clock.now + 60 * MINUTE).toISOString() },
      headers,
    );
    expect(again.id).toBe(first.id);
    await a.v1.scheduledStatuses.$select(first.id).remove();
    expect(await a.v1.scheduledStatuses.list()).toEqual([]);
  });

  it('publishes after a restart that missed the scheduled time, and ends polls that expired meanwhile', async () => {
    const a = server.masto(alice.token);
    const scheduled = await a.v1.statuses.create({
      status: 'written before the stop',
      scheduledAt: new Date(clock.now + 30 * MINUTE).toISOString(),
    });
    const poll = await a.v1.statuses.create({
      status: 'poll across a stop',
      poll: { options: ['yes', 'no'], expiresIn: 900 },
    });
    await server
      .masto(bob.token)
      .v1.polls.$select(poll.poll!.id)
      .votes.create({ choices: [0] });
    const dir = server.dir;
    await server.close();

    clock.now += 2 * 60 * MINUTE; // the server was down while both fell due
    server = await startSocialWithClock(() => clock.now, { dataDir: dir, keepData: true });
    // Nothing was called: starting up ran what fell due.
    const statuses = await server.masto(alice.token).v1.accounts.$select(alice.accountId).statuses.list({ limit: 2 });
    expect(statuses[0].content).toBe('<p>written before the stop</p>');
    expect(await server.masto(alice.token).v1.scheduledStatuses.list()).toEqual([]);
    expect(scheduled.id).not.toBe(statuses[0].id);
    const bobPolls = await server.masto(bob.token).v1.notifications.list({ types: ['poll'] });
    expect(bobPolls.filter((n) => n.status?.id === poll.id)).toHaveLength(1);
  });
});
