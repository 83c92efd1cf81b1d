import { describe, expect, it } from 'vitest';
import { eventually, useFollowingPair } from './testing/test-network.ts';

/*
 * Custom emojis across servers: a post using one of a.test's emojis lists it in `emojis` (with its image)
 * there and at b.test, which learns it from the Emoji tag; b.test's own emoji of the same name stays apart.
 */

const t = useFollowingPair();

describe('custom emojis across servers', () => {
  it('a post’s emojis travel with it and keep their origin', async () => {
    t.a.social.context.store.emojis.put({
      shortcode: 'homeport',
      imagePath: 'emojis/homeport.png',
      staticPath: 'emojis/homeport.png',
      category: null,
      visibleInPicker: true,
    });
    t.b.social.context.store.emojis.put({
      shortcode: 'homeport',
      imagePath: 'emojis/other.png',
      staticPath: 'emojis/other.png',
      category: null,
      visibleInPicker: true,
    });
    const posted = await t.alice.client.v1.statuses.create({ status: 'hello :homeport: and :nothing_here:' });
    const expected = {
      shortcode: 'homeport',
      url: 'https://a.test/system/emojis/homeport.png',
      staticUrl: 'https://a.test/system/emojis/homeport.png',
      visibleInPicker: true,
    };
    expect(posted.emojis).toEqual([expected]);

    const seen = await eventually(
      async () => (await t.bob.client.v1.timelines.home.list()).find((s) => s.content.includes('hello')),
      'the post at b',
    );
    expect(seen.emojis).toEqual([{ ...expected, visibleInPicker: false }]);
    // b.test's picker lists only its own emoji.
    expect((await t.bob.client.v1.customEmojis.list()).map((e) => e.url)).toEqual([
      'https://b.test/system/emojis/other.png',
    ]);
    // A post on b.test with the same name uses b.test's image.
    const own = await t.bob.client.v1.statuses.create({ status: 'mine :homeport:' });
    expect(own.emojis.map((e) => e.url)).toEqual(['https://b.test/system/emojis/other.png']);
  });

  it('a profile’s emojis travel with its Update', async () => {
    // An emoji b.test has not seen in any post: only the profile's Emoji tag can teach it.
    t.a.social.context.store.emojis.put({
      shortcode: 'alicecat',
      imagePath: 'emojis/alicecat.png',
      staticPath: 'emojis/alicecat.png',
      category: null,
      visibleInPicker: true,
    });
    const me = await t.alice.client.v1.accounts.updateCredentials({ displayName: 'Alice :alicecat:' });
    expect(me.emojis.map((e) => e.shortcode)).toEqual(['alicecat']);
    const aliceOnB = (await t.bob.client.v1.accounts.lookup({ acct: 'alice@a.test' })).id;
    const seen = await eventually(async () => {
      const account = await t.bob.client.v1.accounts.$select(aliceOnB).fetch();
      return account.displayName === 'Alice :alicecat:' ? account : null;
    }, 'the new name at b');
    expect(seen.emojis.map((e) => e.url)).toEqual(['https://a.test/system/emojis/alicecat.png']);
  });
});
