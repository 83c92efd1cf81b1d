import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postShowingCard, startTestSite, type TestSite } from '../../../cards/testing/test-site.ts';
import { startSocialWithClock, type SocialTestServer, type TestUser } from '../../../testing/harness.ts';

/*
 * The admin trends API for hashtags, posts and link publishers (links have their own test with the cards):
 * staff see every candidate with its review and approve or reject it, which the public trends follow; anyone
 * else with an admin:read token gets the public lists.
 */

let site: TestSite;
let server: SocialTestServer;
const clock = Date.now();
const users: TestUser[] = [];
let moderator: TestUser;
let nosy: TestUser;
const ADMIN_SCOPES = 'read write admin:read admin:write';

beforeAll(async () => {
  site = await startTestSite();
  server = await startSocialWithClock(() => clock, {
    social: { previewCards: { allowPrivateAddress: true, timeoutMs: 5_000 } },
  });
  for (let i = 0; i < 3; i++) {
    const user = await server.createUser(`poster${i}`);
    await server.masto(user.token).v1.accounts.updateCredentials({ discoverable: true });
    users.push(user);
  }
  moderator = await server.createUser('moddy', { role: 'moderator', scopes: ADMIN_SCOPES });
  nosy = await server.createUser('nosy', { scopes: ADMIN_SCOPES });
});

afterAll(async () => {
  await server?.close();
  await site?.close();
});

const get = async (path: string, token: string | null) => (await server.call(token, 'GET', path)).body;
const post = (path: string, token: string) => server.call(token, 'POST', path);

