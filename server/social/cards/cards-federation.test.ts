import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestNetwork,
  eventually,
  type TestInstance,
  type TestNetwork,
  type NetworkUser as User,
} from '../federation/testing/test-network.ts';
import { startTestSite, type TestSite } from './testing/test-site.ts';

/*
 * Preview cards of posts that arrive through federation: bob (b.test) posts and edits links to a page on
 * loopback; alice's server (a.test, allowed to reach loopback for the test) fetches the card of its own copy,
 * and changes it when bob's edit arrives. Mentions in the remote HTML get no card.
 */

let net: TestNetwork;
let a: TestInstance;
let b: TestInstance;
let site: TestSite;
let alice: User;
let bob: User;

beforeAll(async () => {
  site = await startTestSite();
  net = createTestNetwork();
  a = await net.add('a.test', { previewCards: { allowPrivateAddress: true, timeoutMs: 5_000 } });
  b = await net.add('b.test');
  alice = await a.createUser('alice');
  bob = await b.createUser('bob');
  const bobOnA = (await alice.client.v1.accounts.lookup({ acct: 'bob@b.test' })).id;
  await alice.client.v1.accounts.$select(bobOnA).follow();
  await eventually(
    async () => (await alice.client.v1.accounts.relationships.fetch({ id: [bobOnA] }))[0].following,
    'alice follows bob',
  );
});

afterAll(async () => {
  await net?.close();
  await site?.close();
});

/** Bob's post as alice's server shows it, once it arrived and its card was looked for. */
async function onA(uri: string, until: (status: any) => boolean = () => true): Promise<any> {
  return eventually(async () => {
    await a.social.previewCards.idle();
    const home = await alice.client.v1.timelines.home.list({ limit: 40 });
    const copy = home.find((s) => s.uri === uri);
    return copy && until(copy) ? copy : null;
  }, 'bob’s post on a.test');
}

describe('preview cards of remote posts', () => {
  it('a post from another server gets its card on ours, and an edit there changes it here', async () => {
    const post = await bob.client.v1.statuses.create({ status: `@alice@a.test have a look: ${site.base}/article` });
    const copy = await onA(post.uri, (s) => s.card !== null);
    expect(copy.card).toMatchObject({
      url: `${site.base}/article`,
      title: 'Ducks & geese of the north',
      providerName: 'Bird Weekly',
    });
    expect(copy.card.image.startsWith('https://a.test/system/preview_cards/')).toBe(true);
    // The server that wrote the post keeps its defaults: loopback links get no card there.
    expect((await bob.client.v1.statuses.$select(post.id).fetch()).card).toBeNull();

    await bob.client.v1.statuses
      .$select(post.id)
      .update({ status: `@alice@a.test changed my mind: ${site.base}/other` });
    const edited = await onA(post.uri, (s) => s.card?.title === 'Another page');
    expect(edited.card.url).toBe(`${site.base}/other`);
  });

  it('a remote post whose only links are a mention and a hashtag gets no card, and is not read again for one', async () => {
    const before = site.total();
    const looked = a.social.previewCards.looked();
    const post = await bob.client.v1.statuses.create({ status: '@alice@a.test no links here #quiet' });
    const copy = await onA(post.uri);
    expect(copy.card).toBeNull();
    expect(site.total()).toBe(before);
    expect(a.social.previewCards.looked()).toBe(looked);
  });

  it('a link fetched already gives its stored card to the next remote post, without fetching it again', async () => {
    const first = await bob.client.v1.statuses.create({ status: `@alice@a.test once: ${site.base}/article?again` });
    await onA(first.uri, (s) => s.card !== null);
    const fetched = site.total();
    const looked = a.social.previewCards.looked();
    const second = await bob.client.v1.statuses.create({ status: `@alice@a.test twice: ${site.base}/article?again` });
    const copy = await onA(second.uri, (s) => s.card !== null);
    expect(copy.card.title).toBe('Ducks & geese of the north');
    expect(site.total()).toBe(fetched);
    expect(a.social.previewCards.looked()).toBe(looked + 1);
  });
});
