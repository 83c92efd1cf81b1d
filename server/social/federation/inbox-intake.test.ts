import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixturePath } from '../testing/fixtures.ts';
import { objectTurnWaits } from './inbound-object-locks.ts';
import { DEFAULT_INBOX_LIMITS } from './inbox-limits.ts';
import { reusedExpansions } from './inbox-expansions.ts';
import { plainCreatesHandled } from './inbox-plain-listener.ts';
import { offThreadContextReads, offThreadVerifications } from './inbox-verifier.ts';
import { fallbackContextReads } from './loaders.ts';
import { createTestNetwork, eventually, type TestInstance, type TestNetwork } from './testing/test-network.ts';
import {
  createOf,
  keyOf,
  listen,
  rawGet,
  rawPost,
  signedBy,
  signedHeaders,
  signingKey,
  strangerKey,
  type Target,
} from './testing/inbox-clients.ts';

/*
 * The attacks of issues 25 and 32 replayed against live instances: inbox POSTs with the wrong content type,
 * without a signature, too large, or carrying a Linked Data signature over a big body (Fedify's inbox handler
 * runs JSON-LD on those before it checks the HTTP signature), and large verified ones (inbox-queue.test.ts
 * floods the queue). Refusals by headers are sent over a real socket with the body held back: the answer comes without it.
 */

const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';
/** A JSON-LD context no preloaded set has: its reads (as the fallback context) count Fedify's JSON-LD work on a body. */
const COUNTED_CONTEXT = 'https://contexts.test/extra.jsonld';

let net: TestNetwork;
let a: TestInstance;
let b: TestInstance;
let aSocket: Target;

beforeAll(async () => {
  net = createTestNetwork();
  a = await net.add('a.test');
  b = await net.add('b.test');
  await a.createUser('alice');
  await b.createUser('bob');
  aSocket = await listen(a);
});
afterAll(async () => {
  await net?.close();
});

const BOB = 'https://b.test/users/bob';
const contextReads = () => fallbackContextReads.count;

const signedByBob = (url: string, body: string) => signedBy(b, 'bob', url, body);

const post = (path: string, headers: Record<string, string>, body: string | null, length?: number) =>
  rawPost(aSocket, path, headers, body, length);

/**
 * A public Create from bob with `tags` hashtags, carrying a Linked Data signature block (as Mastodon adds to
 * public posts; its value is not checked before the HTTP signature) and a context only fetching can read.
 */
async function bigCreate(tags: number): Promise<string> {
  const create = await createOf(BOB, PUBLIC);
  const tag = Array.from({ length: tags }, (_, i) => ({
    type: 'Hashtag',
    href: `https://b.test/tags/t${i}`,
    name: `#t${i}`,
  }));
  return JSON.stringify({
    ...create,
    object: { ...create.object, tag },
    '@context': [create['@context'], COUNTED_CONTEXT].flat(),
    signature: {
      type: 'RsaSignature2017',
      creator: 'https://b.test/users/bob#main-key',
      created: new Date().toISOString(),
      signatureValue: Buffer.from('not a signature').toString('base64'),
    },
  });
}

describe('the body bound', () => {
  it('is 15 times the largest activity other servers sent in the fixtures corpus (17 KB)', () => {
    const corpus = fixturePath('activitypub-rebased');
    const sizes = (fs.readdirSync(corpus, { recursive: true }) as string[])
      .filter((f) => f.endsWith('.json'))
      .map((f) => fs.statSync(path.join(corpus, f)).size);
    expect(sizes.length).toBeGreaterThan(100);
    expect(Math.max(...sizes)).toBe(17_303);
    expect(DEFAULT_INBOX_LIMITS.bodyBytes).toBeGreaterThan(15 * Math.max(...sizes));
  });
});

