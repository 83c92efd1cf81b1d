// Over 400 lines on purpose: one subject, quote posts across servers (approvals, refusals, servers without approvals); its cases share one set-up.
import { Create, Mention, Note, PUBLIC_COLLECTION, QuoteRequest } from '@fedify/vocab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiCall,
  eventually,
  followingPair,
  type TestInstance,
  type TestNetwork,
  type NetworkUser as User,
} from './testing/test-network.ts';

/*
 * Quote posts across servers as Mastodon 4.5 federates them (FEP-044f), between Homeports in this process
 * with real signed HTTP: alice on a.test quotes bob on b.test; b answers the QuoteRequest by the post's
 * policy; carol on c.test checks the QuoteAuthorization stamp on b before she is shown the quote; bob
 * revokes it, and the revocation reaches every server holding the quote (d.test too). A Misskey-style quote
 * (`_misskey_quote`, no approval) is shown as Mastodon shows it.
 */

let net: TestNetwork;
let a: TestInstance;
let b: TestInstance;
let c: TestInstance;
let m: TestInstance;
let alice: User;
let bob: User;
let carol: User;
let miko: User;

type Status = {
  id: string;
  uri: string;
  content: string;
  edited_at: string | null;
  quote: { state: string; quoted_status?: { id: string; uri: string } | null } | null;
  quote_approval: { automatic: string[]; current_user: string };
};

async function getStatus(instance: TestInstance, user: User, id: string): Promise<Status> {
  const res = await apiCall(instance, user, 'GET', `/api/v1/statuses/${id}`);
  return res.json as Status;
}

/** A post of `author` as `reader` sees it on their server, once it arrived. */
async function arrived(instance: TestInstance, reader: User, uri: string): Promise<Status> {
  return eventually(async () => {
    const res = await apiCall(
      instance,
      reader,
      'GET',
      `/api/v2/search?q=${encodeURIComponent(uri)}&resolve=true&type=statuses`,
    );
    return (res.json.statuses as Status[] | undefined)?.find((s) => s.uri === uri) ?? null;
  }, `${uri} on ${instance.host}`);
}

async function activityJson(url: string): Promise<any> {
  const res = await fetch(url, { headers: { accept: 'application/activity+json' } });
  return res.status === 200 ? res.json() : { status: res.status };
}

beforeAll(async () => {
  ({ net, a, b, alice, bob } = await followingPair());
  c = await net.add('c.test');
  carol = await c.createUser('carol');
  const aliceOnC = (await carol.client.v1.accounts.lookup({ acct: 'alice@a.test' })).id;
  await carol.client.v1.accounts.$select(aliceOnC).follow();
  await eventually(
    async () => (await carol.client.v1.accounts.relationships.fetch({ id: [aliceOnC] }))[0].following,
    'carol follows alice',
  );
});

afterAll(async () => {
  await net?.close();
});

