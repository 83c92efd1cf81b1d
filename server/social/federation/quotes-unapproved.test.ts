import { Create, Mention, Note, PUBLIC_COLLECTION, QuoteRequest } from '@fedify/vocab';
import { beforeAll, describe, expect, it } from 'vitest';
import { arrived, getStatus, type Status, useQuoteServers } from './testing/quote-posts.ts';
import { apiCall, eventually, follow } from './testing/test-network.ts';

/*
 * Quotes from servers that ask no approval, or ask it their own way, between Homeports in this process with
 * real signed HTTP: miko on m.test sends what Misskey and Akkoma send (`_misskey_quote`, a FEP-044f quote
 * without a stamp) to alice on a.test, and what Hollo sends (a Create without its quote, then a QuoteRequest)
 * to bob on b.test, whose post's policy decides. Quotes between servers with approvals: quotes.test.ts.
 */

const t = useQuoteServers('m.test', 'miko');

beforeAll(async () => {
  await follow(t.alice, 'miko@m.test');
});

describe('quotes from servers without approvals (Misskey, Akkoma)', () => {
  it('shows a `_misskey_quote` of someone else as the text with its RE: link, and a self-quote as a quote', async () => {
    const original = (await apiCall(t.a, t.alice, 'POST', '/api/v1/statuses', { status: 'a post to quote' }))
      .json as Status;
    const own = (await apiCall(t.third, t.thirdUser, 'POST', '/api/v1/statuses', { status: 'my own words' }))
      .json as Status;
    await arrived(t.a, t.alice, own.uri);

    // What Misskey sends: _misskey_quote and quoteUrl (no FEP-044f `quote`), the link written into the text.
    const fedify = await t.third.social.federation!.context();
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

    const legacy = await arrived(t.a, t.alice, legacyUri);
    expect(legacy.quote).toBeNull();
    expect(legacy.content).toContain('RE: <a href="https://a.test/users/alice/statuses/');
    expect(legacy.content).toContain('class="quote-inline"');
    // Not approved, so not counted among the quotes of alice's post.
    expect(((await getStatus(t.a, t.alice, original.id)) as unknown as { quotes_count: number }).quotes_count).toBe(0);

    const selfQuote = await arrived(t.a, t.alice, selfUri);
    expect(selfQuote.quote).toMatchObject({ state: 'accepted', quoted_status: { uri: own.uri } });
  });

  it('shows a FEP-044f quote that comes without a stamp as pending, its text kept', async () => {
    const fedify = await t.third.social.federation!.context();
    const me = fedify.getActorUri('miko');
    const original = (await apiCall(t.b, t.bob, 'POST', '/api/v1/statuses', { status: 'quoted without asking' }))
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
    const pending = await arrived(t.a, t.alice, note.id!.href);
    expect(pending.quote).toEqual({ state: 'pending', quoted_status: null });
    expect(pending.content).toContain('<p class="quote-inline">RE: ');
  });

  it('answers a QuoteRequest its post’s policy forbids with a Reject, and keeps no approved quote', async () => {
    const fedify = await t.third.social.federation!.context();
    const me = fedify.getActorUri('miko');
    const closed = (
      await apiCall(t.b, t.bob, 'POST', '/api/v1/statuses', { status: 'mine alone', quote_approval_policy: 'nobody' })
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
    t.third.intercept = async (req) => {
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
      t.third.intercept = null;
    }
    expect((await apiCall(t.b, t.bob, 'GET', `/api/v1/statuses/${closed.id}/quotes`)).json).toEqual([]);
    expect(
      (await t.bob.client.v1.notifications.list({ types: ['quote'] as never })).map((n) => n.status?.uri),
    ).not.toContain(instrument.id!.href);
  });

  it('accepts a quote Hollo asks for: its Create leaves the pending quote out, the QuoteRequest’s instrument has it', async () => {
    const fedify = await t.third.social.federation!.context();
    const me = fedify.getActorUri('miko');
    const original = (await apiCall(t.b, t.bob, 'POST', '/api/v1/statuses', { status: 'quote me, hollo' }))
      .json as Status;
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
    const store = t.b.social.context.store;
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
      const list = (await apiCall(t.b, t.bob, 'GET', `/api/v1/statuses/${original.id}/quotes`)).json as Status[];
      return list.length ? list : null;
    }, 'the accepted quote on b');
    expect(quotes.map((q) => [q.uri, q.quote?.state, q.quote?.quoted_status?.id])).toEqual([
      [id.href, 'accepted', original.id],
    ]);
    expect(
      (await t.bob.client.v1.notifications.list({ types: ['quote'] as never })).map((n) => n.status?.uri),
    ).toContain(id.href);
  });
});
