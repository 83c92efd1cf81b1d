import { describe, expect, it } from 'vitest';
import { jsonRequest, useStatusCast } from '../../../testing/status-cast.ts';

/*
 * Statuses through real clients: masto.js and megalodon against a running Homeport, every JSON body
 * validated against the Mastodon OpenAPI document by the harness: posting, visibility, threads, editing and
 * deleting (status-interactions.test.ts: reblogs, favourites, bookmarks, pins, conversation mutes, quote policy).
 */

/** alice, followed by bob and carol; dave follows nobody. */
const c = useStatusCast();
const api = (token: string | null, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  jsonRequest(c.server, token, method, path, body, headers);

describe('posting', () => {
  it('formats links, mentions and hashtags as Mastodon does, and records mentions and tags', async () => {
    const status = await c.server.masto(c.alice.token).v1.statuses.create({
      status: 'Hi @bob and @nobody! Read https://example.org/some/long/path/to/an/article?x=1 #Homeport #café',
      visibility: 'public',
      language: 'en',
      spoilerText: '',
    });
    expect(status.content).toContain(
      '<span class="h-card" translate="no"><a href="' +
        c.server.url +
        '/@bob" class="u-url mention">@<span>bob</span></a></span>',
    );
    expect(status.content).toContain('@nobody');
    expect(status.content).toContain(
      '<a href="https://example.org/some/long/path/to/an/article?x=1" target="_blank" rel="nofollow noopener" translate="no">',
    );
    expect(status.content).toContain(
      `<a href="${c.server.url}/tags/homeport" class="mention hashtag" rel="tag">#<span>Homeport</span></a>`,
    );
    expect(status.mentions).toEqual([
      { id: c.bob.accountId, username: 'bob', acct: 'bob', url: `${c.server.url}/@bob` },
    ]);
    expect(status.tags.map((t) => t.name).sort()).toEqual(['café', 'homeport']);
    expect(status.language).toBe('en');
    expect(status.account.id).toBe(c.alice.accountId);
    expect(status.application).toEqual({ name: 'Homeport', website: null }); // the app of the token: the built-in one
    expect(status.uri).toBe(`${c.server.url}/users/alice/statuses/${status.id}`);
    expect(status.url).toBe(`${c.server.url}/@alice/${status.id}`);
    expect([status.favourited, status.reblogged, status.bookmarked, status.muted, status.pinned]).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
    const account = await c.server.masto(c.alice.token).v1.accounts.$select(c.alice.accountId).fetch();
    expect(account.statusesCount).toBeGreaterThanOrEqual(1);
    expect(account.lastStatusAt).not.toBeNull();
  });

  it('posts through megalodon too, with spoiler text making it sensitive', async () => {
    const res = await c.server
      .megalodon(c.dave.token)
      .postStatus('behind a warning', { spoiler_text: 'cw: birds', visibility: 'unlisted' });
    const status = res.data as { id: string; sensitive: boolean; spoiler_text: string; visibility: string };
    expect(status.sensitive).toBe(true);
    expect(status.spoiler_text).toBe('cw: birds');
    expect(status.visibility).toBe('unlisted');
    const fetched = await c.server.megalodon(c.alice.token).getStatus(status.id);
    expect(fetched.data.content).toBe('<p>behind a warning</p>');
  });

  it('answers bad input with 422 and a reason, never 500', async () => {
    const empty = await api(c.alice.token, 'POST', '/api/v1/statuses', { status: '   ' });
    expect(empty.status).toBe(422);
    expect(empty.body.error).toMatch(/Text can't be blank/);
    const long = await api(c.alice.token, 'POST', '/api/v1/statuses', { status: 'x'.repeat(501) });
    expect(long.status).toBe(422);
    expect(long.body.details.text[0].error).toBe('ERR_TOO_LONG');
    // URLs count as 23 characters whatever their length.
    const urls = await api(c.alice.token, 'POST', '/api/v1/statuses', {
      status: `${'y'.repeat(470)} https://example.org/${'z'.repeat(200)}`,
    });
    expect(urls.status).toBe(200);
    const badVisibility = await api(c.alice.token, 'POST', '/api/v1/statuses', { status: 'x', visibility: 'everyone' });
    expect(badVisibility.status).toBe(422);
    expect(badVisibility.body.details.visibility[0].error).toBe('ERR_INCLUSION');
    const badPoll = await api(c.alice.token, 'POST', '/api/v1/statuses', {
      status: 'x',
      poll: { options: ['only one'], expires_in: 10 },
    });
    expect(badPoll.status).toBe(422);
    expect(Object.keys(badPoll.body.details).sort()).toEqual(['poll[expires_in]', 'poll[options]']);
    const tooManyMedia = await api(c.alice.token, 'POST', '/api/v1/statuses', {
      status: 'x',
      media_ids: ['1', '2', '3', '4', '5'],
    });
    expect(tooManyMedia.status).toBe(422);
    const foreignMedia = await api(c.alice.token, 'POST', '/api/v1/statuses', { status: 'x', media_ids: ['123'] });
    expect(foreignMedia.status).toBe(422);
    expect(foreignMedia.body.details.media_ids[0].description).toContain('123');
    const badSchedule = await api(c.alice.token, 'POST', '/api/v1/statuses', {
      status: 'x',
      scheduled_at: 'tomorrow-ish',
    });
    expect(badSchedule.status).toBe(422);
    const soon = await api(c.alice.token, 'POST', '/api/v1/statuses', {
      status: 'x',
      scheduled_at: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(soon.status).toBe(422);
    const missingReply = await api(c.alice.token, 'POST', '/api/v1/statuses', { status: 'x', in_reply_to_id: '12345' });
    expect(missingReply.status).toBe(404);
    const notAllowed = await api(c.alice.token, 'POST', '/api/v1/statuses', {
      status: 'hey @carol',
      allowed_mentions: [c.bob.accountId],
    });
    expect(notAllowed.status).toBe(422);
    expect(notAllowed.body.unexpected_accounts.map((a: { id: string }) => a.id)).toEqual([c.carol.accountId]);
  });

  it('does not post twice for a repeated Idempotency-Key', async () => {
    const masto = c.server.masto(c.alice.token);
    const key = `key-${Date.now()}`;
    const first = await masto.v1.statuses.create(
      { status: 'only once' },
      { requestInit: { headers: { 'Idempotency-Key': key } } },
    );
    const second = await masto.v1.statuses.create(
      { status: 'only once' },
      { requestInit: { headers: { 'Idempotency-Key': key } } },
    );
    expect(second.id).toBe(first.id);
    const other = await masto.v1.statuses.create(
      { status: 'only once' },
      { requestInit: { headers: { 'Idempotency-Key': `${key}-2` } } },
    );
    expect(other.id).not.toBe(first.id);
    // Another user's identical key is their own.
    const bobs = await c.server
      .masto(c.bob.token)
      .v1.statuses.create({ status: 'only once' }, { requestInit: { headers: { 'Idempotency-Key': key } } });
    expect(bobs.id).not.toBe(first.id);
    const mine = await masto.v1.accounts.$select(c.alice.accountId).statuses.list({ limit: 40 });
    expect(mine.filter((s) => s.id === first.id)).toHaveLength(1);
  });
});

describe('visibility', () => {
  it('shows each visibility only to those allowed, on the right timelines', async () => {
    const masto = c.server.masto(c.alice.token);
    const posted: Record<string, string> = {};
    for (const visibility of ['public', 'unlisted', 'private', 'direct'] as const) {
      const text = visibility === 'direct' ? `${visibility} note for @carol` : `${visibility} note`;
      posted[visibility] = (await masto.v1.statuses.create({ status: text, visibility })).id;
    }
    const ids = Object.values(posted);
    const see = async (token: string | null, id: string) => (await api(token, 'GET', `/api/v1/statuses/${id}`)).status;

    // Who may open each status.
    expect(await Promise.all(ids.map((id) => see(c.alice.token, id)))).toEqual([200, 200, 200, 200]);
    expect(await Promise.all(ids.map((id) => see(c.bob.token, id)))).toEqual([200, 200, 200, 404]); // follower, not mentioned
    expect(await Promise.all(ids.map((id) => see(c.carol.token, id)))).toEqual([200, 200, 200, 200]); // follower and mentioned
    expect(await Promise.all(ids.map((id) => see(c.dave.token, id)))).toEqual([200, 200, 404, 404]);
    expect(await Promise.all(ids.map((id) => see(null, id)))).toEqual([200, 200, 404, 404]);

    const inList = (list: { id: string }[]) => ids.map((id) => list.some((s) => s.id === id));
    // Home: the author sees all; followers see public, unlisted, private; the mentioned follower also the direct one.
    expect(inList(await masto.v1.timelines.home.list({ limit: 40 }))).toEqual([true, true, true, true]);
    expect(inList(await c.server.masto(c.bob.token).v1.timelines.home.list({ limit: 40 }))).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(inList(await c.server.masto(c.carol.token).v1.timelines.home.list({ limit: 40 }))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(inList(await c.server.masto(c.dave.token).v1.timelines.home.list({ limit: 40 }))).toEqual([
      false,
      false,
      false,
      false,
    ]);
    // Public timelines only carry public statuses, for everyone (anonymous too, through megalodon).
    expect(inList(await c.server.masto(c.dave.token).v1.timelines.public.list({ limit: 40 }))).toEqual([
      true,
      false,
      false,
      false,
    ]);
    expect(inList((await c.server.megalodon().getLocalTimeline({ limit: 40 })).data)).toEqual([
      true,
      false,
      false,
      false,
    ]);
    // Account statuses: anonymous sees public and unlisted; a follower also private; the author everything.
    const profile = (token: string | null) =>
      c.server.megalodon(token ?? undefined).getAccountStatuses(c.alice.accountId, { limit: 40 });
    expect(inList((await profile(null)).data)).toEqual([true, true, false, false]);
    expect(inList((await profile(c.bob.token)).data)).toEqual([true, true, true, false]);
    expect(inList((await profile(c.carol.token)).data)).toEqual([true, true, true, true]);
    expect(inList((await profile(c.alice.token)).data)).toEqual([true, true, true, true]);
    // Batch fetch leaves out what the caller may not read.
    const batch = await c.server.masto(c.dave.token).v1.statuses.fetch({ id: ids });
    expect(batch.map((s) => s.id)).toEqual([posted.public, posted.unlisted]);
  });

  it('hides statuses from an author who blocks the viewer', async () => {
    const status = await c.server
      .masto(c.dave.token)
      .v1.statuses.create({ status: 'dave speaks', visibility: 'public' });
    await c.server.masto(c.dave.token).v1.accounts.$select(c.bob.accountId).block();
    expect((await api(c.bob.token, 'GET', `/api/v1/statuses/${status.id}`)).status).toBe(404);
    expect((await api(c.bob.token, 'GET', `/api/v1/accounts/${c.dave.accountId}/statuses`)).body).toEqual([]);
    await c.server.masto(c.dave.token).v1.accounts.$select(c.bob.accountId).unblock();
    expect((await api(c.bob.token, 'GET', `/api/v1/statuses/${status.id}`)).status).toBe(200);
  });
});

describe('threads', () => {
  it('builds context from replies, with ancestors oldest first and descendants depth first', async () => {
    const a = c.server.masto(c.alice.token);
    const b = c.server.masto(c.bob.token);
    const root = await a.v1.statuses.create({ status: 'root' });
    const r1 = await b.v1.statuses.create({ status: '@alice first reply', inReplyToId: root.id });
    const r2 = await a.v1.statuses.create({ status: '@bob answer', inReplyToId: r1.id });
    const r3 = await b.v1.statuses.create({ status: '@alice second reply', inReplyToId: root.id });
    const hidden = await a.v1.statuses.create({ status: 'private aside', inReplyToId: r3.id, visibility: 'private' });
    expect(r1.inReplyToId).toBe(root.id);
    expect(r1.inReplyToAccountId).toBe(c.alice.accountId);

    const ctx = await b.v1.statuses.$select(r2.id).context.fetch();
    expect(ctx.ancestors.map((s) => s.id)).toEqual([root.id, r1.id]);
    const full = await b.v1.statuses.$select(root.id).context.fetch();
    expect(full.descendants.map((s) => s.id)).toEqual([r1.id, r2.id, r3.id, hidden.id]);
    // dave does not follow alice: her private reply is left out.
    const anon = (await c.server.megalodon(c.dave.token).getStatusContext(root.id)).data;
    expect(anon.descendants.map((s) => s.id)).toEqual([r1.id, r2.id, r3.id]);
    const counted = await a.v1.statuses.$select(root.id).fetch();
    expect(counted.repliesCount).toBe(2); // direct replies only
  });
});

describe('editing and deleting', () => {
  it('edits with history and source', async () => {
    const masto = c.server.masto(c.alice.token);
    const status = await masto.v1.statuses.create({ status: 'first version #one' });
    const never = await masto.v1.statuses.$select(status.id).history.list();
    expect(never).toHaveLength(1);
    const edited = await masto.v1.statuses
      .$select(status.id)
      .update({ status: 'second version #two @bob', spoilerText: 'now with a warning' });
    expect(edited.editedAt).not.toBeNull();
    expect(edited.content).toContain('second version');
    expect(edited.sensitive).toBe(true);
    expect(edited.tags.map((t) => t.name)).toEqual(['two']);
    expect(edited.mentions.map((m) => m.id)).toEqual([c.bob.accountId]);
    await masto.v1.statuses.$select(status.id).update({ status: 'third version' });
    const history = await masto.v1.statuses.$select(status.id).history.list();
    expect(history.map((h) => h.content)).toEqual([
      '<p>first version <a href="' +
        c.server.url +
        '/tags/one" class="mention hashtag" rel="tag">#<span>one</span></a></p>',
      expect.stringContaining('second version'),
      '<p>third version</p>',
    ]);
    expect(history[1].spoilerText).toBe('now with a warning');
    const source = await masto.v1.statuses.$select(status.id).source.fetch();
    expect(source).toEqual({ id: status.id, text: 'third version', spoilerText: '' });
    // Only the author edits or reads the source.
    expect((await api(c.bob.token, 'PUT', `/api/v1/statuses/${status.id}`, { status: 'hijack' })).status).toBe(404);
    expect((await api(c.bob.token, 'GET', `/api/v1/statuses/${status.id}/source`)).status).toBe(404);
    // bob was mentioned by the edit and got a mention notification.
    const mentions = await c.server.masto(c.bob.token).v1.notifications.list({ types: ['mention'] });
    expect(mentions.some((n) => n.status?.id === status.id)).toBe(true);
  });

  it('deletes and redrafts: the response carries the source text', async () => {
    const masto = c.server.masto(c.alice.token);
    const status = await masto.v1.statuses.create({ status: 'to be redrafted #draft', visibility: 'unlisted' });
    await c.server.masto(c.bob.token).v1.statuses.$select(status.id).favourite();
    const deleted = await masto.v1.statuses.$select(status.id).remove();
    expect(deleted.id).toBe(status.id);
    expect(deleted.text).toBe('to be redrafted #draft');
    expect((await api(c.alice.token, 'GET', `/api/v1/statuses/${status.id}`)).status).toBe(404);
    expect((await api(c.alice.token, 'DELETE', `/api/v1/statuses/${status.id}`)).status).toBe(404);
    const redraft = await masto.v1.statuses.create({ status: deleted.text!, visibility: deleted.visibility });
    expect(redraft.content).toBe(status.content);
    const home = await masto.v1.timelines.home.list({ limit: 40 });
    expect(home.some((s) => s.id === status.id)).toBe(false);
    expect(home.some((s) => s.id === redraft.id)).toBe(true);
    // Others cannot delete it.
    expect((await api(c.bob.token, 'DELETE', `/api/v1/statuses/${redraft.id}`)).status).toBe(404);
    // bob's favourite notification about the deleted status is gone from alice's notifications.
    const notes = await masto.v1.notifications.list({ types: ['favourite'] });
    expect(notes.some((n) => n.status?.id === status.id)).toBe(false);
  });
});
