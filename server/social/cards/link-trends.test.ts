import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSocialWithClock, type SocialTestServer, type TestUser } from '../testing/harness.ts';
import { postShowingCard, startTestSite, type TestSite } from './testing/test-site.ts';

/*
 * Trending links and the link timeline (Mastodon 4.5), driven by real posts linking to a web site on loopback:
 * articles ranked by the distinct accounts that shared them in public posts and boosts over two days, listed
 * once staff allowed them, with a week of history; the link timeline lists the public posts of discoverable
 * accounts showing a trending card and is 404 for any other address. Every body is checked against the
 * Mastodon OpenAPI document (TrendsLink, Status) by the harness.
 */

const HOUR = 3600 * 1000;
const DAY = 24 * HOUR;

let site: TestSite;
let server: SocialTestServer;
let clock = Date.now();
/** Five discoverable accounts, then one that is not. */
const users: TestUser[] = [];
let shy: TestUser;
/** A moderator (who may review trends) and a user whose token has the admin scopes but who is not staff. */
let moderator: TestUser;
let nosy: TestUser;
const ADMIN_SCOPES = 'read write admin:read admin:write';

beforeAll(async () => {
  site = await startTestSite();
  server = await startSocialWithClock(() => clock, {
    social: { previewCards: { allowPrivateAddress: true, timeoutMs: 5_000 } },
  });
  for (let i = 0; i < 5; i++) {
    const user = await server.createUser(`sharer${i}`);
    await server.masto(user.token).v1.accounts.updateCredentials({ discoverable: true });
    users.push(user);
  }
  shy = await server.createUser('shy');
  await server.masto(shy.token).v1.accounts.updateCredentials({ discoverable: false });
  moderator = await server.createUser('moddy', { role: 'moderator', scopes: ADMIN_SCOPES });
  nosy = await server.createUser('nosy', { scopes: ADMIN_SCOPES });
});

afterAll(async () => {
  await server?.close();
  await site?.close();
});

/** Posts as `user` and waits until the post's card was looked for; returns the status id. */
async function post(user: TestUser, text: string, extra: Record<string, unknown> = {}): Promise<string> {
  const { id } = await postShowingCard(server, user.token, text, extra);
  clock += 1_000;
  return id;
}

async function get(path: string, token: string | null = null) {
  return server.call(token, 'GET', path);
}

/** A status's version: it moves whenever its serialization (with its card) must be made again. */
const version = (id: string) => server.social.context.store.statuses.byId(id)!.updatedAt;

const article = () => `${site.base}/article`;
const story = () => `${site.base}/story`;

