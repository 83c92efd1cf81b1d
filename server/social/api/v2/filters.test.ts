import { beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { useSocialTestServer } from '../../testing/use-server.ts';

/*
 * Filters through masto.js, fetch and ws: v2 filters with keywords edited in one request, statuses in a
 * filter, the legacy v1 view, and filtering on the server: `filtered` on matching statuses, `hide` removing
 * them from timelines, threads, notifications and streams, each context apart, `filters_changed` once per edit.
 */

const t = useSocialTestServer('alice', 'bob');

beforeAll(async () => {
  await t.server.masto(t.alice.token).v1.accounts.$select(t.bob.accountId).follow();
});

async function api(method: string, path: string, body?: unknown, token = t.alice.token) {
  const res = await t.server.fetch(`${t.server.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & Record<string, unknown>[] };
}

async function removeAllFilters(): Promise<void> {
  for (const f of (await api('GET', '/api/v2/filters')).body as unknown as { id: string }[])
    await api('DELETE', `/api/v2/filters/${f.id}`);
}

describe('filters v2', () => {
  it('are created with keywords, which one request edits, adds and removes; each edit tells the user stream once', async () => {
    const ws = new WebSocket(`${t.server.url.replace('http', 'ws')}/api/v1/streaming?stream=user`, [t.alice.token]);
    const frames: { event: string; payload?: string }[] = [];
    ws.on('message', (d) => frames.push(JSON.parse(d.toString())));
    await new Promise((r) => ws.on('open', r));
    await vi.waitFor(() => expect(t.server.social.streaming.stats().subscriptions).toBeGreaterThanOrEqual(1), {
      timeout: 10_000,
    });

    const created = await t.server.masto(t.alice.token).v2.filters.create({
      title: 'Spoilers',
      context: ['home', 'public'],
      filterAction: 'warn',
      keywordsAttributes: [{ keyword: 'finale', wholeWord: true }, { keyword: 'ending' }],
    });
    expect(created.keywords!.map((k) => k.keyword)).toEqual(['finale', 'ending']);
    const [finale, ending] = created.keywords!;
    const updated = await api('PUT', `/api/v2/filters/${created.id}`, {
      title: 'TV spoilers',
      filter_action: 'hide',
      keywords_attributes: [
        { id: finale.id, keyword: 'season finale', whole_word: false },
        { id: ending.id, _destroy: true },
        { keyword: 'twist' },
      ],
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ title: 'TV spoilers', filter_action: 'hide', context: ['home', 'public'] });
    expect(
      (updated.body.keywords as unknown as { keyword: string; whole_word: boolean }[]).map((k) => [
        k.keyword,
        k.whole_word,
      ]),
    ).toEqual([
      ['season finale', false],
      ['twist', true],
    ]);
    // Two changes, two frames: a third would come with them (one per change, sent as it commits).
    await vi.waitFor(() => expect(frames.filter((f) => f.event === 'filters_changed')).toHaveLength(2), {
      timeout: 10_000,
    });
    expect(frames.find((f) => f.event === 'filters_changed')).not.toHaveProperty('payload');
    ws.close();

    // Keywords and statuses have routes of their own.
    const added = await t.server
      .masto(t.alice.token)
      .v2.filters.$select(created.id)
      .keywords.create({ keyword: 'cliffhanger' });
    expect((await t.server.masto(t.alice.token).v2.filters.keywords.$select(added.id).fetch()).keyword).toBe(
      'cliffhanger',
    );
    await t.server.masto(t.alice.token).v2.filters.keywords.$select(added.id).remove();
    expect(
      (await t.server.masto(t.alice.token).v2.filters.$select(created.id).keywords.list()).map((k) => k.keyword),
    ).toEqual(['season finale', 'twist']);
    // Another user's filter does not exist for you.
    expect((await api('GET', `/api/v2/filters/${created.id}`, undefined, t.bob.token)).status).toBe(404);
    expect((await api('POST', '/api/v2/filters', { title: 'x', context: ['nowhere'] })).status).toBe(422);
    expect((await api('POST', '/api/v2/filters', { context: ['home'] })).status).toBe(422);
    await removeAllFilters();
  });

  it('marks matching statuses filtered (warn) and removes them (hide), in their contexts only', async () => {
    await t.server.masto(t.alice.token).v2.filters.create({
      title: 'Cats',
      context: ['home'],
      filterAction: 'warn',
      keywordsAttributes: [{ keyword: 'cat', wholeWord: true }],
    });
    await t.server.masto(t.alice.token).v2.filters.create({
      title: 'Politics',
      context: ['home', 'thread'],
      filterAction: 'hide',
      keywordsAttributes: [{ keyword: 'elect', wholeWord: false }],
    });
    const cat = await t.server.masto(t.bob.token).v1.statuses.create({ status: 'my cat sleeps' });
    const cats = await t.server.masto(t.bob.token).v1.statuses.create({ status: 'cats everywhere' });
    const vote = await t.server.masto(t.bob.token).v1.statuses.create({ status: 'the election is near' });
    const reply = await t.server
      .masto(t.bob.token)
      .v1.statuses.create({ status: 're-election talk', inReplyToId: cat.id });

    const home = await api('GET', '/api/v1/timelines/home');
    const byId = new Map(
      (
        home.body as unknown as { id: string; filtered: { filter: { title: string }; keyword_matches: string[] }[] }[]
      ).map((s) => [s.id, s]),
    );
    expect(byId.get(cat.id)!.filtered).toEqual([
      expect.objectContaining({
        filter: expect.objectContaining({ title: 'Cats', filter_action: 'warn' }),
        keyword_matches: ['cat'],
      }),
    ]);
    expect(byId.get(cat.id)!.filtered[0].filter).not.toHaveProperty('keywords');
    // Whole word: "cat" does not match "cats".
    expect(byId.get(cats.id)!.filtered).toEqual([]);
    expect(byId.has(vote.id)).toBe(false);
    // Not in the public context: shown there, unfiltered.
    const local = await api('GET', '/api/v1/timelines/public?local=true');
    expect((local.body as unknown as { id: string }[]).map((s) => s.id)).toContain(vote.id);
    // In the thread context: the reply is hidden from the thread.
    const thread = await api('GET', `/api/v1/statuses/${cat.id}/context`);
    expect((thread.body.descendants as unknown as { id: string }[]).map((s) => s.id)).not.toContain(reply.id);
    // A single status carries the matches of every context.
    expect(((await api('GET', `/api/v1/statuses/${vote.id}`)).body.filtered as unknown[]).length).toBe(1);
    await removeAllFilters();
    expect(
      ((await api('GET', '/api/v1/timelines/home')).body as unknown as { id: string }[]).map((s) => s.id),
    ).toContain(vote.id);
  });

  it('filters a chosen status, hides notifications in the notifications context, and keeps hidden statuses off streams', async () => {
    const post = await t.server.masto(t.bob.token).v1.statuses.create({ status: 'this one exactly' });
    const filter = await t.server
      .masto(t.alice.token)
      .v2.filters.create({ title: 'That post', context: ['home'], filterAction: 'warn' });
    const entry = await api('POST', `/api/v2/filters/${filter.id}/statuses`, { status_id: post.id });
    expect(entry.body).toEqual({ id: expect.any(String), status_id: post.id });
    const home = (await api('GET', '/api/v1/timelines/home')).body as unknown as {
      id: string;
      filtered: { status_matches: string[] }[];
    }[];
    expect(home.find((s) => s.id === post.id)!.filtered[0].status_matches).toEqual([post.id]);
    await api('DELETE', `/api/v2/filters/statuses/${entry.body.id}`);

    await t.server.masto(t.alice.token).v2.filters.create({
      title: 'Quiet',
      context: ['notifications', 'public'],
      filterAction: 'hide',
      keywordsAttributes: [{ keyword: 'giveaway' }],
    });
    const ws = new WebSocket(`${t.server.url.replace('http', 'ws')}/api/v1/streaming?stream=public:local`, [
      t.alice.token,
    ]);
    const frames: { event: string; payload: string }[] = [];
    ws.on('message', (d) => frames.push(JSON.parse(d.toString())));
    await new Promise((r) => ws.on('open', r));
    await vi.waitFor(() => expect(t.server.social.streaming.stats().subscriptions).toBeGreaterThanOrEqual(1), {
      timeout: 10_000,
    });
    const spam = await t.server.masto(t.bob.token).v1.statuses.create({ status: '@alice giveaway inside' });
    const fine = await t.server.masto(t.bob.token).v1.statuses.create({ status: '@alice a real question' });
    // The fine post came second: once it is on the stream, the filtered one was handled before it.
    await vi.waitFor(
      () => expect(frames.filter((f) => f.event === 'update').map((f) => JSON.parse(f.payload).id)).toContain(fine.id),
      { timeout: 10_000 },
    );
    const notified = (
      (await api('GET', '/api/v1/notifications?types[]=mention')).body as unknown as { status: { id: string } }[]
    ).map((n) => n.status.id);
    expect(notified).toContain(fine.id);
    expect(notified).not.toContain(spam.id);
    expect(frames.filter((f) => f.event === 'update').map((f) => JSON.parse(f.payload).id)).toEqual([fine.id]);
    ws.close();
    await removeAllFilters();
  });
});

describe('filters v1', () => {
  it('shows each keyword as a filter of its own, irreversible when it hides', async () => {
    await removeAllFilters();
    const created = await api('POST', '/api/v1/filters', {
      phrase: 'Spoiler',
      context: ['home'],
      irreversible: true,
      whole_word: false,
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ phrase: 'Spoiler', context: ['home'], irreversible: true, whole_word: false });
    expect(
      ((await api('GET', '/api/v2/filters')).body as unknown as { title: string; filter_action: string }[])[0],
    ).toMatchObject({ title: 'Spoiler', filter_action: 'hide' });
    const updated = await api('PUT', `/api/v1/filters/${created.body.id}`, {
      phrase: 'Spoilers',
      context: ['home', 'public'],
      irreversible: false,
    });
    expect(updated.body).toMatchObject({ phrase: 'Spoilers', context: ['home', 'public'], irreversible: false });
    expect(
      ((await api('GET', '/api/v1/filters')).body as unknown as { phrase: string }[]).map((f) => f.phrase),
    ).toEqual(['Spoilers']);
    await api('DELETE', `/api/v1/filters/${created.body.id}`);
    expect((await api('GET', '/api/v2/filters')).body).toEqual([]);
  });
});
