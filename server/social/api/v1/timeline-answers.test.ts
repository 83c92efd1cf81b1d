import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSocialWithClock, type SocialTestServer, type TestUser } from '../../testing/harness.ts';
import { filterBeforeItsEvent, freshHomeText } from '../../testing/renderings.ts';

/*
 * Kept timeline answers (timeline-answers.ts) are exact: each test reads a page until it is kept (asked twice)
 * and once more from what was kept, changes what it shows (a write through the API, a write by another connection, or the clock
 * alone: a mute or a filter running out, a poll closing) and expects the change at the very next read, with
 * the bytes the presenter writes afresh.
 */

const clock = { now: Date.parse('2030-01-01T12:00:00.000Z') };
let server: SocialTestServer;
let reader: TestUser;
let writer: TestUser;

beforeAll(async () => {
  // The due-jobs timer waits an hour: a poll closing writes nothing the kept answer could notice.
  server = await startSocialWithClock(() => clock.now, { social: { dueJobsMaxWaitMs: 3_600_000 } });
  [reader, writer] = await Promise.all([server.createUser('reader'), server.createUser('writer')]);
  await server.masto(reader.token).v1.accounts.$select(writer.accountId).follow();
});

afterAll(async () => {
  await server?.close();
});

async function read(token: string | null, address: string): Promise<{ text: string; link: string | null }> {
  const res = await server.fetch(`${server.url}${address}`, {
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });
  expect(res.status).toBe(200);
  return { text: await res.text(), link: res.headers.get('link') };
}

/** A filter of `keyword` on the reader's home page, made through the API, running out in 60 s. */
function filterForAMinute(keyword: string, action: 'warn' | 'hide') {
  return server.call(reader.token, 'POST', '/api/v2/filters', {
    title: keyword,
    context: ['home'],
    filter_action: action,
    expires_in: 60,
    keywords_attributes: [{ keyword }],
  });
}

/** Reads a page three times: an answer is kept when asked a second time, and the third read is the kept one. */
async function thrice(token: string | null, address: string): Promise<{ text: string; link: string | null }> {
  const first = await read(token, address);
  expect(await read(token, address)).toEqual(first);
  expect(await read(token, address)).toEqual(first);
  return first;
}

/** The reader's home page, read until kept, checked against a fresh rendering. */
async function home(): Promise<{ id: string; [k: string]: unknown }[]> {
  const { text } = await thrice(reader.token, '/api/v1/timelines/home');
  expect(text).toBe(freshHomeText(server, reader.accountId));
  return JSON.parse(text) as { id: string }[];
}

describe('kept timeline answers', () => {
  it('show a write through the API at the next read: favourites, new posts on home and hashtag pages', async () => {
    const status = await server.masto(writer.token).v1.statuses.create({ status: 'first #kept' });
    expect((await home()).find((s) => s.id === status.id)).toMatchObject({ favourited: false, favourites_count: 0 });
    await thrice(null, '/api/v1/timelines/tag/kept');

    await server.masto(reader.token).v1.statuses.$select(status.id).favourite();
    expect((await home()).find((s) => s.id === status.id)).toMatchObject({ favourited: true, favourites_count: 1 });
    const second = await server.masto(writer.token).v1.statuses.create({ status: 'second #kept' });
    expect((await home())[0].id).toBe(second.id);
    const tagNow = await read(null, '/api/v1/timelines/tag/kept');
    expect((JSON.parse(tagNow.text) as { id: string }[]).map((s) => s.id)).toEqual([second.id, status.id]);
    expect(tagNow.link).toContain(`min_id=${second.id}`);
    // Another page of the same timeline is another answer.
    const one = await read(reader.token, '/api/v1/timelines/home?limit=1');
    expect((JSON.parse(one.text) as { id: string }[]).map((s) => s.id)).toEqual([second.id]);
  });

  it('show a write by another connection at the next read', async () => {
    const status = await server.masto(writer.token).v1.statuses.create({ status: 'before' });
    expect((await home())[0]).toMatchObject({ id: status.id, content: '<p>before</p>' });
    const other = new Database(path.join(server.dir, 'social.db'));
    try {
      // As the admin CLI or a second process would: another connection, seen through SQLite's data_version.
      other
        .prepare('UPDATE statuses SET content = ?, updated_at = updated_at + 1 WHERE id = ?')
        .run('<p>after</p>', status.id);
    } finally {
      other.close();
    }
    expect((await home())[0]).toMatchObject({ id: status.id, content: '<p>after</p>' });
  });

  it('are not kept from filters compiled before a filter change reached them', async () => {
    const ctx = server.social.context;
    const status = await server.masto(writer.token).v1.statuses.create({ status: 'about parsnips' });
    expect((await home()).map((s) => s.id)).toContain(status.id);
    // The window between a filter's rows and its change event (delivered after commit): pages read in it use
    // what was compiled before, so their answers must not outlive the event.
    const filterId = await filterBeforeItsEvent(server, reader.accountId, 'parsnips', 'hide');
    await thrice(reader.token, '/api/v1/timelines/home');
    ctx.events.emit('filters.changed', { accountId: reader.accountId });
    expect((await home()).map((s) => s.id)).not.toContain(status.id);
    await server.call(reader.token, 'DELETE', `/api/v2/filters/${filterId}`);
  });

  it('show a mute running out with nothing written', async () => {
    const status = await server.masto(writer.token).v1.statuses.create({ status: 'muted for a minute' });
    await server.masto(reader.token).v1.accounts.$select(writer.accountId).mute({ duration: 60 });
    expect((await home()).map((s) => s.id)).not.toContain(status.id);
    clock.now += 61_000;
    expect((await home()).map((s) => s.id)).toContain(status.id);
  });

  it('show a filter running out with nothing written', async () => {
    const status = await server.masto(writer.token).v1.statuses.create({ status: 'about rhubarb' });
    await filterForAMinute('rhubarb', 'hide');
    expect((await home()).map((s) => s.id)).not.toContain(status.id);
    clock.now += 61_000;
    expect((await home()).map((s) => s.id)).toContain(status.id);
  });

  it('show a poll closing with nothing written', async () => {
    const status = await server
      .masto(writer.token)
      .v1.statuses.create({ status: 'tea or coffee?', poll: { options: ['tea', 'coffee'], expiresIn: 300 } });
    expect((await home()).find((s) => s.id === status.id)?.poll).toMatchObject({ expired: false });
    clock.now += 301_000;
    expect((await home()).find((s) => s.id === status.id)?.poll).toMatchObject({ expired: true });
  });
});