describe('refused by headers, before the body is read', () => {
  it('answers text/plain (what any web page can post) with 415, unsigned with 401, oversize with 413', async () => {
    const plain = await post('/users/alice/inbox', { 'content-type': 'text/plain' }, null, 700_000);
    expect(plain.status).toBe(415);
    const form = await post('/inbox', { 'content-type': 'application/x-www-form-urlencoded' }, null, 700_000);
    expect(form.status).toBe(415);

    const unsigned = await post('/users/alice/inbox', { 'content-type': 'application/activity+json' }, null, 700_000);
    expect(unsigned.status).toBe(401);

    const body = await bigCreate(1);
    const signed = await signedByBob('https://a.test/inbox', body);
    const huge = await post('/inbox', signed, null, 3_100_000);
    expect(huge.status).toBe(413);
  });

  it('takes both ActivityStreams types, application/ld+json with its profile too', async () => {
    const ld = 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"';
    for (const type of ['application/activity+json', ld]) {
      const body = JSON.stringify(await createOf(BOB, PUBLIC));
      const headers = await signedHeaders(
        'https://a.test/inbox',
        body,
        await keyOf(b, 'bob'),
        `https://b.test/users/bob#main-key`,
        type,
      );
      expect((await post('/inbox', headers, body)).status).toBe(202);
    }
  });

  it('answers a 3.1 MB signed activity sent in full with 413', async () => {
    const body = await bigCreate(45_000);
    expect(Buffer.byteLength(body)).toBeGreaterThan(3_000_000);
    const signed = await signedByBob('https://a.test/inbox', body);
    expect((await post('/inbox', signed, body)).status).toBe(413);
  });
});

describe('no JSON-LD before the HTTP signature verifies', () => {
  it('refuses 10 unsigned and 10 wrongly signed big LD-signed Creates without JSON-LD work, while other requests are answered', async () => {
    const bodies = await Promise.all(Array.from({ length: 20 }, () => bigCreate(3_400)));
    expect(Buffer.byteLength(bodies[0])).toBeGreaterThan(200_000);
    expect(Buffer.byteLength(bodies[0])).toBeLessThan(256 * 1024);
    const stranger = await strangerKey();
    const requests = await Promise.all(
      bodies.map(async (body, i) => ({
        body,
        headers:
          i < 10
            ? { 'content-type': 'application/activity+json' }
            : await signedHeaders(
                'https://a.test/users/alice/inbox',
                body,
                stranger,
                'https://b.test/users/bob#main-key',
              ),
      })),
    );
    const fetchesBefore = contextReads();
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const answers = Promise.all(requests.map((r) => post('/users/alice/inbox', r.headers, r.body)));
    const profile = rawGet(aSocket, '/users/alice');
    const statuses = (await answers).map((r) => r.status);
    delay.disable();
    expect(statuses).toEqual(Array(20).fill(401));
    expect(await profile).toBe(200);
    // Fedify's JSON-LD processing of these bodies would have loaded their context: it never did.
    expect(contextReads()).toBe(fetchesBefore);
    // Generous (a first key fetch and a loaded machine take some): Fedify's JSON-LD on these bodies held the
    // event loop for over a minute in all.
    expect(delay.max / 1e6).toBeLessThan(2_000);
  });

  it('refuses a Create for another domain’s actor, signed with a real key, before Fedify reads it', async () => {
    const DAVE = 'https://c.test/users/dave';
    const create = await createOf(DAVE, PUBLIC);
    const body = JSON.stringify({ ...create, '@context': [create['@context'], COUNTED_CONTEXT].flat() });
    const fetchesBefore = contextReads();
    const answer = await post('/users/alice/inbox', await signedByBob('https://a.test/users/alice/inbox', body), body);
    expect(answer.status).toBe(401);
    expect(contextReads()).toBe(fetchesBefore);
    const stored = a.social.context.store.db.prepare('SELECT 1 FROM statuses WHERE uri = ?').get(create.object.id);
    expect(stored).toBeUndefined();
  });

  it('hands a verified activity to Fedify, which reads its JSON-LD (the counter above counts real work)', async () => {
    const body = await bigCreate(1);
    const headers = await signedByBob('https://a.test/users/alice/inbox', body);
    const fetchesBefore = contextReads();
    const answer = await post('/users/alice/inbox', headers, body);
    expect(answer.status).toBe(202);
    expect(contextReads()).toBeGreaterThan(fetchesBefore);
  });
});

