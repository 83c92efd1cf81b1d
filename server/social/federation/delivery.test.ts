import crypto from 'node:crypto';
import { signRequest } from '@fedify/fedify';
import { Temporal } from '@js-temporal/polyfill';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestNetwork, eventually, type TestInstance, type TestNetwork } from './testing/test-network.ts';

/*
 * Delivery under failure and inbox security, between in-process instances: retries after a 500, a 410 that
 * removes the follower, the RFC 9421 second knock after a 401, and inbox POSTs that are unsigned, forged,
 * too old or about objects the signer does not own.
 */

let net: TestNetwork;
let a: TestInstance;
let b: TestInstance;
let alice: Awaited<ReturnType<TestInstance['createUser']>>;
let bob: Awaited<ReturnType<TestInstance['createUser']>>;

const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';

async function follow(from: Awaited<ReturnType<TestInstance['createUser']>>, handle: string) {
  const target = await from.client.v1.accounts.lookup({ acct: handle });
  await from.client.v1.accounts.$select(target.id).follow();
  await eventually(
    async () => (await from.client.v1.accounts.relationships.fetch({ id: [target.id] }))[0].following,
    `following ${handle}`,
  );
  return target;
}

beforeAll(async () => {
  net = createTestNetwork();
  a = await net.add('a.test');
  b = await net.add('b.test');
  alice = await a.createUser('alice');
  bob = await b.createUser('bob');
  await follow(bob, 'alice@a.test');
  await follow(alice, 'bob@b.test');
});
afterAll(async () => {
  await net?.close();
});

const isInboxPost = (req: Request, host: string) =>
  req.method === 'POST' && new URL(req.url).host === host && new URL(req.url).pathname.endsWith('inbox');

describe('delivery', () => {
  it('knocks again with RFC 9421 when a draft-cavage signature is refused with 401 (first: Fedify remembers what worked per host)', async () => {
    const seen: string[] = [];
    b.intercept = (req) => {
      if (!isInboxPost(req, 'b.test')) return null;
      const scheme = req.headers.has('signature-input') ? 'rfc9421' : 'cavage';
      seen.push(scheme);
      return scheme === 'cavage' ? new Response('unauthorized', { status: 401 }) : null;
    };
    const post = await alice.client.v1.statuses.create({ status: 'second knock', visibility: 'public' });
    await eventually(
      async () => (await bob.client.v1.timelines.home.list()).find((s) => s.uri === post.uri),
      'post delivered with RFC 9421',
    );
    b.intercept = null;
    expect(seen.slice(0, 2)).toEqual(['cavage', 'rfc9421']);
  });

  it('retries a delivery the recipient answered with 500, and it arrives', async () => {
    let failed = 0;
    b.intercept = (req) =>
      isInboxPost(req, 'b.test') && failed++ === 0 ? new Response('down', { status: 500 }) : null;
    const post = await alice.client.v1.statuses.create({ status: 'after a hiccup', visibility: 'public' });
    await eventually(
      async () => (await bob.client.v1.timelines.home.list()).find((s) => s.uri === post.uri),
      'post delivered after the retry',
    );
    b.intercept = null;
    const inboxStatuses = net.log
      .filter((l) => l.method === 'POST' && l.url.startsWith('https://b.test/') && l.url.endsWith('inbox'))
      .map((l) => l.status);
    expect(inboxStatuses).toContain(500);
    expect(inboxStatuses.at(-1)).toBe(202);
  });

  it('stops delivering to a recipient that answers 410 Gone: it no longer follows', async () => {
    const c = await net.add('c.test');
    const dave = await c.createUser('dave');
    await follow(dave, 'alice@a.test');
    expect(
      (await alice.client.v1.accounts.$select(alice.accountId).followers.list()).map((f) => f.acct).sort(),
    ).toEqual(['bob@b.test', 'dave@c.test']);
    c.intercept = (req) => (isInboxPost(req, 'c.test') ? new Response('gone', { status: 410 }) : null);
    await alice.client.v1.statuses.create({ status: 'anyone there?', visibility: 'public' });
    await eventually(
      async () => (await alice.client.v1.accounts.$select(alice.accountId).followers.list()).length === 1,
      'dave dropped after 410',
    );
    expect((await alice.client.v1.accounts.$select(alice.accountId).followers.list()).map((f) => f.acct)).toEqual([
      'bob@b.test',
    ]);
  });
});