/*
 * Each status's finished text is kept per viewer while nothing is written (entities/status-texts.ts). These read
 * the home page at an address never asked before (so no whole answer is kept: each page is joined from kept
 * status texts), change what a status shows (a write through the API, a write by another connection, a filter
 * change reaching the compiled filters, or the clock alone) and expect the change at the very next page, equal
 * byte for byte to the object rendering made afresh.
 */
let address = 0;

type Shown = { id: string; [k: string]: unknown };

/** The reader's home page at an address new each time, twice (the second joined from kept texts), checked. */
async function homeAtNewAddress(): Promise<Shown[]> {
  const texts: string[] = [];
  for (let i = 0; i < 2; i++) {
    const res = await server.fetch(`${server.url}/api/v1/timelines/home?texts=${address++}`, {
      headers: { Authorization: `Bearer ${reader.token}` },
    });
    expect(res.status).toBe(200);
    texts.push(await res.text());
  }
  expect(texts[1]).toBe(texts[0]);
  expect(texts[0]).toBe(freshHomeText(server, reader.accountId));
  return JSON.parse(texts[0]) as Shown[];
}

const find = async (id: string) => (await homeAtNewAddress()).find((s) => s.id === id);

describe('kept status texts', () => {
  it('follow writes through the API: favourites and counters, the author, polls voted on, edits', async () => {
    const m = server.masto(writer.token);
    const status = await m.v1.statuses.create({
      status: 'first',
      poll: { options: ['yes', 'no'], expiresIn: 3_600 },
    });
    expect(await find(status.id)).toMatchObject({ favourited: false, favourites_count: 0 });
    await server.masto(reader.token).v1.statuses.$select(status.id).favourite();
    expect(await find(status.id)).toMatchObject({ favourited: true, favourites_count: 1 });
    await m.v1.accounts.updateCredentials({ displayName: 'Writer Renamed' });
    expect(await find(status.id)).toMatchObject({ account: { display_name: 'Writer Renamed' } });
    const poll = (await find(status.id))?.poll as { id: string };
    await server
      .masto(reader.token)
      .v1.polls.$select(poll.id)
      .votes.create({ choices: [0] });
    expect((await find(status.id))?.poll).toMatchObject({ voted: true, own_votes: [0], votes_count: 1 });
    // An edit without a poll drops it (as Mastodon's), in the same millisecond as the post on this clock.
    await m.v1.statuses.$select(status.id).update({ status: 'first, edited' });
    expect(await find(status.id)).toMatchObject({ content: '<p>first, edited</p>', poll: null });
  });

  it('follow a write by another connection', async () => {
    const status = await server.masto(writer.token).v1.statuses.create({ status: 'before' });
    expect(await find(status.id)).toMatchObject({ content: '<p>before</p>' });
    const other = new Database(path.join(server.dir, 'social.db'));
    try {
      // The statuses row alone (its version unchanged): only the write stamp can tell.
      other.prepare('UPDATE status_stats SET replies_count = 7 WHERE status_id = ?').run(status.id);
      other.prepare('INSERT OR IGNORE INTO status_stats (status_id, replies_count) VALUES (?, 7)').run(status.id);
    } finally {
      other.close();
    }
    expect(await find(status.id)).toMatchObject({ replies_count: 7 });
  });

  it('are not kept from filters compiled before a filter change reached them', async () => {
    const ctx = server.social.context;
    const status = await server.masto(writer.token).v1.statuses.create({ status: 'about parsnips' });
    expect(await find(status.id)).toMatchObject({ filtered: [] });
    // The window between a filter's rows and its change event (delivered after commit): pages read in it use
    // what was compiled before, so their texts must not outlive the event.
    const filterId = await filterBeforeItsEvent(server, reader.accountId, 'parsnips', 'warn');
    await homeAtNewAddress();
    ctx.events.emit('filters.changed', { accountId: reader.accountId });
    expect((await find(status.id))?.filtered).toHaveLength(1);
    await server.call(reader.token, 'DELETE', `/api/v2/filters/${filterId}`);
  });

  it('follow a filter running out and a poll closing with nothing written', async () => {
    const status = await server.masto(writer.token).v1.statuses.create({
      status: 'rhubarb or custard?',
      poll: { options: ['rhubarb', 'custard'], expiresIn: 300 },
    });
    await filterForAMinute('rhubarb', 'warn');
    const before = await find(status.id);
    expect(before?.filtered).toHaveLength(1);
    expect(before?.poll).toMatchObject({ expired: false });
    clock.now += 61_000;
    const later = await find(status.id);
    expect(later?.filtered).toEqual([]);
    expect(later?.poll).toMatchObject({ expired: false });
    clock.now += 240_000;
    expect((await find(status.id))?.poll).toMatchObject({ expired: true });
  });
});
