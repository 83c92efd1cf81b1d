import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSocialTestServer, type SocialTestServer, type TestUser } from '../testing/harness.ts';
import { ACTION_LIMITS, ActionLimiter } from './action-limits.ts';

describe('ActionLimiter', () => {
  it('counts per account and family in fixed windows, and opens a new window when one ends', () => {
    let now = 0;
    const limiter = new ActionLimiter(() => now);
    const { max, windowMs } = ACTION_LIMITS.media;
    for (let i = 0; i < max; i++) expect(limiter.hit('media', 'a').limited).toBe(false);
    const over = limiter.hit('media', 'a');
    expect(over).toMatchObject({ limited: true, remaining: 0, resetAt: windowMs });
    expect(limiter.hit('media', 'b').limited).toBe(false);
    expect(limiter.hit('follows', 'a').limited).toBe(false);
    now = windowMs;
    expect(limiter.hit('media', 'a')).toMatchObject({ limited: false, remaining: max - 1 });
  });
});

let server: SocialTestServer;
let user: TestUser;

beforeAll(async () => {
  server = await startSocialTestServer();
  user = await server.createUser('busy');
});

afterAll(async () => {
  await server?.close();
});

describe('per-action limits over HTTP', () => {
  it('refuses the 31st deletion in half an hour with 429 and the headers Mastodon sends, per account', async () => {
    const masto = server.masto(user.token);
    const posts = [];
    for (let i = 0; i < 31; i++) posts.push(await masto.v1.statuses.create({ status: `post ${i}` }));
    const remove = (id: string, token = user.token) =>
      server.fetch(`${server.url}/api/v1/statuses/${id}`, {
        method: 'DELETE',
        headers: { Authorization: `Bearer ${token}` },
      });
    for (const [i, post] of posts.slice(0, 30).entries()) {
      const res = await remove(post.id);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(29 - i));
    }
    const refused = await remove(posts[30].id);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: 'Too many requests' });
    expect(refused.headers.get('x-ratelimit-limit')).toBe('30');
    expect(Date.parse(refused.headers.get('x-ratelimit-reset')!)).toBeGreaterThan(Date.now());
    // A second token of the same account shares the account's window.
    const { token } = server.admin.createToken('busy', 'read write');
    expect((await remove(posts[30].id, token)).status).toBe(429);
    // Another account is not affected.
    const other = await server.createUser('calm');
    const own = await server.masto(other.token).v1.statuses.create({ status: 'mine' });
    expect((await remove(own.id, other.token)).status).toBe(200);
  });
});
