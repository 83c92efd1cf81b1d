import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSocialTestServer, type SocialTestServer, type TestUser } from '../../testing/harness.ts';

/*
 * Trends: hashtags many accounts used lately, once staff allowed them; public posts several accounts
 * favourited and reblogged, never sensitive ones or those of undiscoverable accounts.
 */

let server: SocialTestServer;
const users: TestUser[] = [];

beforeAll(async () => {
  server = await startSocialTestServer();
  for (let i = 0; i < 5; i++) {
    const user = await server.createUser(`p${i}`);
    await server.masto(user.token).v1.accounts.updateCredentials({ discoverable: i !== 4 });
    users.push(user);
  }
});

afterAll(async () => {
  await server?.close();
});

async function get(path: string) {
  const res = await server.fetch(`${server.url}${path}`);
  return { status: res.status, body: (await res.json()) as any[], link: res.headers.get('link') };
}

describe('trends', () => {
  it('lists the hashtags most accounts used lately, once staff allowed them', async () => {
    for (const [i, user] of users.entries()) {
      const m = server.masto(user.token);
      if (i < 3) await m.v1.statuses.create({ status: `I like #cats ${i}` });
      if (i === 0) await m.v1.statuses.create({ status: 'and #dogs' });
      await m.v1.statuses.create({ status: `buy now #spam ${i}` });
    }
    expect((await get('/api/v1/trends/tags')).body).toEqual([]);
    expect(server.admin.trendingTagCandidates().map((t) => [t.tag.name, t.accounts, t.trendable])).toEqual([
      ['spam', 5, null],
      ['cats', 3, null],
      ['dogs', 1, null],
    ]);
    server.admin.reviewTrendingTag('cats', true);
    server.admin.reviewTrendingTag('#dogs', true);
    server.admin.reviewTrendingTag('spam', false);
    expect(() => server.admin.reviewTrendingTag('neverused', true)).toThrow(/no hashtag/);

    const trends = await get('/api/v1/trends/tags');
    expect(trends.body.map((t) => t.name)).toEqual(['cats', 'dogs']);
    expect(trends.body[0].history[0]).toMatchObject({ uses: '3', accounts: '3' });
    const first = await get('/api/v1/trends/tags?limit=1');
    expect(first.body.map((t) => t.name)).toEqual(['cats']);
    expect(first.link).toContain('offset=1');
    expect((await get('/api/v1/trends/tags?offset=1')).body.map((t) => t.name)).toEqual(['dogs']);
  });

  it('lists public posts several accounts favourited and reblogged, and not sensitive or undiscoverable ones', async () => {
    const [author, , , , hidden] = users;
    const liked = await server.masto(author.token).v1.statuses.create({ status: 'a good post' });
    const mild = await server.masto(author.token).v1.statuses.create({ status: 'a fine post' });
    const sensitive = await server
      .masto(author.token)
      .v1.statuses.create({ status: 'behind a warning', spoilerText: 'cw' });
    const unseen = await server.masto(hidden.token).v1.statuses.create({ status: 'from someone not discoverable' });
    for (const fan of users.slice(1, 4)) {
      await server.masto(fan.token).v1.statuses.$select(liked.id).reblog();
      await server.masto(fan.token).v1.statuses.$select(sensitive.id).favourite();
      await server.masto(fan.token).v1.statuses.$select(unseen.id).reblog();
    }
    await server.masto(users[1].token).v1.statuses.$select(mild.id).favourite();
    await server.masto(users[2].token).v1.statuses.$select(mild.id).favourite();
    const trending = await get('/api/v1/trends/statuses');
    expect(trending.body.map((s) => s.id)).toEqual([liked.id, mild.id]);
    expect((await server.masto(users[3].token).v1.trends.statuses.list()).map((s) => s.id)).toEqual([
      liked.id,
      mild.id,
    ]);
  });
});
