import { describe, expect, it } from 'vitest';
import { useSocialTestServer } from '../../testing/use-server.ts';

/* Hashtags through masto.js: a tag's page, following one (its public posts come into home), featuring tags on a profile. */

const t = useSocialTestServer('alice', 'bob');

describe('hashtags', () => {
  it('are followed: public posts with them reach home, others do not; unfollowing stops that', async () => {
    const client = t.server.masto(t.alice.token);
    const followed = await client.v1.tags.$select('Sailing').follow();
    expect(followed).toMatchObject({ name: 'Sailing', following: true });
    expect(followed.history).toHaveLength(7);
    const tagged = await t.server.masto(t.bob.token).v1.statuses.create({ status: 'out on the water #sailing' });
    const quiet = await t.server
      .masto(t.bob.token)
      .v1.statuses.create({ status: 'unlisted #sailing', visibility: 'unlisted' });
    const other = await t.server.masto(t.bob.token).v1.statuses.create({ status: 'nothing tagged' });
    const home = (await client.v1.timelines.home.list()).map((s) => s.id);
    expect(home).toContain(tagged.id);
    expect(home).not.toContain(quiet.id);
    expect(home).not.toContain(other.id);
    expect((await client.v1.followedTags.list()).map((tag) => tag.name)).toEqual(['Sailing']);
    expect((await client.v1.tags.$select('sailing').fetch()).following).toBe(true);

    await client.v1.tags.$select('sailing').unfollow();
    const later = await t.server.masto(t.bob.token).v1.statuses.create({ status: 'again #sailing' });
    expect((await client.v1.timelines.home.list()).map((s) => s.id)).not.toContain(later.id);
    expect(await client.v1.followedTags.list()).toEqual([]);
    expect((await client.v1.tags.$select('sailing').fetch()).following).toBe(false);
  });

  it('answers 404 for a tag never used and a name that is no tag', async () => {
    await expect(t.server.masto(t.alice.token).v1.tags.$select('neverused').fetch()).rejects.toMatchObject({
      statusCode: 404,
    });
    const bad = await t.server.fetch(`${t.server.url}/api/v1/tags/${encodeURIComponent('no spaces')}`);
    expect(bad.status).toBe(404);
  });

  it('are featured on a profile, with the account’s own use of them, up to ten', async () => {
    const client = t.server.masto(t.bob.token);
    const featured = await client.v1.featuredTags.create({ name: '#sailing' });
    // Its name as first written; three of bob's public or unlisted posts use it.
    expect(featured).toMatchObject({ name: 'Sailing', statusesCount: '3' });
    expect(featured.url).toMatch(/\/@bob\/tagged\/sailing$/);
    expect(
      (await t.server.masto(t.alice.token).v1.accounts.$select(t.bob.accountId).featuredTags.list()).map(
        (tag) => tag.name,
      ),
    ).toEqual(['Sailing']);
    await t.server.masto(t.bob.token).v1.statuses.create({ status: 'bread #baking' });
    expect((await client.v1.featuredTags.suggestions.list()).map((tag) => tag.name)).toEqual(['baking']);
    for (let i = 0; i < 9; i++) await client.v1.featuredTags.create({ name: `tag${i}` });
    await expect(client.v1.featuredTags.create({ name: 'eleventh' })).rejects.toMatchObject({ statusCode: 422 });
    await client.v1.featuredTags.$select(featured.id).remove();
    expect((await client.v1.featuredTags.list()).map((tag) => tag.name)).not.toContain('Sailing');
  });

  it('tell the signed-in viewer whether they feature them (Tag.featuring), everywhere a Tag is shown', async () => {
    const carol = await t.server.createUser('carol');
    await t.server.masto(carol.token).v1.statuses.create({ status: 'knots #rigging' });
    const featured = await t.server.call(carol.token, 'POST', '/api/v1/tags/rigging/feature');
    expect(featured.body).toMatchObject({ name: 'rigging', following: false, featuring: true });
    expect((await t.server.call(carol.token, 'GET', '/api/v1/tags/rigging')).body.featuring).toBe(true);
    expect((await t.server.call(t.alice.token, 'GET', '/api/v1/tags/rigging')).body.featuring).toBe(false);
    const anonymous = (await t.server.call(null, 'GET', '/api/v1/tags/rigging')).body;
    expect('featuring' in anonymous || 'following' in anonymous).toBe(false);
    const found = await t.server.call(carol.token, 'GET', '/api/v2/search?q=%23rigging&type=hashtags');
    expect(found.body.hashtags).toMatchObject([{ name: 'rigging', featuring: true }]);
    const unfeatured = await t.server.call(carol.token, 'POST', '/api/v1/tags/rigging/unfeature');
    expect(unfeatured.body).toMatchObject({ name: 'rigging', featuring: false });
  });
});