describe('quoting a post on another server', () => {
  let post: Status;
  let quote: Status;

  it('asks the quoted author, who approves by the post’s policy: accepted on both servers, with a stamp on b', async () => {
    post = (await apiCall(b, bob, 'POST', '/api/v1/statuses', { status: 'quote me, anyone' })).json;
    const copy = await arrived(a, alice, post.uri);
    // The policy came with the Note (interactionPolicy.canQuote).
    expect(copy.quote_approval).toMatchObject({ automatic: ['public'], current_user: 'automatic' });

    const made = await apiCall(a, alice, 'POST', '/api/v1/statuses', { status: 'so true', quoted_status_id: copy.id });
    expect(made.status).toBe(200);
    quote = made.json;
    expect(quote.quote?.state).toBe('pending');
    const accepted = await eventually(async () => {
      const s = await getStatus(a, alice, quote.id);
      return s.quote?.state === 'accepted' ? s : null;
    }, 'alice’s quote accepted on a');
    expect(accepted.quote?.quoted_status?.uri).toBe(post.uri);

    // b: the quote post arrived with its quote, counted, listed and notified.
    const onB = await eventually(async () => {
      const s = (await bob.client.v1.timelines.home.list()).find((x) => x.uri === quote.uri);
      return s ? await getStatus(b, bob, s.id) : null;
    }, 'alice’s quote on b');
    expect(onB.quote).toMatchObject({ state: 'accepted', quoted_status: { id: post.id } });
    expect(((await getStatus(b, bob, post.id)) as unknown as { quotes_count: number }).quotes_count).toBe(1);
    expect((await apiCall(b, bob, 'GET', `/api/v1/statuses/${post.id}/quotes`)).json.map((s: Status) => s.uri)).toEqual(
      [quote.uri],
    );
    const notes = await bob.client.v1.notifications.list({ types: ['quote'] as never });
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
      const s = (await carol.client.v1.timelines.home.list()).find((x) => x.uri === quote.uri);
      const full = s ? await getStatus(c, carol, s.id) : null;
      return full?.quote?.state === 'accepted' ? full : null;
    }, 'alice’s quote accepted on c');
    expect(onC.quote?.quoted_status?.uri).toBe(post.uri);
    // The post re-sent with its stamp changed nothing a reader sees: not an edit.
    expect(onC.edited_at).toBeNull();
  });

  it('is revoked by the quoted author: the stamp’s Delete reaches a, and every server holding the quote through b or a', async () => {
    const stampUri = (await activityJson(quote.uri)).quoteAuthorization as string;
    // dave on d.test follows amy on a.test, who boosts alice's quote; he also favourited bob's post, so b knows d.
    const d = await net.add('d.test');
    const dave = await d.createUser('dave');
    const amy = await a.createUser('amy');
    const amyOnD = (await dave.client.v1.accounts.lookup({ acct: 'amy@a.test' })).id;
    await dave.client.v1.accounts.$select(amyOnD).follow();
    await eventually(
      async () => (await dave.client.v1.accounts.relationships.fetch({ id: [amyOnD] }))[0].following,
      'dave follows amy',
    );
    await amy.client.v1.statuses.$select(quote.id).reblog();
    await dave.client.v1.statuses.$select((await arrived(d, dave, post.uri)).id).favourite();
    await eventually(
      async () => (await bob.client.v1.statuses.$select(post.id).favouritedBy.list()).length > 0,
      'dave’s favourite on b',
    );
    const quoteOnD = await arrived(d, dave, quote.uri);
    await eventually(
      async () => (await getStatus(d, dave, quoteOnD.id)).quote?.state === 'accepted',
      'alice’s quote accepted on d',
    );
    const quoteOnC = (await carol.client.v1.timelines.home.list()).find((x) => x.uri === quote.uri)!;

    // What each server's inboxes receive and whose key signed it, read on the way (the requests then go on).
    type Received = { type: string; object: any; signer: string; signature?: unknown; proof?: unknown };
    const received = new Map<string, Received[]>([a, b, c, d].map((i) => [i.host, []]));
    for (const instance of [a, b, c, d]) {
      instance.intercept = async (req) => {
        if (req.method !== 'POST' || !req.url.endsWith('inbox')) return null;
        const signer =
          /keyid="([^"]+)"/i.exec(`${req.headers.get('signature-input')} ${req.headers.get('signature')}`)?.[1] ?? '';
        received.get(instance.host)!.push({ ...(await req.clone().json()), signer: new URL(signer).host });
        return null;
      };
    }
    try {
      const onB = (await bob.client.v1.timelines.home.list()).find((x) => x.uri === quote.uri)!;
      const revoked = await apiCall(b, bob, 'POST', `/api/v1/statuses/${post.id}/quotes/${onB.id}/revoke`);
      expect(revoked.json.quote.state).toBe('revoked');
      await eventually(
        async () => (await getStatus(a, alice, quote.id)).quote?.state === 'revoked',
        'the revocation on a',
      );
      // c follows alice alone: b does not know it holds the quote; a passes b's signed Delete on to alice's followers.
      await eventually(
        async () => (await getStatus(c, carol, quoteOnC.id)).quote?.state === 'revoked',
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
      for (const instance of [a, b, c, d]) instance.intercept = null;
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
      await apiCall(b, bob, 'POST', '/api/v1/statuses', { status: 'do not quote', quote_approval_policy: 'nobody' })
    ).json as Status;
    const copy = await arrived(a, alice, closed.uri);
    expect(copy.quote_approval).toMatchObject({ automatic: [], current_user: 'denied' });
    const refused = await apiCall(a, alice, 'POST', '/api/v1/statuses', { status: 'hm', quoted_status_id: copy.id });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toMatch(/does not allow quoting/);

    const mine = (
      await apiCall(b, bob, 'POST', '/api/v1/statuses', { status: 'for my followers', visibility: 'private' })
    ).json as Status;
    const privateCopy = await eventually(
      async () => (await alice.client.v1.timelines.home.list()).find((s) => s.uri === mine.uri),
      'the followers-only post on a',
    );
    expect(
      (await apiCall(a, alice, 'POST', '/api/v1/statuses', { status: 'hm', quoted_status_id: privateCopy.id })).status,
    ).toBe(403);
  });

  it('is rejected by the quoted author’s server when the policy changed meanwhile (the Update was lost)', async () => {
    const post = (await apiCall(b, bob, 'POST', '/api/v1/statuses', { status: 'changing my mind' })).json as Status;
    const copy = await arrived(a, alice, post.uri);
    expect(copy.quote_approval.automatic).toEqual(['public']);
    let dropped = 0;
    a.intercept = (req) => {
      if (req.method !== 'POST' || !req.url.includes('inbox')) return null;
      dropped++;
      return new Response(null, { status: 202 });
    };
    try {
      expect(
        (
          await apiCall(b, bob, 'PUT', `/api/v1/statuses/${post.id}/interaction_policy`, {
            quote_approval_policy: 'nobody',
          })
        ).json.quote_approval.automatic,
      ).toEqual([]);
      await eventually(() => dropped > 0, 'the policy Update sent to a (and lost)');
    } finally {
      a.intercept = null;
    }
    const made = (
      await apiCall(a, alice, 'POST', '/api/v1/statuses', { status: 'quoting anyway', quoted_status_id: copy.id })
    ).json as Status;
    expect(made.quote?.state).toBe('pending');
    const rejected = await eventually(async () => {
      const s = await getStatus(a, alice, made.id);
      return s.quote?.state === 'rejected' ? s : null;
    }, 'the rejection on a');
    expect(rejected.quote?.quoted_status ?? null).toBeNull();
    expect((await activityJson(made.uri)).quoteAuthorization).toBeUndefined();
  });
});

