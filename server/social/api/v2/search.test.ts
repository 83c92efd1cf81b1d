import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSocialTestServer, type SocialTestServer, type TestUser } from '../../testing/harness.ts';

/*
 * /api/v2/search through masto.js and fetch: accounts, hashtags (with a week of history) and full-text
 * statuses scoped as Mastodon scopes them, the anonymous restrictions of the seed, blocks, and the index
 * following edits.
 */

let server: SocialTestServer;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let dave: TestUser;

beforeAll(async () => {
  server = await startSocialTestServer();
  [alice, bob, carol, dave] = await Promise.all(
    ['alice', 'bob', 'carol', 'dave'].map((name) => server.createUser(name)),
  );
  await server.createUser('pending', { confirmed: false });
});

afterAll(async () => {
  await server?.close();
});

async function anonymous(query: string): Promise<{
  status: number;
  body: { accounts: { acct: string }[]; hashtags: { name: string }[]; statuses: unknown[]; error?: string };
}> {
  const res = await server.fetch(`${server.url}/api/v2/search?${query}`);
  return { status: res.status, body: (await res.json()) as never };
}

describe('search v2', () => {
  it('finds accounts, leaving out blocked and unconfirmed ones, with exact matches only for short anonymous queries', async () => {
    const client = server.masto(alice.token);
    expect((await client.v2.search.list({ q: 'ali', type: 'accounts' })).accounts.map((a) => a.acct)).toEqual([
      'alice',
    ]);
    expect((await client.v2.search.list({ q: '@bob', type: 'accounts' })).accounts.map((a) => a.acct)).toEqual(['bob']);
    expect((await client.v2.search.list({ q: 'pending', type: 'accounts' })).accounts).toEqual([]);
    expect((await anonymous('q=ali')).body.accounts).toEqual([]);
    expect((await anonymous('q=bob')).body.accounts.map((a) => a.acct)).toEqual(['bob']);
    expect((await anonymous('q=alice')).body.accounts.map((a) => a.acct)).toEqual(['alice']);
    await server.masto(carol.token).v1.accounts.$select(alice.accountId).block();
    expect((await client.v2.search.list({ q: 'carol', type: 'accounts' })).accounts).toEqual([]);
    await server.masto(carol.token).v1.accounts.$select(alice.accountId).unblock();
    expect((await client.v2.search.list({ q: 'carol', type: 'accounts' })).accounts.map((a) => a.acct)).toEqual([
      'carol',
    ]);
  });

  it('finds hashtags by prefix, the exact one first, with the uses of the last seven days', async () => {
    await server.masto(bob.token).v1.statuses.create({ status: 'dinner #HomeCooking' });
    await server.masto(dave.token).v1.statuses.create({ status: 'running #homeport and #homecooking' });
    const found = await server.masto(alice.token).v2.search.list({ q: '#homeport', type: 'hashtags' });
    expect(found.hashtags.map((t) => t.name)).toEqual(['homeport']);
    const prefix = await server.masto(alice.token).v2.search.list({ q: 'home', type: 'hashtags' });
    expect(prefix.hashtags.map((t) => t.name.toLowerCase()).sort()).toEqual(['homecooking', 'homeport']);
    const cooking = prefix.hashtags.find((t) => t.name.toLowerCase() === 'homecooking')!;
    expect(cooking.history).toHaveLength(7);
    expect(cooking.history![0]).toMatchObject({ uses: '2', accounts: '2' });
    expect(cooking.history!.slice(1).every((d) => d.uses === '0')).toBe(true);
    expect((await anonymous('q=home&type=hashtags')).body.hashtags).toEqual([]);
  });

  it('searches the text of statuses a user may search: own, favourited, bookmarked, mentioning them', async () => {
    const own = await server.masto(alice.token).v1.statuses.create({ status: 'the quick brown fox' });
    const favourited = await server.masto(bob.token).v1.statuses.create({ status: 'quick silver' });
    const bookmarked = await server
      .masto(carol.token)
      .v1.statuses.create({ status: 'a quick café stop', spoilerText: 'coffee' });
    const mentioning = await server.masto(dave.token).v1.statuses.create({ status: '@alice quick question' });
    const stranger = await server.masto(dave.token).v1.statuses.create({ status: 'quick thinking' });
    await server.masto(alice.token).v1.statuses.$select(favourited.id).favourite();
    await server.masto(alice.token).v1.statuses.$select(bookmarked.id).bookmark();
    const client = server.masto(alice.token);
    const ids = async (q: string, extra: Record<string, unknown> = {}) =>
      (await client.v2.search.list({ q, type: 'statuses', ...extra })).statuses.map((s) => s.id);
    expect(await ids('quick')).toEqual([mentioning.id, bookmarked.id, favourited.id, own.id]);
    expect(await ids('quick')).not.toContain(stranger.id);
    expect(await ids('cafe')).toEqual([bookmarked.id]);
    expect(await ids('coffee')).toEqual([bookmarked.id]);
    expect(await ids('quick', { accountId: bob.accountId })).toEqual([favourited.id]);
    expect(await ids('quick', { limit: 2 })).toEqual([mentioning.id, bookmarked.id]);
    expect(await ids('quick', { limit: 2, offset: 2 })).toEqual([favourited.id, own.id]);
    expect(await ids('quick', { maxId: bookmarked.id })).toEqual([favourited.id, own.id]);
    // Quotes and operators in the query are words, not syntax.
    expect(await ids('"quick" OR NOT')).toEqual([]);

    await client.v1.statuses.$select(own.id).update({ status: 'a slow turtle' });
    expect(await ids('fox')).toEqual([]);
    expect(await ids('turtle')).toEqual([own.id]);
    await client.v1.statuses.$select(own.id).remove();
    expect(await ids('turtle')).toEqual([]);
    expect((await anonymous('q=quick&type=statuses')).body.statuses).toEqual([]);
  });

  it('finds a status by its address', async () => {
    const post = await server.masto(bob.token).v1.statuses.create({ status: 'find me by link' });
    const found = await server.masto(dave.token).v2.search.list({ q: post.url!, type: 'statuses' });
    expect(found.statuses.map((s) => s.id)).toEqual([post.id]);
    const byUri = await server.masto(dave.token).v2.search.list({ q: post.uri, type: 'statuses' });
    expect(byUri.statuses.map((s) => s.id)).toEqual([post.id]);
    const secret = await server
      .masto(bob.token)
      .v1.statuses.create({ status: 'followers only', visibility: 'private' });
    expect((await server.masto(dave.token).v2.search.list({ q: secret.url!, type: 'statuses' })).statuses).toEqual([]);
  });

  it('refuses resolving and paging without a token, and bad parameters with 422', async () => {
    expect((await anonymous('q=bob%40elsewhere.example&resolve=true')).status).toBe(401);
    expect((await anonymous('q=bobby&offset=5')).status).toBe(401);
    const bad = await server.fetch(`${server.url}/api/v2/search?q=x&type=everything`, {
      headers: { Authorization: `Bearer ${alice.token}` },
    });
    expect(bad.status).toBe(422);
    const missing = await server.fetch(`${server.url}/api/v2/search`, {
      headers: { Authorization: `Bearer ${alice.token}` },
    });
    // A missing required parameter is a 400, as Mastodon's (ParameterMissing).
    expect(missing.status).toBe(400);
  });
});
