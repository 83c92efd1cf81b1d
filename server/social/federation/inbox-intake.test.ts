import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { fixturePath } from '../testing/fixtures.ts';
import { DEFAULT_INBOX_LIMITS } from './inbox-limits.ts';
import { createOf, keyOf, rawGet, signedHeaders, signingKey, strangerKey } from './testing/inbox-clients.ts';
import { BOB, COUNTED_CONTEXT, contextReads, PUBLIC, useIntakePair } from './testing/intake-pair.ts';
import { eventually } from './testing/test-network.ts';

/*
 * The attacks of issues 25 and 32 replayed against live instances: inbox POSTs with the wrong content type,
 * without a signature, too large, or carrying a Linked Data signature over a big body (Fedify's inbox handler
 * runs JSON-LD on those before it checks the HTTP signature), and large verified ones (inbox-queue.test.ts
 * floods the queue). Refusals by headers are sent over a real socket with the body held back: the answer comes without it.
 * Verified deliveries, and a post's Create and Update in either order: inbox-intake-verified.test.ts.
 */

const pair = useIntakePair();

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
    const plain = await pair.post('/users/alice/inbox', { 'content-type': 'text/plain' }, null, 700_000);
    expect(plain.status).toBe(415);
    const form = await pair.post('/inbox', { 'content-type': 'application/x-www-form-urlencoded' }, null, 700_000);
    expect(form.status).toBe(415);

    const unsigned = await pair.post(
      '/users/alice/inbox',
      { 'content-type': 'application/activity+json' },
      null,
      700_000,
    );
    expect(unsigned.status).toBe(401);

    const body = await bigCreate(1);
    const signed = await pair.signedByBob('https://a.test/inbox', body);
    const huge = await pair.post('/inbox', signed, null, 3_100_000);
    expect(huge.status).toBe(413);
  });

  it('takes both ActivityStreams types, application/ld+json with its profile too', async () => {
    const ld = 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"';
    for (const type of ['application/activity+json', ld]) {
      const body = JSON.stringify(await createOf(BOB, PUBLIC));
      const headers = await signedHeaders(
        'https://a.test/inbox',
        body,
        await keyOf(pair.b, 'bob'),
        `https://b.test/users/bob#main-key`,
        type,
      );
      expect((await pair.post('/inbox', headers, body)).status).toBe(202);
    }
  });

  it('answers a 3.1 MB signed activity sent in full with 413', async () => {
    const body = await bigCreate(45_000);
    expect(Buffer.byteLength(body)).toBeGreaterThan(3_000_000);
    const signed = await pair.signedByBob('https://a.test/inbox', body);
    expect((await pair.post('/inbox', signed, body)).status).toBe(413);
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
    const answers = Promise.all(requests.map((r) => pair.post('/users/alice/inbox', r.headers, r.body)));
    const profile = rawGet(pair.aSocket, '/users/alice');
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
    const answer = await pair.post(
      '/users/alice/inbox',
      await pair.signedByBob('https://a.test/users/alice/inbox', body),
      body,
    );
    expect(answer.status).toBe(401);
    expect(contextReads()).toBe(fetchesBefore);
    const stored = pair.a.social.context.store.db.prepare('SELECT 1 FROM statuses WHERE uri = ?').get(create.object.id);
    expect(stored).toBeUndefined();
  });

  it('hands a verified activity to Fedify, which reads its JSON-LD (the counter above counts real work)', async () => {
    const body = await bigCreate(1);
    const headers = await pair.signedByBob('https://a.test/users/alice/inbox', body);
    const fetchesBefore = contextReads();
    const answer = await pair.post('/users/alice/inbox', headers, body);
    expect(answer.status).toBe(202);
    expect(contextReads()).toBeGreaterThan(fetchesBefore);
  });
});

describe('large activities, one at a time', () => {
  it('hands verified bodies over 32 KiB to Fedify one at a time, defers them past 4 waiting, while small ones pass', async () => {
    // Sam's large posts carry a Linked Data signature whose key Fedify fetches from slow.test, which answers
    // only once `release` is called: the first one Fedify reads holds the lane.
    const SAM = 'https://sam.test/users/sam';
    const samKeys = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
    const publicKeyPem = samKeys.publicKey.export({ type: 'spki', format: 'pem' });
    pair.net.addRemote('sam.test', () =>
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
    pair.net.addRemote('slow.test', async () => {
      ldKeyFetches++;
      await keyServed;
      return new Response('not found', { status: 404 });
    });
    const samKey = await signingKey(samKeys.privateKey);
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
    expect((await pair.post('/inbox', await pair.signedByBob('https://a.test/inbox', small), small)).status).toBe(202);
    expect(answered).toEqual([503]);
    expect(ldKeyFetches).toBe(1);
    release();
    expect((await Promise.all(answers)).map((r) => r.status).sort()).toEqual([202, 202, 202, 202, 202, 503]);
  });
});