describe('quotes from servers without approvals (Misskey, Akkoma)', () => {
  it('shows a `_misskey_quote` of someone else as the text with its RE: link, and a self-quote as a quote', async () => {
    m = await net.add('m.test');
    miko = await m.createUser('miko');
    const mikoOnA = (await alice.client.v1.accounts.lookup({ acct: 'miko@m.test' })).id;
    await alice.client.v1.accounts.$select(mikoOnA).follow();
    await eventually(
      async () => (await alice.client.v1.accounts.relationships.fetch({ id: [mikoOnA] }))[0].following,
      'alice follows miko',
    );
    const original = (await apiCall(a, alice, 'POST', '/api/v1/statuses', { status: 'a post to quote' }))
      .json as Status;
    const own = (await apiCall(m, miko, 'POST', '/api/v1/statuses', { status: 'my own words' })).json as Status;
    await arrived(a, alice, own.uri);

    // What Misskey sends: _misskey_quote and quoteUrl (no FEP-044f `quote`), the link written into the text.
    const fedify = await m.social.federation!.context();
    const me = fedify.getActorUri('miko');
    const send = async (id: string, quoted: string, text: string) => {
      const note = new Note({
        id: new URL(`${me.href}/notes/${id}`),
        attribution: me,
        to: PUBLIC_COLLECTION,
        ccs: [fedify.getFollowersUri('miko'), new URL('https://a.test/users/alice')],
        tags: [new Mention({ href: new URL('https://a.test/users/alice'), name: '@alice@a.test' })],
        content: `<p>${text}<span class="quote-inline"><br><br>RE: <a href="${quoted}">${quoted}</a></span></p>`,
        quoteUrl: new URL(quoted),
      });
      await fedify.sendActivity(
        { identifier: 'miko' },
        { id: new URL('https://a.test/users/alice'), inboxId: new URL('https://a.test/users/alice/inbox') },
        new Create({ id: new URL(`${note.id!.href}/activity`), actor: me, object: note, to: PUBLIC_COLLECTION }),
      );
      return note.id!.href;
    };
    const legacyUri = await send('q1', original.uri, 'look at this');
    const selfUri = await send('q2', own.uri, 'as I said');

    const legacy = await arrived(a, alice, legacyUri);
    expect(legacy.quote).toBeNull();
    expect(legacy.content).toContain('RE: <a href="https://a.test/users/alice/statuses/');
    expect(legacy.content).toContain('class="quote-inline"');
    // Not approved, so not counted among the quotes of alice's post.
    expect(((await getStatus(a, alice, original.id)) as unknown as { quotes_count: number }).quotes_count).toBe(0);

    const selfQuote = await arrived(a, alice, selfUri);
    expect(selfQuote.quote).toMatchObject({ state: 'accepted', quoted_status: { uri: own.uri } });
  });

  it('shows a FEP-044f quote that comes without a stamp as pending, its text kept', async () => {
    const fedify = await m.social.federation!.context();
    const me = fedify.getActorUri('miko');
    const original = (await apiCall(b, bob, 'POST', '/api/v1/statuses', { status: 'quoted without asking' }))
      .json as Status;
    const note = new Note({
      id: new URL(`${me.href}/notes/q3`),
      attribution: me,
      to: PUBLIC_COLLECTION,
      content: `<p class="quote-inline">RE: <a href="${original.uri}">${original.uri}</a></p><p>unasked</p>`,
      quote: new URL(original.uri),
    });
    await fedify.sendActivity(
      { identifier: 'miko' },
      { id: new URL('https://a.test/users/alice'), inboxId: new URL('https://a.test/users/alice/inbox') },
      new Create({ id: new URL(`${note.id!.href}/activity`), actor: me, object: note, to: PUBLIC_COLLECTION }),
    );
    const pending = await arrived(a, alice, note.id!.href);
    expect(pending.quote).toEqual({ state: 'pending', quoted_status: null });
    expect(pending.content).toContain('<p class="quote-inline">RE: ');
  });

  it('answers a QuoteRequest its post’s policy forbids with a Reject, and keeps no approved quote', async () => {
    const fedify = await m.social.federation!.context();
    const me = fedify.getActorUri('miko');
    const closed = (
      await apiCall(b, bob, 'POST', '/api/v1/statuses', { status: 'mine alone', quote_approval_policy: 'nobody' })
    ).json as Status;
    const instrument = new Note({
      id: new URL(`${me.href}/notes/q4`),
      attribution: me,
      to: PUBLIC_COLLECTION,
      content: '<p>mine now</p>',
      quote: new URL(closed.uri),
    });
    // What reaches m.test's inboxes, read on the way (the request then goes on as usual).
    const received: { type: string; object?: { id?: string } }[] = [];
    m.intercept = async (req) => {
      if (req.method === 'POST' && req.url.endsWith('inbox')) received.push(await req.clone().json());
      return null;
    };
    try {
      await fedify.sendActivity(
        { identifier: 'miko' },
        { id: new URL('https://b.test/users/bob'), inboxId: new URL('https://b.test/users/bob/inbox') },
        new QuoteRequest({
          id: new URL(`${me.href}/quote_requests/q4`),
          actor: me,
          object: new URL(closed.uri),
          instrument,
        }),
      );
      const answer = await eventually(
        () => received.find((r) => r.object?.id === `${me.href}/quote_requests/q4`),
        'b’s answer on m',
      );
      expect(answer.type).toBe('Reject');
    } finally {
      m.intercept = null;
    }
    expect((await apiCall(b, bob, 'GET', `/api/v1/statuses/${closed.id}/quotes`)).json).toEqual([]);
    expect(
      (await bob.client.v1.notifications.list({ types: ['quote'] as never })).map((n) => n.status?.uri),
    ).not.toContain(instrument.id!.href);
  });

  it('accepts a quote Hollo asks for: its Create leaves the pending quote out, the QuoteRequest’s instrument has it', async () => {
    const fedify = await m.social.federation!.context();
    const me = fedify.getActorUri('miko');
    const original = (await apiCall(b, bob, 'POST', '/api/v1/statuses', { status: 'quote me, hollo' })).json as Status;
    const id = new URL(`${me.href}/notes/hollo1`);
    const common = { id, attribution: me, to: PUBLIC_COLLECTION, content: '<p>so well put</p>' };
    const bobInbox = { id: new URL('https://b.test/users/bob'), inboxId: new URL('https://b.test/users/bob/inbox') };
    // As Hollo 0.9 sends them: first the post without its quote (pending), mentioning bob so it reaches b…
    await fedify.sendActivity(
      { identifier: 'miko' },
      bobInbox,
      new Create({
        id: new URL(`${id.href}/activity`),
        actor: me,
        object: new Note({ ...common, cc: bobInbox.id, tags: [new Mention({ href: bobInbox.id })] }),
        to: PUBLIC_COLLECTION,
      }),
    );
    const store = b.social.context.store;
    const stored = await eventually(
      () => store.db.prepare('SELECT id FROM statuses WHERE uri = ?').get(id.href) as { id: bigint } | undefined,
      'the post without its quote on b',
    );
    expect(store.quotes.ofStatus(String(stored.id))).toBeNull();
    // …then the request, whose instrument is the same post with the quote.
    await fedify.sendActivity(
      { identifier: 'miko' },
      bobInbox,
      new QuoteRequest({
        id: new URL(`${me.href}/quote_requests/hollo1`),
        actor: me,
        object: new URL(original.uri),
        instrument: new Note({ ...common, quote: new URL(original.uri) }),
      }),
    );
    const quotes = await eventually(async () => {
      const list = (await apiCall(b, bob, 'GET', `/api/v1/statuses/${original.id}/quotes`)).json as Status[];
      return list.length ? list : null;
    }, 'the accepted quote on b');
    expect(quotes.map((q) => [q.uri, q.quote?.state, q.quote?.quoted_status?.id])).toEqual([
      [id.href, 'accepted', original.id],
    ]);
    expect((await bob.client.v1.notifications.list({ types: ['quote'] as never })).map((n) => n.status?.uri)).toContain(
      id.href,
    );
  });
});