describe('trending links', () => {
  const ids: Record<string, string> = {};

  it('ranks articles by the accounts that shared them in public posts and boosts, once staff allowed them', async () => {
    const [a0, a1, a2, a3, a4] = users;
    ids.first = await post(a0, `read this ${article()}`);
    ids.again = await post(a0, `and again ${article()}`);
    ids.second = await post(a1, `good one ${site.base}/short`); // a redirect to the same article
    ids.third = await post(a2, `via ${article()}`);
    ids.shy = await post(shy, `quietly ${article()}`);
    await server.call(a3.token, 'POST', `/api/v1/statuses/${ids.first}/reblog`);
    clock += 1_000;
    ids.story0 = await post(a0, `otters! ${story()}`);
    ids.story1 = await post(a1, `${story()}`);
    // Neither a warned, a sensitive nor a followers-only post counts; nor does a page that is not an article.
    await post(a4, `spoiler ${story()}`, { spoiler_text: 'rivers' });
    await post(a2, `sensitive ${story()}`, { sensitive: true });
    await post(a3, `private ${story()}`, { visibility: 'private' });
    for (const user of users) await post(user, `not an article ${site.base}/other`);

    // Nothing trends before staff looked at it.
    const before = await get('/api/v1/trends/links');
    expect(before.status).toBe(200);
    expect(before.body).toEqual([]);
    expect(
      server.admin.trendingLinkCandidates().map((l) => [l.card.url, l.accounts, l.uses, l.card.trendable]),
    ).toEqual(
      [
        [article(), 5, 6],
        [story(), 2, 2],
      ].map(([url, accounts, uses]) => [url, accounts, uses, null]),
    );

    // The admin API lists every candidate to staff, unreviewed ones flagged.
    const candidates = await get('/api/v1/admin/trends/links', moderator.token);
    expect(candidates.status).toBe(200);
    expect(candidates.body.map((l: any) => [l.url, l.requires_review, l.history[0].accounts])).toEqual([
      [article(), true, '5'],
      [story(), true, '2'],
    ]);
    const [articleId, storyId] = candidates.body.map((l: any) => l.id);

    // Reviewed from the command line's admin and through the API; a review rewrites no post's card.
    const before0 = version(ids.first);
    server.admin.reviewTrendingLink(article(), true);
    expect(version(ids.first)).toBe(before0);
    expect(() => server.admin.reviewTrendingLink(`${site.base}/other-never-posted`, true)).toThrow(
      /no link preview card/,
    );
    const approved = await server.call(moderator.token, 'POST', `/api/v1/admin/trends/links/${storyId}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({
      id: storyId,
      url: story(),
      requires_review: false,
      title: 'Otters return to the river',
    });
    expect(approved.body.history[0]).toMatchObject({ uses: '2', accounts: '2' });
    expect(
      (await get('/api/v1/admin/trends/links', moderator.token)).body.map((l: any) => [l.id, l.requires_review]),
    ).toEqual([
      [articleId, false],
      [storyId, false],
    ]);
    // Only staff who may review: anyone else gets 403 and the public list; an unknown card is 404.
    expect((await server.call(nosy.token, 'POST', `/api/v1/admin/trends/links/${storyId}/reject`)).status).toBe(403);
    expect((await server.call(users[0].token, 'POST', `/api/v1/admin/trends/links/${storyId}/reject`)).status).toBe(
      403,
    );
    expect((await server.call(moderator.token, 'POST', '/api/v1/admin/trends/links/999999/approve')).status).toBe(404);
    expect((await server.call(moderator.token, 'POST', '/api/v1/admin/trends/links/nonsense/approve')).status).toBe(
      404,
    );
    const publicView = await get('/api/v1/admin/trends/links', nosy.token);
    expect(publicView.body.map((l: any) => l.url)).toEqual([article(), story()]);
    expect(publicView.body[0]).not.toHaveProperty('requires_review');

    const trends = await get('/api/v1/trends/links');
    expect(trends.body.map((l: any) => l.url)).toEqual([article(), story()]);
    const top = trends.body[0];
    expect(top).toMatchObject({
      title: 'Ducks & geese of the north',
      description: 'A field guide to waterfowl.',
      type: 'link',
      provider_name: 'Bird Weekly',
    });
    expect(top.image.startsWith(`${server.url}/system/preview_cards/`)).toBe(true);
    expect(top.history).toHaveLength(7);
    const today = Math.floor(clock / DAY) * DAY;
    expect(top.history[0]).toEqual({ day: String(today / 1000), uses: '6', accounts: '5' });
    expect(top.history[1]).toEqual({ day: String((today - DAY) / 1000), uses: '0', accounts: '0' });

    // Offset paging, as the other trends.
    const first = await get('/api/v1/trends/links?limit=1');
    expect(first.body.map((l: any) => l.url)).toEqual([article()]);
    expect(first.headers.get('link')).toBe(`<${server.url}/api/v1/trends/links?limit=1&offset=1>; rel="next"`);
    expect((await get('/api/v1/trends/links?offset=1')).body.map((l: any) => l.url)).toEqual([story()]);
    const listed = await server.masto().v1.trends.links.list();
    expect(listed.map((l) => [l.url, l.history[0].accounts])).toEqual([
      [article(), '5'],
      [story(), '2'],
    ]);

    // Kept out by staff: gone from the list, still a candidate for review.
    const rejected = await server.call(moderator.token, 'POST', `/api/v1/admin/trends/links/${storyId}/reject`);
    expect(rejected.body).toMatchObject({ id: storyId, requires_review: false });
    expect((await get('/api/v1/trends/links')).body.map((l: any) => l.url)).toEqual([article()]);
    expect((await get('/api/v1/admin/trends/links', moderator.token)).body.map((l: any) => l.url)).toEqual([
      article(),
      story(),
    ]);
  });

  it('the link timeline lists the public posts of discoverable accounts showing a trending link, newest first, with cursor paging', async () => {
    const url = encodeURIComponent(article());
    const all = await get(`/api/v1/timelines/link?url=${url}`);
    expect(all.status).toBe(200);
    // Not the boost (it shows no card of its own) nor the post of an account that is not discoverable.
    expect(all.body.map((s: any) => s.id)).toEqual([ids.third, ids.second, ids.again, ids.first]);
    expect(all.body[0].card.title).toBe('Ducks & geese of the north');

    const page1 = await get(`/api/v1/timelines/link?url=${url}&limit=2`);
    expect(page1.body.map((s: any) => s.id)).toEqual([ids.third, ids.second]);
    const link = page1.headers.get('link')!;
    expect(link).toContain(`max_id=${ids.second}>; rel="next"`);
    expect(link).toContain(`min_id=${ids.third}>; rel="prev"`);
    expect(link).toContain(`url=${url}`);
    const next = /<([^>]+)>; rel="next"/.exec(link)![1];
    expect((await get(next.slice(server.url.length))).body.map((s: any) => s.id)).toEqual([ids.again, ids.first]);
    expect(
      (await get(`/api/v1/timelines/link?url=${url}&min_id=${ids.first}&limit=2`)).body.map((s: any) => s.id),
    ).toEqual([ids.second, ids.again]);
    expect((await get(`/api/v1/timelines/link?url=${url}&since_id=${ids.second}`)).body.map((s: any) => s.id)).toEqual([
      ids.third,
    ]);

    // masto.js pages it too, and a viewer who blocks an author does not see their posts.
    const viewer = users[4];
    expect((await server.masto(viewer.token).v1.timelines.link.list({ url: article() })).map((s) => s.id)).toEqual([
      ids.third,
      ids.second,
      ids.again,
      ids.first,
    ]);
    await server.call(viewer.token, 'POST', `/api/v1/accounts/${users[0].accountId}/block`);
    expect((await get(`/api/v1/timelines/link?url=${url}`, viewer.token)).body.map((s: any) => s.id)).toEqual([
      ids.third,
      ids.second,
    ]);
  });

  it('any address but a trending one is 404: kept out by staff, never posted, not an article, or none given', async () => {
    for (const url of [story(), `${site.base}/nowhere`, `${site.base}/other`]) {
      const res = await get(`/api/v1/timelines/link?url=${encodeURIComponent(url)}`);
      expect(res.status, url).toBe(404);
      expect(res.body).toEqual({ error: 'Record not found' });
    }
    expect((await get('/api/v1/timelines/link')).status).toBe(404);
  });

  it('a link stops trending when its shares are older than two days; its history keeps the week', async () => {
    clock += 2 * DAY + HOUR;
    expect((await get('/api/v1/trends/links')).body).toEqual([]);
    expect((await get(`/api/v1/timelines/link?url=${encodeURIComponent(article())}`)).status).toBe(404);
    // A new share brings it back, with the earlier days in its history.
    await post(users[1], `still worth reading ${article()}`);
    const [trend] = (await get('/api/v1/trends/links')).body;
    expect(trend.url).toBe(article());
    expect(trend.history[0]).toMatchObject({ uses: '1', accounts: '1' });
    expect(trend.history.slice(1).reduce((n: number, d: any) => n + Number(d.uses), 0)).toBe(6);
  });
});