describe('large activities, one at a time', () => {
  it('hands verified bodies over 32 KiB to Fedify one at a time, defers them past 4 waiting, while small ones pass', async () => {
    // Sam's large posts carry a Linked Data signature whose key Fedify fetches from slow.test, which answers
    // only once `release` is called: the first one Fedify reads holds the lane.
    const SAM = 'https://sam.test/users/sam';
    const pair = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
    const publicKeyPem = pair.publicKey.export({ type: 'spki', format: 'pem' });
    net.addRemote('sam.test', () =>
      Response.json(
        {
          '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
          id: SAM,
          type: 'Person',
          preferredUsername: 'sam',
          inbox: `${SAM}/inbox`,
          publicKey: { id: `${SAM}#main-key`, owner: SAM, publicKeyPem },
        },
        { headers: { 'content-type': 'application/activity+json' } },
      ),
    );
    let release: () => void = () => {};
    const keyServed = new Promise<void>((resolve) => (release = resolve));
    let ldKeyFetches = 0;
    net.addRemote('slow.test', async () => {
      ldKeyFetches++;
      await keyServed;
      return new Response('not found', { status: 404 });
    });
    const samKey = await signingKey(pair.privateKey);
    const large = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const body = JSON.stringify({
          '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
          id: `${SAM}/statuses/${i}/activity`,
          type: 'Create',
          actor: SAM,
          object: {
            id: `${SAM}/statuses/${i}`,
            type: 'Note',
            attributedTo: SAM,
            content: `<p>${'long '.repeat(8_000)}</p>`,
          },
          signature: {
            type: 'RsaSignature2017',
            creator: 'https://slow.test/keys/held',
            created: new Date().toISOString(),
            signatureValue: Buffer.from('not a signature').toString('base64'),
          },
        });
        expect(Buffer.byteLength(body)).toBeGreaterThan(32 * 1024);
        return new Request('https://a.test/inbox', {
          method: 'POST',
          headers: await signedHeaders('https://a.test/inbox', body, samKey, `${SAM}#main-key`),
          body,
        });
      }),
    );
    const answered: number[] = [];
    const answers = large.map((r) => fetch(r).then((res) => (answered.push(res.status), res)));
    await eventually(() => answered.length === 1, 'the sixth large delivery answered');
    const deferred = (await Promise.race(answers.map((p) => p.then((res) => (res.status === 503 ? res : null)))))!;
    expect(deferred.headers.get('retry-after')).toBe('60');
    // The lane is held by one: small deliveries still pass.
    const small = await bigCreate(1);
    expect((await post('/inbox', await signedByBob('https://a.test/inbox', small), small)).status).toBe(202);
    expect(answered).toEqual([503]);
    expect(ldKeyFetches).toBe(1);
    release();
    expect((await Promise.all(answers)).map((r) => r.status).sort()).toEqual([202, 202, 202, 202, 202, 503]);
  });
});

