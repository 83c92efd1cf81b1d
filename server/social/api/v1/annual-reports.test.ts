import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSocialWithClock, type SocialTestServer, type TestUser } from '../../testing/harness.ts';

/*
 * Annual reports ("Wrapstodon"): a year's report computed from the account's own posts, boosts, replies and
 * followers, offered during that year's campaign (10–31 December, as Mastodon's). The server's clock is set.
 */

const year = 2025;
let clock = Date.UTC(year, 10, 20, 12);

let server: SocialTestServer;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;

beforeAll(async () => {
  server = await startSocialWithClock(() => clock);
  [alice, bob, carol] = await Promise.all(['alice', 'bob', 'carol'].map((u) => server.createUser(u)));
});

afterAll(async () => {
  await server?.close();
});

const call = (token: string | null, method: string, path: string, body?: unknown) =>
  server.call(token, method, path, body);

describe('annual reports', () => {
  it('are generated from the year’s own activity, kept as generated, listed and marked read', async () => {
    const a = server.masto(alice.token);
    const b = server.masto(bob.token);
    const c = server.masto(carol.token);

    expect((await call(alice.token, 'GET', `/api/v1/annual_reports/${year}/state`)).body).toEqual({
      state: 'ineligible',
    });

    const mostBoosted = await a.v1.statuses.create({ status: 'out sailing #sailing' });
    const mostFavourited = await a.v1.statuses.create({ status: 'calm water #sailing #calm' });
    const mostReplied = await a.v1.statuses.create({ status: 'who is coming? #sailing' });
    await a.v1.statuses.create({ status: 'which knot?', poll: { options: ['bowline', 'hitch'], expiresIn: 3600 } });
    const bobs = await b.v1.statuses.create({ status: 'harbour news' });
    await a.v1.statuses.create({ status: '@bob thanks', inReplyToId: bobs.id });
    await a.v1.statuses.create({ status: '@bob again', inReplyToId: bobs.id });
    await a.v1.statuses.$select(bobs.id).reblog();
    await b.v1.statuses.$select(mostBoosted.id).reblog();
    await c.v1.statuses.$select(mostBoosted.id).reblog();
    await b.v1.statuses.$select(mostFavourited.id).favourite();
    await c.v1.statuses.create({ status: '@alice me!', inReplyToId: mostReplied.id });
    await b.v1.accounts.$select(alice.accountId).follow();

    const path = `/api/v1/annual_reports/${year}`;
    // Before the campaign (and after it) the year is not offered, and generating it makes nothing, as Mastodon.
    expect((await call(alice.token, 'GET', `${path}/state`)).body).toEqual({ state: 'ineligible' });
    expect(await call(alice.token, 'POST', `${path}/generate`)).toMatchObject({ status: 200, body: {} });
    expect((await call(alice.token, 'GET', path)).status).toBe(404);
    clock = Date.UTC(year, 11, 9, 23, 59);
    expect((await call(alice.token, 'GET', `${path}/state`)).body).toEqual({ state: 'ineligible' });
    clock = Date.UTC(year, 11, 10);
    expect((await call(alice.token, 'GET', `${path}/state`)).body).toEqual({ state: 'eligible' });
    expect((await call(alice.token, 'GET', `/api/v1/annual_reports/${year - 1}/state`)).body.state).toBe('ineligible');
    expect((await call(alice.token, 'GET', `/api/v1/annual_reports/${year + 1}/state`)).body.state).toBe('ineligible');
    expect((await call(alice.token, 'GET', path)).status).toBe(404);
    expect((await call(alice.token, 'POST', `${path}/read`)).status).toBe(404);

    expect(await call(alice.token, 'POST', `${path}/generate`)).toMatchObject({ status: 200, body: {} });
    expect((await call(alice.token, 'GET', `${path}/state`)).body).toEqual({ state: 'available' });

    const { body } = await call(alice.token, 'GET', path);
    expect(body.annual_reports).toHaveLength(1);
    const [report] = body.annual_reports;
    expect(report).toMatchObject({ year, schema_version: 1, account_id: alice.accountId, share_url: null });
    const month = 11;
    expect(report.data).toMatchObject({
      archetype: 'lurker',
      type_distribution: { total: 7, standalone: 4, replies: 2, reblogs: 1 },
      top_hashtags: [
        { name: 'sailing', count: 3 },
        { name: 'calm', count: 1 },
      ],
      top_statuses: { by_reblogs: mostBoosted.id, by_favourites: mostFavourited.id, by_replies: mostReplied.id },
      most_used_apps: [{ name: expect.any(String), count: 6 }],
      commonly_interacted_with_accounts: [{ account_id: bob.accountId, count: 2 }],
      most_reblogged_accounts: [{ account_id: bob.accountId, count: 1 }],
    });
    expect(report.data.time_series).toHaveLength(12);
    expect(report.data.time_series[month - 1]).toEqual({ month, statuses: 7, following: 0, followers: 1 });
    // Of the three local accounts, the two others posted less and gained fewer followers.
    expect(report.data.percentiles.statuses).toBeCloseTo(200 / 3);
    expect(report.data.percentiles.followers).toBeCloseTo(200 / 3);
    expect(body.accounts.map((x: { id: string }) => x.id)).toEqual([bob.accountId]);
    expect(body.statuses.map((s: { id: string }) => s.id).sort()).toEqual(
      [mostBoosted.id, mostFavourited.id, mostReplied.id].sort(),
    );

    // Generated once: later activity and a second generate change nothing.
    await a.v1.statuses.create({ status: 'one more #sailing' });
    expect((await call(alice.token, 'POST', `${path}/generate`)).status).toBe(200);
    expect((await call(alice.token, 'GET', path)).body.annual_reports[0].data).toEqual(report.data);

    expect(await call(alice.token, 'POST', `${path}/read`)).toMatchObject({ status: 200, body: {} });
    const all = await call(alice.token, 'GET', '/api/v1/annual_reports');
    expect(all.body.annual_reports.map((r: { year: number }) => r.year)).toEqual([year]);
    expect((await call(bob.token, 'GET', '/api/v1/annual_reports')).body.annual_reports).toEqual([]);
    expect((await call(bob.token, 'GET', path)).status).toBe(404);

    // Once the campaign is over a generated report stays available; one never generated is no longer offered.
    expect((await call(bob.token, 'GET', `${path}/state`)).body.state).toBe('eligible');
    clock = Date.UTC(year + 1, 0, 2);
    expect((await call(alice.token, 'GET', `${path}/state`)).body.state).toBe('available');
    expect((await call(bob.token, 'GET', `${path}/state`)).body.state).toBe('ineligible');
    expect((await call(null, 'GET', '/api/v1/annual_reports')).status).toBe(401);
  });
});
