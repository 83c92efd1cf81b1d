import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { signRequest } from '@fedify/fedify';
import { Create, Note } from '@fedify/vocab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_INBOX_LIMITS } from './inbox-intake.ts';
import { createTestNetwork, eventually, type TestInstance, type TestNetwork } from './test-network.ts';

/*
 * The attacks of issues 25 and 32 replayed against live instances: inbox POSTs with the wrong content type,
 * without a signature, too large, or carrying a Linked Data signature over a big body (Fedify's inbox handler
 * runs JSON-LD on those before it checks the HTTP signature), and a flood beyond the inbox queue's bound.
 * Refusals by headers are sent over a real socket with the body held back: the answer comes without it.
 */

const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';
/** A JSON-LD context document no preloaded set has: its fetches count Fedify's JSON-LD work on a body. */
const COUNTED_CONTEXT = 'https://contexts.test/extra.jsonld';

let net: TestNetwork;
let a: TestInstance;
let b: TestInstance;
let port: number;
let contextFetches = 0;

beforeAll(async () => {
  net = createTestNetwork();
  a = await net.add('a.test');
  b = await net.add('b.test');
  await a.createUser('alice');
  await b.createUser('bob');
  net.addRemote('contexts.test', () => {
    contextFetches++;
    return Response.json(
      { '@context': { extraTerm: 'https://contexts.test/ns#extraTerm' } },
      { headers: { 'content-type': 'application/ld+json' } },
    );
  });
  await a.http.listen({ host: '127.0.0.1', port: 0 });
  port = (a.http.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await net?.close();
});

async function keyOf(instance: TestInstance, username: string): Promise<CryptoKey> {
  const account = instance.social.context.store.accounts.byHandle(username, null)!;
  return signingKey(crypto.createPrivateKey(instance.social.context.store.accounts.keyPair(account.id)!.privateKey!));
}

function signingKey(key: crypto.KeyObject): Promise<CryptoKey> {
  const der = key.export({ type: 'pkcs8', format: 'der' });
  return crypto.subtle.importKey('pkcs8', der, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, true, ['sign']);
}

/** Signed as bob's server signs. */
async function signedByBob(url: string, body: string): Promise<Record<string, string>> {
  return signedHeaders(url, body, await keyOf(b, 'bob'), 'https://b.test/users/bob#main-key');
}

async function strangerKey(): Promise<CryptoKey> {
  const pair = await crypto.subtle.generateKey(
    { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    true,
    ['sign', 'verify'],
  );
  return pair.privateKey;
}

/** Headers of a draft-cavage signature (with Digest) of `body` posted to `url`, as Mastodon signs. */
async function signedHeaders(
  url: string,
  body: string,
  key: CryptoKey,
  keyId: string,
  contentType = 'application/activity+json',
): Promise<Record<string, string>> {
  const request = await signRequest(
    new Request(url, { method: 'POST', headers: { 'content-type': contentType }, body }),
    key,
    new URL(keyId),
    { spec: 'draft-cavage-http-signatures-12' },
  );
  return Object.fromEntries(request.headers);
}

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/**
 * A POST over the socket. With `body` null, the headers announce `length` bytes that are never sent: an
 * answer proves the server did not wait for (read, parse) the body.
 */
function rawPost(
  path: string,
  headers: Record<string, string>,
  body: string | null,
  length?: number,
  to = { port, host: 'a.test' },
) {
  return new Promise<RawAnswer>((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port: to.port,
      method: 'POST',
      path,
      headers: {
        ...headers,
        host: to.host,
        ...(length === -1 ? {} : { 'content-length': String(body === null ? length : Buffer.byteLength(body)) }),
      },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
        req.destroy();
      });
    });
    if (body === null) req.flushHeaders();
    else req.end(body);
  });
}

/** A POST whose body never ends (a slow or vanished client); `abort` closes its connection. */
function hangingPost(to: { port: number; host: string }, path: string, headers: Record<string, string>) {
  const req = http.request({
    host: '127.0.0.1',
    port: to.port,
    method: 'POST',
    path,
    headers: { ...headers, host: to.host, 'content-length': '100000' },
  });
  req.on('error', () => {});
  req.write('{"type":');
  return { abort: () => req.destroy() };
}

function rawGet(path: string) {
  return new Promise<number>((resolve, reject) => {
    http
      .get(
        { host: '127.0.0.1', port, path, headers: { host: 'a.test', accept: 'application/activity+json' } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        },
      )
      .on('error', reject);
  });
}

