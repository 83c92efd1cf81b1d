import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { signRequest } from '@fedify/fedify';
import { Create, Note } from '@fedify/vocab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  const pem = instance.social.context.store.accounts.keyPair(account.id)!.privateKey!;
  const der = crypto.createPrivateKey(pem).export({ type: 'pkcs8', format: 'der' });
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
): Promise<Record<string, string>> {
  const request = await signRequest(
    new Request(url, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body }),
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
function rawPost(path: string, headers: Record<string, string>, body: string | null, length?: number) {
  return new Promise<RawAnswer>((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path,
      headers: {
        ...headers,
        host: 'a.test',
        'content-length': String(body === null ? length : Buffer.byteLength(body)),
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

describe('a bounded inbox queue (issue 32: 200 signed Creates/s grew the server to 2.95 GB)', () => {
  const LIMITS = { handling: 4, backlogMessages: 12 };
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
    expect(most).toBeLessThanOrEqual(LIMITS.backlogMessages + LIMITS.handling);
    const taken = burst.filter((_, i) => statuses[i] === 202);
    expect(taken.length).toBeGreaterThan(0);
    await eventually(() => taken.every((d) => stored(d.id)), 'every accepted post stored');
    expect(burst.filter((_, i) => statuses[i] === 503).some((d) => stored(d.id))).toBe(false);
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
