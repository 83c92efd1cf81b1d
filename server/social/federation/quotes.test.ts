import { beforeAll, describe, expect, it } from 'vitest';
import { activityJson, arrived, getStatus, type Status, useQuoteServers } from './testing/quote-posts.ts';
import { apiCall, eventually, follow } from './testing/test-network.ts';

/*
 * Quote posts across servers as Mastodon 4.5 federates them (FEP-044f), between Homeports in this process
 * with real signed HTTP: alice on a.test quotes bob on b.test; b answers the QuoteRequest by the post's
 * policy; carol on c.test checks the QuoteAuthorization stamp on b before she is shown the quote; bob
 * revokes it, and the revocation reaches every server holding the quote (d.test too). Quotes the policy
 * forbids are refused. Servers without approvals: quotes-unapproved.test.ts.
 */

const t = useQuoteServers('c.test', 'carol');

beforeAll(async () => {
  await follow(t.thirdUser, 'alice@a.test');
});

describe('quoting a post on another server', () => {
  let post: Status;
  let quote: Status;

  it('asks the quoted author, who approves by the post’s policy: accepted on both servers, with a stamp on b', async () => {
    post = (await apiCall(t.b, t.bob, 'POST', '/api/v1/statuses', { status: 'quote me, anyone' })).json;
    const copy = await arrived(t.a, t.alice, post.uri);
    // The policy came with the Note (interactionPolicy.canQuote).
    expect(copy.quote_approval).toMatchObject({ automatic: ['public'], current_user: 'automatic' });

    const made = await apiCall(t.a, t.alice, 'POST', '/api/v1/statuses', {
      status: 'so true',
      quoted_status_id: copy.id,
    });
    expect(made.status).toBe(200);
    quote = made.json;
    expect(quote.quote?.state).toBe('pending');
    const accepted = await eventually(async () => {
      const s = await getStatus(t.a, t.alice, quote.id);
      return s.quote?.state === 'accepted' ? s : null;
    }, 'alice’s quote accepted on a');
    expect(accepted.quote?.quoted_status?.uri).toBe(post.uri);

    // b: the quote post arrived with its quote, counted, listed and notified.
    const onB = await eventually(async () => {
      const s = (await t.bob.client.v1.timelines.home.list()).find((x) => x.uri === quote.uri);
      return s ? await getStatus(t.b, t.bob, s.id) : null;
    }, 'alice’s quote on b');
    expect(onB.quote).toMatchObject({ state: 'accepted', quoted_status: { id: post.id } });
    expect(((await getStatus(t.b, t.bob, post.id)) as unknown as { quotes_count: number }).quotes_count).toBe(1);
    expect(
      (await apiCall(t.b, t.bob, 'GET', `/api/v1/statuses/${post.id}/quotes`)).json.map((s: Status) => s.uri),
    ).toEqual([quote.uri]);
    const notes = await t.bob.client.v1.notifications.list({ types: ['quote'] as never });
    expect(notes.map((n) => n.status?.uri)).toEqual([quote.uri]);
  });

  it('sends Notes as Mastodon does: quote, its compatibility copies, the stamp, the policy and the RE: fallback', async () => {
    const note = await eventually(async () => {
      const json = await activityJson(quote.uri);
      return json.quoteAuthorization ? json : null;
    }, 'the stamp on alice’s Note');
    expect(note.quote).toBe(post.uri);
    expect(note._misskey_quote).toBe(post.uri);
    expect(note.quoteUri).toBe(post.uri);
    expect(note.content).toMatch(/^<p class="quote-inline">RE: <a href="https:\/\/b\.test\/@bob\/\d+">/);
    // Compacted to `as:Public` (one value), a form Mastodon reads as the public collection.
    expect([note.interactionPolicy.canQuote.automaticApproval].flat()).toEqual(['as:Public']);
    if (process.env.HOMEPORT_QUOTE_JSON) process.stderr.write(`${JSON.stringify(note, null, 1)}\n`);

    const stamp = await activityJson(note.quoteAuthorization);
    expect(stamp).toMatchObject({
      type: 'QuoteAuthorization',
      attributedTo: 'https://b.test/users/bob',
      interactingObject: quote.uri,
      interactionTarget: post.uri,
    });
  });

  it('shows a third server the quote once it checked the stamp on the quoted author’s server', async () => {
    const onC = await eventually(async () => {
      const s = (await t.thirdUser.client.v1.timelines.home.list()).find((x) => x.uri === quote.uri);
      const full = s ? await getStatus(t.third, t.thirdUser, s.id) : null;
      return full?.quote?.state === 'accepted' ? full : null;
    }, 'alice’s quote accepted on c');
    expect(onC.quote?.quoted_status?.uri).toBe(post.uri);
    // The post re-sent with its stamp changed nothing a reader sees: not an edit.
    expect(onC.edited_at).toBeNull();
  });

  it('is revoked by the quoted author: the stamp’s Delete reaches a, and every server holding the quote through b or a', async () => {
    const stampUri = (await activityJson(quote.uri)).quoteAuthorization as string;
    // dave on d.test follows amy on a.test, who boosts alice's quote; he also favourited bob's post, so b knows d.
    const d = await t.net.add('d.test');
    const dave = await d.createUser('dave');
    const amy = await t.a.createUser('amy');
    const amyOnD = (await dave.client.v1.accounts.lookup({ acct: 'amy@a.test' })).id;
    await dave.client.v1.accounts.$select(amyOnD).follow();
    await eventually(
      async () => (await dave.client.v1.accounts.relationships.fetch({ id: [amyOnD] }))[0].following,
      'dave follows amy',
    );
    await amy.client.v1.statuses.$select(quote.id).reblog();
    await dave.client.v1.statuses.$select((await arrived(d, dave, post.uri)).id).favourite();
    await eventually(
      async () => (await t.bob.client.v1.statuses.$select(post.id).favouritedBy.list()).length > 0,
      'dave’s favourite on b',
    );
    const quoteOnD = await arrived(d, dave, quote.uri);
    await eventually(
      async () => (await getStatus(d, dave, quoteOnD.id)).quote?.state === 'accepted',
      'alice’s quote accepted on d',
    );
    const quoteOnC = (await t.thirdUser.client.v1.timelines.home.list()).find((x) => x.uri === quote.uri)!;

    // What each server's inboxes receive and whose key signed it, read on the way (the requests then go on).
    type Received = { type: string; object: any; signer: string; signature?: unknown; proof?: unknown };
    const received = new Map<string, Received[]>([t.a, t.b, t.third, d].map((i) => [i.host, []]));
    for (const instance of [t.a, t.b, t.third, d]) {
      instance.intercept = async (req) => {
        if (req.method !== 'POST' || !req.url.endsWith('inbox')) return null;
        const signer =
          /keyid="([^"]+)"/i.exec(`${req.headers.get('signature-input')} ${req.headers.get('signature')}`)?.[1] ?? '';
        received.get(instance.host)!.push({ ...(await req.clone().json()), signer: new URL(signer).host });
        return null;
      };
    }
    try {
      const onB = (await t.bob.client.v1.timelines.home.list()).find((x) => x.uri === quote.uri)!;
      const revoked = await apiCall(t.b, t.bob, 'POST', `/api/v1/statuses/${post.id}/quotes/${onB.id}/revoke`);
      expect(revoked.json.quote.state).toBe('revoked');
      await eventually(
        async () => (await getStatus(t.a, t.alice, quote.id)).quote?.state === 'revoked',
        'the revocation on a',
      );
      // c follows alice alone: b does not know it holds the quote; a passes b's signed Delete on to alice's followers.
      await eventually(
        async () => (await getStatus(t.third, t.thirdUser, quoteOnC.id)).quote?.state === 'revoked',
        'the revocation on c',
      );
      // d: straight from b (a favourite of bob's post) and from a (a follower of amy, who boosted the quote).
      await eventually(
        async () => (await getStatus(d, dave, quoteOnD.id)).quote?.state === 'revoked',
        'the revocation on d',
      );
      await eventually(
        () => received.get('d.test')!.filter((r) => r.type === 'Delete').length === 2,
        'both Deletes on d',
      );
    } finally {
      for (const instance of [t.a, t.b, t.third, d]) instance.intercept = null;
    }
    // Mastodon's Delete of a stamp: the QuoteAuthorization embedded, from the quoted author, signed to be passed on.
    const deletes = (host: string) => received.get(host)!.filter((r) => r.type === 'Delete');
    const [del] = deletes('a.test');
    expect(del).toMatchObject({
      actor: 'https://b.test/users/bob',
      signer: 'b.test',
      object: {
        id: stampUri,
        type: 'QuoteAuthorization',
        attributedTo: 'https://b.test/users/bob',
        interactingObject: quote.uri,
        interactionTarget: post.uri,
      },
    });
    expect(del.signature ?? del.proof).toBeTruthy();
    const forwarded = { ...del, signer: 'a.test' };
    expect(deletes('a.test')).toEqual([del]);
    expect(deletes('b.test')).toEqual([]);
    expect(deletes('c.test')).toEqual([forwarded]);
    expect(deletes('d.test')).toEqual(expect.arrayContaining([del, forwarded]));
    // As Mastodon: the quoting post is not sent again as an Update.
    expect([...received.values()].flat().filter((r) => r.type === 'Update')).toEqual([]);
    const note = await activityJson(quote.uri);
    expect(note.quoteAuthorization).toBeUndefined();
    expect((await activityJson(stampUri)).status).toBe(404);
  });
});