let n = 0;
/** A Create of a post by bob (as JSON-LD), addressed to `to`. */
async function bobCreate(to: string, quote?: string): Promise<Record<string, any>> {
  const id = `https://b.test/users/bob/statuses/7${++n}`;
  const create = new Create({
    id: new URL(`${id}/activity`),
    actor: new URL('https://b.test/users/bob'),
    tos: [new URL(to)],
    object: new Note({
      id: new URL(id),
      attribution: new URL('https://b.test/users/bob'),
      content: `<p>post ${n}</p>`,
      tos: [new URL(to)],
      ...(quote ? { quoteUrl: new URL(quote) } : {}),
    }),
  });
  return (await create.toJsonLd({ format: 'compact' })) as Record<string, any>;
}

/**
 * A public Create from bob with `tags` hashtags, carrying a Linked Data signature block (as Mastodon adds to
 * public posts; its value is not checked before the HTTP signature) and a context only fetching can read.
 */
async function bigCreate(tags: number): Promise<string> {
  const create = await bobCreate(PUBLIC);
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
    const corpus = path.resolve(import.meta.dirname, '../../../../shared/fixtures/activitypub-rebased');
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
    const plain = await rawPost('/users/alice/inbox', { 'content-type': 'text/plain' }, null, 700_000);
    expect(plain.status).toBe(415);
    const form = await rawPost('/inbox', { 'content-type': 'application/x-www-form-urlencoded' }, null, 700_000);
    expect(form.status).toBe(415);

    const unsigned = await rawPost(
      '/users/alice/inbox',
      { 'content-type': 'application/activity+json' },
      null,
      700_000,
    );
    expect(unsigned.status).toBe(401);

    const body = await bigCreate(1);
    const signed = await signedByBob('https://a.test/inbox', body);
    const huge = await rawPost('/inbox', signed, null, 3_100_000);
    expect(huge.status).toBe(413);
  });

  it('takes both ActivityStreams types, application/ld+json with its profile too', async () => {
    const ld = 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"';
    for (const type of ['application/activity+json', ld]) {
      const body = JSON.stringify(await bobCreate(PUBLIC));
      const headers = await signedHeaders(
        'https://a.test/inbox',
        body,
        await keyOf(b, 'bob'),
        `https://b.test/users/bob#main-key`,
        type,
      );
      expect((await rawPost('/inbox', headers, body)).status).toBe(202);
    }
  });

  it('answers a 3.1 MB signed activity sent in full with 413', async () => {
    const body = await bigCreate(45_000);
    expect(Buffer.byteLength(body)).toBeGreaterThan(3_000_000);
    const signed = await signedByBob('https://a.test/inbox', body);
    expect((await rawPost('/inbox', signed, body)).status).toBe(413);
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
    const fetchesBefore = contextFetches;
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const answers = Promise.all(requests.map((r) => rawPost('/users/alice/inbox', r.headers, r.body)));
    const profile = rawGet('/users/alice');
    const statuses = (await answers).map((r) => r.status);
    delay.disable();
    expect(statuses).toEqual(Array(20).fill(401));
    expect(await profile).toBe(200);
    // Fedify's JSON-LD processing of these bodies would have loaded their context: it never did.
    expect(contextFetches).toBe(fetchesBefore);
    // Generous (a first key fetch and a loaded machine take some): Fedify's JSON-LD on these bodies held the
    // event loop for over a minute in all.
    expect(delay.max / 1e6).toBeLessThan(2_000);
  });

  it('hands a verified activity to Fedify, which reads its JSON-LD (the counter above counts real work)', async () => {
    const body = await bigCreate(1);
    const headers = await signedByBob('https://a.test/users/alice/inbox', body);
    const fetchesBefore = contextFetches;
    const answer = await rawPost('/users/alice/inbox', headers, body);
    expect(answer.status).toBe(202);
    expect(contextFetches).toBeGreaterThan(fetchesBefore);
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
    expect((await rawPost('/inbox', await signedByBob('https://a.test/inbox', small), small)).status).toBe(202);
    expect(answered).toEqual([503]);
    expect(ldKeyFetches).toBe(1);
    release();
    expect((await Promise.all(answers)).map((r) => r.status).sort()).toEqual([202, 202, 202, 202, 202, 503]);
  });
});

