import { beforeAll, describe, expect, it } from 'vitest';
import { blob, pngImage } from '../testing/media-fixtures.ts';
import { eventually, useFollowingPair, type TestInstance, type NetworkUser as User } from './testing/test-network.ts';

/*
 * Pinned posts across servers: a profile looked up from another server shows its pinned posts (read from
 * the featured collection, stored without entering anyone's home), and pinning or unpinning later reaches
 * followers' servers as Add and Remove.
 */

let c: TestInstance;

const t = useFollowingPair();

beforeAll(async () => {
  c = await t.net.add('c.test');
});

const pinnedTexts = async (user: User, accountId: string) =>
  (await user.client.v1.accounts.$select(accountId).statuses.list({ pinned: true })).map((s) => s.content);

describe('pinned posts across servers', () => {
  it('a profile looked up from another server shows its pinned posts, without putting them in anyone’s home', async () => {
    const old = await t.alice.client.v1.statuses.create({ status: 'about me: pinned before anyone looked' });
    await t.alice.client.v1.statuses.$select(old.id).pin();
    const dave = await c.createUser('dave');
    const found = await dave.client.v2.search.list({ q: 'alice@a.test', resolve: true, type: 'accounts' });
    const aliceOnC = found.accounts[0].id;
    await eventually(
      async () => (await pinnedTexts(dave, aliceOnC)).some((t) => t.includes('pinned before anyone looked')),
      'the pinned post at c',
    );
    expect((await dave.client.v1.timelines.home.list()).length).toBe(0);
    const [pinned] = await dave.client.v1.accounts.$select(aliceOnC).statuses.list({ pinned: true });
    expect(pinned.pinned).toBeFalsy(); // pinned by alice, not by dave
  });

  describe('pinned posts read from the featured collection keep their media’s description, blurhash and focal point', () => {
    /** The Mastodon context of a collection whose items use blurhash and focalPoint (one context, at the top). */
    const MASTODON_CONTEXT = [
      'https://www.w3.org/ns/activitystreams',
      {
        toot: 'http://joinmastodon.org/ns#',
        sensitive: 'as:sensitive',
        blurhash: 'toot:blurhash',
        focalPoint: { '@container': '@list', '@id': 'toot:focalPoint' },
      },
    ];
    const cases: [string, ((collection: any) => unknown) | null][] = [
      ['served by Homeport (each item with its own context)', null],
      // Mastodon: one context on the collection, which defines the terms; the items have none.
      [
        'shaped as Mastodon serves it',
        (collection) => ({
          ...collection,
          '@context': MASTODON_CONTEXT,
          orderedItems: collection.orderedItems.map(({ '@context': _, ...item }: any) => item),
        }),
      ],
      // Plain keys the context does not define (read as Mastodon, Misskey and Akkoma read them, without JSON-LD).
      [
        'with blurhash and focalPoint its context does not define',
        (collection) => ({
          ...collection,
          '@context': 'https://www.w3.org/ns/activitystreams',
          orderedItems: collection.orderedItems.map(
            ({ '@context': _, interactionPolicy: __, sensitive: ___, ...item }: any) => item,
          ),
        }),
      ],
    ];
    let n = 0;
    for (const [name, rewrite] of cases) {
      it(name, async () => {
        const media = await t.alice.client.v2.media.create({
          file: blob(await pngImage(640, 480), 'image/png'),
          description: `a pinned picture ${++n}`,
          focus: '-0.4,0.6',
        });
        expect(media.blurhash).toBeTruthy();
        const post = await t.alice.client.v1.statuses.create({
          status: `pinned with a picture ${n}`,
          mediaIds: [media.id],
        });
        await t.alice.client.v1.statuses.$select(post.id).pin();
        t.a.intercept = rewrite
          ? async (req) => {
              if (req.method !== 'GET' || !req.url.endsWith('/users/alice/collections/featured')) return null;
              t.a.intercept = null;
              const served = await fetch(req.url, { headers: req.headers });
              const json = rewrite(await served.json());
              return new Response(JSON.stringify(json), { headers: { 'content-type': 'application/activity+json' } });
            }
          : null;
        // A server that has never seen alice: the post reaches it only inside her featured collection.
        const fresh = await t.net.add(`fresh${n}.test`);
        const reader = await fresh.createUser('fay');
        const aliceThere = (await reader.client.v2.search.list({ q: 'alice@a.test', resolve: true, type: 'accounts' }))
          .accounts[0].id;
        const pinned = await eventually(
          async () =>
            (await reader.client.v1.accounts.$select(aliceThere).statuses.list({ pinned: true })).find((s) =>
              s.content.includes(`pinned with a picture ${n}`),
            ),
          'the pinned post on the new server',
        );
        t.a.intercept = null;
        expect(pinned.mediaAttachments).toHaveLength(1);
        expect(pinned.mediaAttachments[0]).toMatchObject({
          description: `a pinned picture ${n}`,
          blurhash: media.blurhash,
          remoteUrl: media.url,
        });
        expect(pinned.mediaAttachments[0].meta).toMatchObject({
          focus: { x: -0.4, y: 0.6 },
          original: { width: 640, height: 480 },
        });
        await t.alice.client.v1.statuses.$select(post.id).unpin(); // Mastodon's limit is five pins
      });
    }
  });

  it('pinning and unpinning reach followers’ servers', async () => {
    const first = await t.alice.client.v1.statuses.create({ status: 'first to pin' });
    const second = await t.alice.client.v1.statuses.create({ status: 'second to pin' });
    await eventually(
      async () => (await t.bob.client.v1.timelines.home.list()).some((s) => s.content.includes('second to pin')),
      'the posts at b',
    );
    await t.alice.client.v1.statuses.$select(first.id).pin();
    await t.alice.client.v1.statuses.$select(second.id).pin();
    await eventually(async () => {
      const texts = await pinnedTexts(t.bob, t.aliceOnB);
      return texts.some((t) => t.includes('first to pin')) && texts.some((t) => t.includes('second to pin'));
    }, 'both pins at b');
    await t.alice.client.v1.statuses.$select(first.id).unpin();
    await eventually(
      async () => !(await pinnedTexts(t.bob, t.aliceOnB)).some((t) => t.includes('first to pin')),
      'the unpin at b',
    );
    expect((await pinnedTexts(t.bob, t.aliceOnB)).some((t) => t.includes('second to pin'))).toBe(true);
  });

  it('featured hashtags reach followers’ servers and profiles looked up later', async () => {
    await t.alice.client.v1.featuredTags.create({ name: 'Sailing' });
    const featuredAt = async (user: User, id: string) =>
      (await user.client.v1.accounts.$select(id).featuredTags.list()).map((t) => t.name);
    await eventually(async () => (await featuredAt(t.bob, t.aliceOnB)).includes('Sailing'), 'the featured tag at b');
    // A server that has never seen alice reads them with her profile.
    const d = await t.net.add('d.test');
    const erin = await d.createUser('erin');
    const aliceOnD = (await erin.client.v2.search.list({ q: 'alice@a.test', resolve: true, type: 'accounts' }))
      .accounts[0].id;
    await eventually(async () => (await featuredAt(erin, aliceOnD)).includes('Sailing'), 'the featured tag at d');
    const [featured] = await t.alice.client.v1.featuredTags.list();
    await t.alice.client.v1.featuredTags.$select(featured.id).remove();
    await eventually(async () => (await featuredAt(t.bob, t.aliceOnB)).length === 0, 'the tag no longer featured at b');
  });
});