describe('quotes the quoted author does not allow', () => {
  it('refuses locally what the known policy forbids: nobody, or a followers-only post', async () => {
    const closed = (
      await apiCall(t.b, t.bob, 'POST', '/api/v1/statuses', { status: 'do not quote', quote_approval_policy: 'nobody' })
    ).json as Status;
    const copy = await arrived(t.a, t.alice, closed.uri);
    expect(copy.quote_approval).toMatchObject({ automatic: [], current_user: 'denied' });
    const refused = await apiCall(t.a, t.alice, 'POST', '/api/v1/statuses', {
      status: 'hm',
      quoted_status_id: copy.id,
    });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toMatch(/does not allow quoting/);

    const mine = (
      await apiCall(t.b, t.bob, 'POST', '/api/v1/statuses', { status: 'for my followers', visibility: 'private' })
    ).json as Status;
    const privateCopy = await eventually(
      async () => (await t.alice.client.v1.timelines.home.list()).find((s) => s.uri === mine.uri),
      'the followers-only post on a',
    );
    expect(
      (await apiCall(t.a, t.alice, 'POST', '/api/v1/statuses', { status: 'hm', quoted_status_id: privateCopy.id }))
        .status,
    ).toBe(403);
  });

  it('is rejected by the quoted author’s server when the policy changed meanwhile (the Update was lost)', async () => {
    const post = (await apiCall(t.b, t.bob, 'POST', '/api/v1/statuses', { status: 'changing my mind' })).json as Status;
    const copy = await arrived(t.a, t.alice, post.uri);
    expect(copy.quote_approval.automatic).toEqual(['public']);
    let dropped = 0;
    t.a.intercept = (req) => {
      if (req.method !== 'POST' || !req.url.includes('inbox')) return null;
      dropped++;
      return new Response(null, { status: 202 });
    };
    try {
      expect(
        (
          await apiCall(t.b, t.bob, 'PUT', `/api/v1/statuses/${post.id}/interaction_policy`, {
            quote_approval_policy: 'nobody',
          })
        ).json.quote_approval.automatic,
      ).toEqual([]);
      await eventually(() => dropped > 0, 'the policy Update sent to a (and lost)');
    } finally {
      t.a.intercept = null;
    }
    const made = (
      await apiCall(t.a, t.alice, 'POST', '/api/v1/statuses', { status: 'quoting anyway', quoted_status_id: copy.id })
    ).json as Status;
    expect(made.quote?.state).toBe('pending');
    const rejected = await eventually(async () => {
      const s = await getStatus(t.a, t.alice, made.id);
      return s.quote?.state === 'rejected' ? s : null;
    }, 'the rejection on a');
    expect(rejected.quote?.quoted_status ?? null).toBeNull();
    expect((await activityJson(made.uri)).quoteAuthorization).toBeUndefined();
  });
});