describe('verified shared-inbox deliveries, queued without a second verification', () => {
  const ALICE = 'https://a.test/users/alice';
  const CAROL = 'https://c.test/users/carol';
  const storedStatus = (uri: string) =>
    a.social.context.store.db.prepare('SELECT account_id FROM statuses WHERE uri = ?').get(uri);

  it('stores Creates signed by their actor, verified in the worker thread once the key is known', async () => {
    const [verifiedBefore, ownBefore] = [offThreadVerifications.count, offThreadVerifications.ownCheck];
    for (let i = 0; i < 2; i++) {
      const create = await createOf(BOB, ALICE);
      const body = JSON.stringify(create);
      const answer = await post('/inbox', await signedByBob('https://a.test/inbox', body), body);
      expect(answer.status).toBe(202);
      await eventually(() => storedStatus(create.object.id) !== undefined, 'the Create stored');
    }
    // Bob's key was fetched by earlier deliveries: both were verified off the main thread, by the worker's own
    // check (inbox-signature.ts) rather than Fedify's.
    expect(offThreadVerifications.count - verifiedBefore).toBe(2);
    expect(offThreadVerifications.ownCheck - ownBefore).toBe(2);
  });

  /** Delivers `create` with a context only the fallback reads (each expansion loads it once: counted). */
  const deliverCounted = async (create: Record<string, any>) => {
    const body = JSON.stringify({ ...create, '@context': [create['@context'], COUNTED_CONTEXT].flat() });
    const before = { reads: contextReads(), worker: offThreadContextReads.count, reused: reusedExpansions.count };
    const plainBefore = plainCreatesHandled.count;
    const answer = await post('/inbox', await signedByBob('https://a.test/inbox', body), body);
    expect(answer.status).toBe(202);
    await eventually(() => storedStatus(create.object.id) !== undefined, 'the Create stored');
    const workerReads = offThreadContextReads.count - before.worker;
    return {
      workerReads,
      mainReads: contextReads() - before.reads - workerReads,
      reused: reusedExpansions.count - before.reused,
      plain: plainCreatesHandled.count - plainBefore,
    };
  };

  it("stores a plain Create from the worker's reading: no JSON-LD, no Fedify reading on the main thread", async () => {
    // The worker expanded it once; the main thread read none of it (no copy of the expansion either).
    expect(await deliverCounted(await createOf(BOB, ALICE))).toEqual({
      workerReads: 1,
      mainReads: 0,
      reused: 0,
      plain: 1,
    });
  });

  it("reads another Create on the main thread from the worker's expansion, not with JSON-LD again", async () => {
    const create = await createOf(BOB, ALICE);
    // An attachment: not a plain Create (inbox-plain-create.ts), Fedify reads it.
    create.object.attachment = [{ type: 'Document', mediaType: 'image/png', url: 'https://b.test/media/1.png' }];
    // The main thread's reading (Activity, then Create) took copies of the worker's expansion.
    expect(await deliverCounted(create)).toEqual({ workerReads: 1, mainReads: 0, reused: 2, plain: 0 });
  });

  it('refuses an activity whose context renames `actor`: JSON-LD reads another actor than the signer', async () => {
    // The plain JSON's actor is bob (the signer), but the inline context makes `actor` a term of no meaning and
    // `sender` ActivityStreams' actor: read as JSON-LD, the Create is carol's.
    const create = await createOf(CAROL, ALICE);
    const body = JSON.stringify({
      ...create,
      '@context': [
        create['@context'],
        { actor: 'https://attack.test/ns#actor', sender: { '@id': 'as:actor', '@type': '@id' } },
      ].flat(),
      actor: BOB,
      sender: CAROL,
    });
    const answer = await post('/inbox', await signedByBob('https://a.test/inbox', body), body);
    expect(answer.status).toBe(401);
    expect(answer.text).toBe('The signer and the actor do not match.');
    expect(storedStatus(create.object.id)).toBeUndefined();
  });

  it('refuses a body changed after it was signed, and a body that is no activity', async () => {
    const create = await createOf(BOB, ALICE);
    const signed = await signedByBob('https://a.test/inbox', JSON.stringify(create));
    const changed = JSON.stringify({ ...create, object: { ...create.object, content: '<p>changed</p>' } });
    expect((await post('/inbox', signed, changed)).status).toBe(401);
    expect(storedStatus(create.object.id)).toBeUndefined();

    const notJsonLd = JSON.stringify({ '@context': 42, type: 'Create', actor: BOB });
    const answer = await post('/inbox', await signedByBob('https://a.test/inbox', notJsonLd), notJsonLd);
    expect(answer.status).toBe(400);
  });
});

