import { signJsonLd } from '@fedify/fedify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { offThreadVerifications } from './inbox-verifier.ts';
import { createTestNetwork, eventually, type TestInstance, type TestNetwork } from './testing/test-network.ts';
import { mastodonCreate } from './testing/activities.ts';
import { createOf, keyOf, listen, rawPost, signedBy, type Target } from './testing/inbox-clients.ts';

/*
 * Mastodon-shaped Creates at a live shared inbox: the verifier's worker reads them with its plain reader and leaves
 * Fedify's reading out (inbox-verifier.ts); the signer must still be the actor, and a Create Fedify's reading
 * refuses is refused as before (the plain reader leaves it to that reading).
 */

const net: TestNetwork = createTestNetwork();
const instances: { a?: TestInstance; b?: TestInstance; aSocket?: Target } = {};

beforeAll(async () => {
  const [a, b] = [await net.add('a.test'), await net.add('b.test')];
  await a.createUser('alice');
  for (const name of ['bob', 'carol']) await b.createUser(name);
  Object.assign(instances, { a, b, aSocket: await listen(a) });
});
afterAll(() => net.close());

const ALICE = 'https://a.test/users/alice';
const BOB = 'https://b.test/users/bob';

let notes = 0;
/** A Create as Mastodon sends one, by `actor`, mentioning alice, with likes. */
function mastodonShaped(actor: string): Record<string, any> {
  const create = mastodonCreate(actor, 900 + ++notes, ALICE, '2026-01-02T03:04:05Z');
  create.object.likes = { id: `${create.object.id}/likes`, type: 'Collection', totalItems: 0 };
  return create;
}

const storedContent = (uri: string) =>
  (
    instances.a!.social.context.store.db.prepare('SELECT content FROM statuses WHERE uri = ?').get(uri) as
      | { content: string }
      | undefined
  )?.content;

/** Delivers `activity` to a's shared inbox, signed over HTTP by `signer` of b.test. */
const deliver = async (activity: Record<string, any>, signer = 'bob') => {
  const body = JSON.stringify(activity);
  return rawPost(
    instances.aSocket!,
    '/inbox',
    await signedBy(instances.b!, signer, 'https://a.test/inbox', body),
    body,
  );
};

/** `create` with the Linked Data signature Mastodon gives public posts, by bob. */
const ldSigned = async (create: Record<string, any>): Promise<Record<string, any>> =>
  signJsonLd(create, await keyOf(instances.b!, 'bob'), new URL(`${BOB}#main-key`), {});

describe("Mastodon's Creates without Fedify's reading in the verifier's worker", () => {
  it('stores them as read by the plain reader, the signer checked against the actor', async () => {
    // Bob's first delivery makes his key known to the intake: the worker verifies the next ones.
    const first = await createOf(BOB, ALICE);
    expect((await deliver(first)).status).toBe(202);
    await eventually(() => storedContent(first.object.id) !== undefined, 'the first Create stored');

    const before = offThreadVerifications.plainReading;
    const create = mastodonShaped(BOB);
    expect((await deliver(create)).status).toBe(202);
    await eventually(() => storedContent(create.object.id) !== undefined, 'the Create stored');
    expect(storedContent(create.object.id)).toContain('@<span>alice</span>');
    expect(offThreadVerifications.plainReading - before).toBe(1);

    // Signed by bob, carol's Create, her as its actor under another term (the intake's look at the plain JSON
    // does not see it): refused as Fedify's reading refused it.
    const carols = mastodonShaped('https://b.test/users/carol');
    carols['@context'] = [...carols['@context'], { by: { '@id': 'as:actor', '@type': '@id' } }];
    carols.by = carols.actor;
    delete carols.actor;
    const answer = await deliver(carols);
    expect([answer.status, answer.text]).toEqual([401, 'The signer and the actor do not match.']);
    expect(storedContent(carols.object.id)).toBeUndefined();
  });

  it("refuses with 400 what Fedify's reading refuses, though the listener would not use it", async () => {
    const create = mastodonShaped(BOB);
    create.object.updated = '2026-02-30T00:00:00Z';
    const answer = await deliver(create);
    expect(answer.status).toBe(400);
    expect(answer.text).toMatch(/^Invalid activity/);
    expect(storedContent(create.object.id)).toBeUndefined();
  });
});

describe("Mastodon's public Creates, with their Linked Data signature", () => {
  it("skip that signature and Fedify's handler when the actor signed the request", async () => {
    const before = offThreadVerifications.plainReading;
    const create = await ldSigned(mastodonShaped(BOB));
    expect((await deliver(create)).status).toBe(202);
    await eventually(() => storedContent(create.object.id) !== undefined, 'the Create stored');
    expect(offThreadVerifications.plainReading - before).toBe(1);
    // A signature that no longer verifies changes nothing then (nor would it for Fedify: the request is signed).
    const altered = await ldSigned(mastodonShaped(BOB));
    altered.object.content = '<p>altered</p>';
    expect((await deliver(altered)).status).toBe(202);
    await eventually(() => storedContent(altered.object.id) === '<p>altered</p>', 'the altered Create stored');
  });

  it('go to Fedify, which checks that signature, when someone else signed the request (a relay)', async () => {
    const before = offThreadVerifications.plainReading;
    const relayed = await ldSigned(mastodonShaped(BOB));
    expect((await deliver(relayed, 'carol')).status).toBe(202);
    await eventually(() => storedContent(relayed.object.id) !== undefined, 'the relayed Create stored');
    const forged = await ldSigned(mastodonShaped(BOB));
    forged.object.content = '<p>forged</p>';
    expect((await deliver(forged, 'carol')).status).toBe(401);
    expect(storedContent(forged.object.id)).toBeUndefined();
    expect(offThreadVerifications.plainReading - before).toBe(0);
  });
});
