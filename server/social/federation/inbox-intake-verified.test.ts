import { beforeAll, describe, expect, it } from 'vitest';
import { objectTurnWaits } from './inbound-object-locks.ts';
import { reusedExpansions } from './inbox-expansions.ts';
import { plainCreatesHandled } from './inbox-plain-listener.ts';
import { offThreadContextReads, offThreadVerifications } from './inbox-verifier.ts';
import { createOf } from './testing/inbox-clients.ts';
import { BOB, COUNTED_CONTEXT, contextReads, PUBLIC, useIntakePair } from './testing/intake-pair.ts';
import { eventually } from './testing/test-network.ts';

/*
 * Verified deliveries to a live instance's shared inbox: queued without a second verification (in the verifier's
 * worker once the key is known, a plain Create stored from the worker's reading), refused when the signed body was
 * changed or JSON-LD reads another actor than the signer; and a post's Create and Update, whatever their order.
 * The attacks refused before that: inbox-intake.test.ts.
 */

const pair = useIntakePair();

beforeAll(async () => {
  // A first delivery from bob makes a.test fetch and keep his key (the worker verifies with keys already held).
  const body = JSON.stringify(await createOf(BOB, 'https://a.test/users/alice'));
  expect((await pair.post('/inbox', await pair.signedByBob('https://a.test/inbox', body), body)).status).toBe(202);
});

describe('verified shared-inbox deliveries, queued without a second verification', () => {
  const ALICE = 'https://a.test/users/alice';
  const CAROL = 'https://c.test/users/carol';
  const storedStatus = (uri: string) =>
    pair.a.social.context.store.db.prepare('SELECT account_id FROM statuses WHERE uri = ?').get(uri);

  it('stores Creates signed by their actor, verified in the worker thread once the key is known', async () => {
    const [verifiedBefore, ownBefore] = [offThreadVerifications.count, offThreadVerifications.ownCheck];
    for (let i = 0; i < 2; i++) {
      const create = await createOf(BOB, ALICE);
      const body = JSON.stringify(create);
      const answer = await pair.post('/inbox', await pair.signedByBob('https://a.test/inbox', body), body);
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
    const answer = await pair.post('/inbox', await pair.signedByBob('https://a.test/inbox', body), body);
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
    const answer = await pair.post('/inbox', await pair.signedByBob('https://a.test/inbox', body), body);
    expect(answer.status).toBe(401);
    expect(answer.text).toBe('The signer and the actor do not match.');
    expect(storedStatus(create.object.id)).toBeUndefined();
  });

  it('refuses a body changed after it was signed, and a body that is no activity', async () => {
    const create = await createOf(BOB, ALICE);
    const signed = await pair.signedByBob('https://a.test/inbox', JSON.stringify(create));
    const changed = JSON.stringify({ ...create, object: { ...create.object, content: '<p>changed</p>' } });
    expect((await pair.post('/inbox', signed, changed)).status).toBe(401);
    expect(storedStatus(create.object.id)).toBeUndefined();

    const notJsonLd = JSON.stringify({ '@context': 42, type: 'Create', actor: BOB });
    const answer = await pair.post('/inbox', await pair.signedByBob('https://a.test/inbox', notJsonLd), notJsonLd);
    expect(answer.status).toBe(400);
  });
});

describe('a Create and an Update of one post, whatever their order', () => {
  const ALICE = 'https://a.test/users/alice';
  const EDITED = '<p>edited</p>';
  const contentOf = (uri: string) =>
    (
      pair.a.social.context.store.db.prepare('SELECT content FROM statuses WHERE uri = ?').get(uri) as {
        content: string;
      }
    )?.content;
  /** Activities about `uri` still queued for their listeners. */
  const queuedAbout = (uri: string) =>
    Number(
      (
        pair.a.social.context.store.db
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
    return (await pair.post('/inbox', await pair.signedByBob('https://a.test/inbox', body), body)).status;
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
    pair.b.intercept = async (req) => {
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
      pair.b.intercept = null;
    }
  });
});