describe('a Create and an Update of one post, whatever their order', () => {
  const ALICE = 'https://a.test/users/alice';
  const EDITED = '<p>edited</p>';
  const contentOf = (uri: string) =>
    (a.social.context.store.db.prepare('SELECT content FROM statuses WHERE uri = ?').get(uri) as { content: string })
      ?.content;
  /** Activities about `uri` still queued for their listeners. */
  const queuedAbout = (uri: string) =>
    Number(
      (
        a.social.context.store.db
          .prepare(
            `SELECT COUNT(*) AS n FROM federation_queue WHERE json_extract(message, '$.type') = 'inbox'
             AND json_extract(message, '$.activity.object.id') = ?`,
          )
          .get(uri) as { n: number | bigint }
      ).n,
    );
  const updateOf = (create: Record<string, any>) => ({
    ...create,
    id: `${create.object.id}#updates/1`,
    type: 'Update',
    object: { ...create.object, content: EDITED },
  });
  const deliver = async (activity: Record<string, any>) => {
    const body = JSON.stringify(activity);
    return (await post('/inbox', await signedByBob('https://a.test/inbox', body), body)).status;
  };

  it('creates a post from an Update that came before its Create, which then changes nothing', async () => {
    const create = await createOf(BOB, ALICE);
    expect(await deliver(updateOf(create))).toBe(202);
    await eventually(() => contentOf(create.object.id) === EDITED, 'the post, created from its Update');
    expect(await deliver(create)).toBe(202);
    await eventually(() => queuedAbout(create.object.id) === 0, 'the Create handled');
    expect(contentOf(create.object.id)).toBe(EDITED);
  });

  it('drops the Create and the Update of a post its author deleted before they arrived', async () => {
    const create = await createOf(BOB, ALICE);
    const uri = create.object.id;
    const deletion = {
      '@context': create['@context'],
      id: `${uri}#delete`,
      type: 'Delete',
      actor: BOB,
      to: [PUBLIC],
      object: { id: uri, type: 'Tombstone' },
    };
    expect(await deliver(deletion)).toBe(202);
    await eventually(() => queuedAbout(uri) === 0, 'the Delete handled');
    expect(await deliver(create)).toBe(202);
    expect(await deliver(updateOf(create))).toBe(202);
    await eventually(() => queuedAbout(uri) === 0, 'the Create and the Update handled');
    expect(contentOf(uri)).toBeUndefined();
  });

  it('applies an Update that came while its Create was still fetching the post it quotes', async () => {
    // The quoted post's server holds its answer: the Create stays in its listener, as with a slow server.
    const quoted = 'https://b.test/users/bob/statuses/slow';
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let fetchedQuote = false;
    b.intercept = async (req) => {
      if (req.url !== quoted) return null;
      if (!fetchedQuote) {
        fetchedQuote = true;
        await held;
      }
      return new Response(null, { status: 404 });
    };
    try {
      const create = await createOf(BOB, ALICE, quoted);
      expect(await deliver(create)).toBe(202);
      await eventually(() => fetchedQuote, 'the Create fetching the quoted post');
      const waitsBefore = objectTurnWaits.count;
      expect(await deliver(updateOf(create))).toBe(202);
      // The Update's listener ran while the Create was held: it waits its turn (or, unordered, is done already).
      await eventually(
        () => objectTurnWaits.count > waitsBefore || queuedAbout(create.object.id) === 1,
        'the Update handled or waiting',
      );
      release();
      await eventually(() => queuedAbout(create.object.id) === 0, 'both handled');
      expect(contentOf(create.object.id)).toBe(EDITED);
    } finally {
      release();
      b.intercept = null;
    }
  });
});
