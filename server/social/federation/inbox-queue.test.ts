import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestNetwork, eventually, type TestInstance, type TestNetwork } from './testing/test-network.ts';
import { createOf, hangingPost, listen, rawPost, signedBy } from './testing/inbox-clients.ts';

/*
 * Issue 32's flood replayed against a live instance with small inbox bounds: bursts beyond what it takes at
 * once, clients that never finish their body, and a queue held full by slow listeners, each answered 503 with
 * Retry-After (peers retry) while what was taken lands.
 */

const BOB = 'https://b.test/users/bob';

let net: TestNetwork;
let b: TestInstance;

beforeAll(async () => {
  net = createTestNetwork();
  b = await net.add('b.test');
  await b.createUser('bob');
});
afterAll(async () => {
  await net?.close();
});

const signedByBob = (url: string, body: string) => signedBy(b, 'bob', url, body);

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
    const create = await createOf(BOB, carolUri, quote);
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
    const to = await listen(q);
    const signed = await signedByBob('https://q.test/inbox', '{}');
    const hanging = Array.from({ length: LIMITS.requests }, () => hangingPost(to, '/inbox', signed));
    // Their bodies are awaited: every place is taken, the next delivery is deferred.
    await eventually(
      async () => (await rawPost(to, '/inbox', signed, '{}')).status === 503,
      'the places taken by the hanging requests',
    );
    for (const h of hanging) h.abort();
    await eventually(async () => (await fetch((await delivery()).request)).status === 202, 'a delivery taken again');
    // Chunked, no Content-Length: the body is cut at the bound while it is read.
    const big = JSON.stringify({ padding: 'x'.repeat(300 * 1024) });
    for (let i = 0; i < 2 * LIMITS.requests; i++)
      expect((await rawPost(to, '/inbox', await signedByBob('https://q.test/inbox', big), big, -1)).status).toBe(413);
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