describe('inbox security', () => {
  let n = 0;
  function createActivity(objectOverrides: Record<string, unknown> = {}) {
    const id = `https://b.test/users/bob/statuses/9000${++n}`;
    return {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${id}/activity`,
      type: 'Create',
      actor: 'https://b.test/users/bob',
      to: [PUBLIC],
      object: {
        id,
        type: 'Note',
        attributedTo: 'https://b.test/users/bob',
        content: `<p>note ${n}</p>`,
        to: [PUBLIC],
        published: new Date().toISOString(),
        ...objectOverrides,
      },
    };
  }
  async function post(activity: object, sign: { key?: CryptoKey; time?: Temporal.Instant } | null) {
    const body = JSON.stringify(activity);
    let request = new Request('https://a.test/inbox', {
      method: 'POST',
      headers: { 'content-type': 'application/activity+json' },
      body,
    });
    if (sign) {
      const keyId = new URL('https://b.test/users/bob#main-key');
      request = await signRequest(request, sign.key!, keyId, {
        spec: 'draft-cavage-http-signatures-12',
        ...(sign.time ? { currentTime: sign.time as unknown as globalThis.Temporal.Instant } : {}),
      });
    }
    return fetch(request);
  }
  async function bobKey(): Promise<CryptoKey> {
    const pem = b.social.context.store.accounts.keyPair(bob.accountId)!.privateKey!;
    const der = crypto.createPrivateKey(pem).export({ type: 'pkcs8', format: 'der' });
    return crypto.subtle.importKey('pkcs8', der, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, true, ['sign']);
  }
  const stored = (activity: { object: { id: string } }) =>
    a.social.context.store.db.prepare('SELECT 1 FROM statuses WHERE uri = ?').get(activity.object.id) !== undefined;

  it('accepts a correctly signed activity (the control for the refusals below)', async () => {
    const activity = createActivity();
    const res = await post(activity, { key: await bobKey() });
    expect(res.status).toBe(202);
    await eventually(() => stored(activity), 'signed note stored');
  });

  it('refuses unsigned and wrongly signed activities with 401 and stores nothing', async () => {
    const unsigned = createActivity();
    expect((await post(unsigned, null)).status).toBe(401);
    const forged = createActivity();
    const stranger = await crypto.subtle.generateKey(
      { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
      true,
      ['sign', 'verify'],
    );
    expect((await post(forged, { key: stranger.privateKey })).status).toBe(401);
    expect(stored(unsigned) || stored(forged)).toBe(false);
  });

  it('refuses a signature dated outside the one-hour window', async () => {
    const late = createActivity();
    const twoHoursAgo = Temporal.Now.instant().subtract({ hours: 2 });
    expect((await post(late, { key: await bobKey(), time: twoHoursAgo })).status).toBe(401);
    expect(stored(late)).toBe(false);
  });

  it('ignores an activity about an object its signer does not own', async () => {
    const foreign = createActivity({ attributedTo: 'https://a.test/users/alice' });
    const elsewhere = createActivity({ id: 'https://c.test/users/dave/statuses/1' });
    for (const activity of [foreign, elsewhere])
      expect((await post(activity, { key: await bobKey() })).status).toBe(202);
    // A correctly signed note sent afterwards arrives, so the two above had their turn.
    const control = createActivity();
    await post(control, { key: await bobKey() });
    await eventually(() => stored(control), 'control stored');
    expect(stored(foreign) || stored(elsewhere)).toBe(false);
  });
});