describe('a bounded inbox queue (issue 32: 200 signed Creates/s grew the server to 2.95 GB)', () => {
  const LIMITS = { requests: 4, backlogMessages: 12 };
  let q: TestInstance;
  let carolUri: string;
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));

  beforeAll(async () => {
    q = await net.add('q.test', { inbox: LIMITS });
    await q.createUser('carol');
    carolUri = 'https://q.test/users/carol';
    // Posts quoting these keep their listener waiting until `release`: the queue fills as on a slow server.
    net.addRemote('held.test', async () => {
      await held;
      return new Response('gone', { status: 404 });
    });
  });

  /** A signed delivery of a post by bob addressed to carol (so q.test keeps it), quoting `quote` if given. */
  async function delivery(quote?: string) {
    const create = await bobCreate(carolUri, quote);
    const body = JSON.stringify(create);
    const request = new Request('https://q.test/inbox', {
      method: 'POST',
      headers: await signedByBob('https://q.test/inbox', body),
      body,
    });
    return { id: create.object.id as string, request };
  }
  const stored = (uri: string) =>
    q.social.context.store.db.prepare('SELECT 1 FROM statuses WHERE uri = ?').get(uri) !== undefined;
  const queuedInbox = () =>
    Number(
      (
        q.social.context.store.db
          .prepare(`SELECT COUNT(*) AS n FROM federation_queue WHERE json_extract(message, '$.type') = 'inbox'`)
          .get() as { n: bigint }
      ).n,
    );

  it('answers a burst beyond what it handles at once with 503 and Retry-After; what it took lands', async () => {
    const burst = await Promise.all(Array.from({ length: 60 }, () => delivery()));
    let most = 0;
    const sampler = setInterval(() => (most = Math.max(most, queuedInbox())), 5);
    const answers = await Promise.all(burst.map((d) => fetch(d.request)));
    clearInterval(sampler);
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s !== 202 && s !== 503)).toEqual([]);
    const refused = answers.filter((r) => r.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) expect(r.headers.get('retry-after')).toBe('60');
    expect(most).toBeLessThanOrEqual(LIMITS.backlogMessages + LIMITS.requests);
    const taken = burst.filter((_, i) => statuses[i] === 202);
    expect(taken.length).toBeGreaterThan(0);
    await eventually(() => taken.every((d) => stored(d.id)), 'every accepted post stored');
    expect(burst.filter((_, i) => statuses[i] === 503).some((d) => stored(d.id))).toBe(false);
  });

  it('gives back the places of clients that leave mid-body or send too much without a length', async () => {
    await q.http.listen({ host: '127.0.0.1', port: 0 });
    const to = { port: (q.http.server.address() as AddressInfo).port, host: 'q.test' };
    const signed = await signedByBob('https://q.test/inbox', '{}');
    const hanging = Array.from({ length: LIMITS.requests }, () => hangingPost(to, '/inbox', signed));
    // Their bodies are awaited: every place is taken, the next delivery is deferred.
    await eventually(
      async () => (await rawPost('/inbox', signed, '{}', undefined, to)).status === 503,
      'the places taken by the hanging requests',
    );
    for (const h of hanging) h.abort();
    await eventually(async () => (await fetch((await delivery()).request)).status === 202, 'a delivery taken again');
    // Chunked, no Content-Length: the body is cut at the bound while it is read.
    const big = JSON.stringify({ padding: 'x'.repeat(300 * 1024) });
    for (let i = 0; i < 2 * LIMITS.requests; i++)
      expect((await rawPost('/inbox', await signedByBob('https://q.test/inbox', big), big, -1, to)).status).toBe(413);
    expect((await fetch((await delivery()).request)).status).toBe(202);
  });

  it('refuses with 503 once its queue holds the bound, and takes deliveries again once it drained', async () => {
    await eventually(() => queuedInbox() === 0, 'the queue empty');
    const accepted: string[] = [];
    let refusal: { status: number; retryAfter: string | null; id: string } | null = null;
    for (let i = 0; i < 3 * LIMITS.backlogMessages && !refusal; i++) {
      const d = await delivery(`https://held.test/notes/${i}`);
      const res = await fetch(d.request);
      if (res.status === 202) accepted.push(d.id);
      else refusal = { status: res.status, retryAfter: res.headers.get('retry-after'), id: d.id };
    }
    expect(refusal).toMatchObject({ status: 503, retryAfter: '60' });
    expect(accepted.length).toBe(LIMITS.backlogMessages);
    expect(queuedInbox()).toBe(LIMITS.backlogMessages);

    release();
    await eventually(() => queuedInbox() === 0, 'the queue drained');
    // The peer delivers the refused activity again (a new signature, as a retry has): it is taken.
    const again = await delivery();
    expect((await fetch(again.request)).status).toBe(202);
    await eventually(() => [...accepted, again.id].every(stored), 'every accepted post stored');
  });
});