describe('admin trends', () => {
  it('hashtags: every candidate to staff with its review; approving lists it publicly, rejecting takes it off', async () => {
    for (const user of users) await server.masto(user.token).v1.statuses.create({ status: 'tide tables #tides' });
    const [candidate] = await get('/api/v1/admin/trends/tags', moderator.token);
    expect(candidate).toMatchObject({ name: 'tides', trendable: false, usable: true, requires_review: true });
    expect(await get('/api/v1/trends/tags', null)).toEqual([]);
    expect(await get('/api/v1/admin/trends/tags', nosy.token)).toEqual([]);

    const approved = await post(`/api/v1/admin/trends/tags/${candidate.id}/approve`, moderator.token);
    expect(approved.body).toMatchObject({ id: candidate.id, trendable: true, requires_review: false });
    expect((await get('/api/v1/trends/tags', null)).map((t: { name: string }) => t.name)).toEqual(['tides']);
    expect((await get('/api/v1/admin/trends/tags', nosy.token)).map((t: { name: string }) => t.name)).toEqual([
      'tides',
    ]);

    await post(`/api/v1/admin/trends/tags/${candidate.id}/reject`, moderator.token);
    expect(await get('/api/v1/trends/tags', null)).toEqual([]);
    expect((await get('/api/v1/admin/trends/tags', moderator.token))[0]).toMatchObject({
      trendable: false,
      requires_review: false,
    });
    expect((await post(`/api/v1/admin/trends/tags/${candidate.id}/approve`, nosy.token)).status).toBe(403);
    expect((await post('/api/v1/admin/trends/tags/999999/approve', moderator.token)).status).toBe(404);
  });

  it('posts: unreviewed ones trend, a rejected one does not until approved', async () => {
    const [author, booster] = users;
    const popular = await server.masto(author.token).v1.statuses.create({ status: 'the big wave' });
    await server.masto(booster.token).v1.statuses.$select(popular.id).reblog();
    const trending = async () => (await get('/api/v1/trends/statuses', null)).map((s: { id: string }) => s.id);
    expect(await trending()).toEqual([popular.id]);
    expect(await get('/api/v1/admin/trends/statuses', moderator.token)).toMatchObject([
      { id: popular.id, requires_review: true },
    ]);

    const rejected = await post(`/api/v1/admin/trends/statuses/${popular.id}/reject`, moderator.token);
    expect(rejected.body).toMatchObject({ id: popular.id, requires_review: false });
    expect(await trending()).toEqual([]);
    expect((await get('/api/v1/admin/trends/statuses', moderator.token)).map((s: { id: string }) => s.id)).toEqual([
      popular.id,
    ]);
    expect(await get('/api/v1/admin/trends/statuses', nosy.token)).toEqual([]);

    await post(`/api/v1/admin/trends/statuses/${popular.id}/approve`, moderator.token);
    expect(await trending()).toEqual([popular.id]);
    expect((await post(`/api/v1/admin/trends/statuses/${popular.id}/reject`, nosy.token)).status).toBe(403);
  });

  it('link publishers: approving one lets its unreviewed links trend; a link rejected on its own stays out', async () => {
    for (const user of users) await postShowingCard(server, user.token, `worth reading ${site.base}/article`);
    const links = async () => (await get('/api/v1/trends/links', null)).map((l: { url: string }) => l.url);
    expect(await links()).toEqual([]);

    const publishers = await get('/api/v1/admin/trends/links/publishers', moderator.token);
    const host = new URL(site.base).hostname;
    expect(publishers).toEqual([
      {
        id: expect.any(String),
        domain: host,
        trendable: false,
        reviewed_at: null,
        requested_review_at: null,
        requires_review: true,
      },
    ]);
    expect(await get('/api/v1/admin/trends/links/publishers', nosy.token)).toEqual([]);

    const approved = await post(`/api/v1/admin/trends/links/publishers/${publishers[0].id}/approve`, moderator.token);
    expect(approved.body).toMatchObject({ domain: host, trendable: true, requires_review: false });
    expect(approved.body.reviewed_at).not.toBeNull();
    expect(await links()).toEqual([`${site.base}/article`]);

    const [link] = await get('/api/v1/admin/trends/links', moderator.token);
    await post(`/api/v1/admin/trends/links/${link.id}/reject`, moderator.token);
    expect(await links()).toEqual([]);

    await post(`/api/v1/admin/trends/links/publishers/${publishers[0].id}/reject`, moderator.token);
    expect((await get('/api/v1/admin/trends/links/publishers', moderator.token))[0].trendable).toBe(false);
    expect((await post('/api/v1/admin/trends/links/publishers/999999/approve', moderator.token)).status).toBe(404);
  });

  it('hashtags in the admin list: every tag with its review, Link-paged, shown one by one and reviewed by PUT or PATCH', async () => {
    await server.masto(users[0].token).v1.statuses.create({ status: 'more #Knots and #ropes' });
    const listed = await server.call(moderator.token, 'GET', '/api/v1/admin/tags?limit=2');
    expect(listed.body.map((t: { name: string }) => t.name.toLowerCase())).toEqual(['ropes', 'knots']);
    expect(listed.headers.get('link')).toMatch(/rel="next"/);
    const next = /<([^>]+)>; rel="next"/.exec(listed.headers.get('link')!)![1];
    expect((await server.call(moderator.token, 'GET', new URL(next).pathname + new URL(next).search)).body).toEqual([
      expect.objectContaining({ name: 'tides' }),
    ]);

    const knots = listed.body[1];
    expect(knots).toMatchObject({ usable: true, trendable: false, requires_review: true });
    const put = await server.call(moderator.token, 'PUT', `/api/v1/admin/tags/${knots.id}`, {
      display_name: 'KNOTS',
      trendable: true,
    });
    expect(put.body).toMatchObject({ id: knots.id, name: 'KNOTS', trendable: true, requires_review: false });
    const patched = await server.call(moderator.token, 'PATCH', `/api/v1/admin/tags/${knots.id}`, { usable: false });
    expect(patched.body).toMatchObject({ name: 'KNOTS', trendable: true, usable: false });
    expect((await server.call(moderator.token, 'GET', `/api/v1/admin/tags/${knots.id}`)).body).toEqual(patched.body);
    expect(
      (await server.call(moderator.token, 'PUT', `/api/v1/admin/tags/${knots.id}`, { display_name: 'rope' })).status,
    ).toBe(422);
    expect((await server.call(nosy.token, 'GET', '/api/v1/admin/tags')).status).toBe(403);
    expect((await server.call(moderator.token, 'GET', '/api/v1/admin/tags/999999')).status).toBe(404);
  });
});
