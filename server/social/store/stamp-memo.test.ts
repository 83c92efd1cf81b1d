import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSocialTestServer, type SocialTestServer, type TestUser } from '../testing/harness.ts';

/*
 * A timeline page's author counters, status counters and the viewer's flags are reused while nothing has
 * been written (StampMemo). Whatever changes them, in this process, by another connection to the database
 * (the admin CLI), or inside a write that is then undone, the next page says what the database says.
 */

let server: SocialTestServer;
let author: TestUser;
let reader: TestUser;
let statusId: string;

beforeAll(async () => {
  server = await startSocialTestServer();
  author = await server.createUser('memoauthor');
  reader = await server.createUser('memoreader');
  await server.masto(reader.token).v1.accounts.$select(author.accountId).follow();
  statusId = (await server.call(author.token, 'POST', '/api/v1/statuses', { status: 'counted #memo' })).body.id;
});

afterAll(async () => {
  await server?.close();
});

/** The status as the reader's home timeline shows it, read twice (the second read is the memo's). */
async function shown() {
  const first = await server.call(reader.token, 'GET', '/api/v1/timelines/home');
  const second = await server.call(reader.token, 'GET', '/api/v1/timelines/home');
  expect(second.body).toEqual(first.body);
  const status = first.body.find((s: { id: string }) => s.id === statusId);
  return {
    favourites: status.favourites_count as number,
    favourited: status.favourited as boolean,
    bookmarked: status.bookmarked as boolean,
    authorStatuses: status.account.statuses_count as number,
  };
}

/** Runs SQL on a second connection to the database, as the admin CLI would. */
function otherConnection(sql: string, ...params: unknown[]) {
  const other = new Database(path.join(server.dir, 'social.db'));
  try {
    other.prepare(sql).run(...params);
  } finally {
    other.close();
  }
}

describe('memoized counters and flags of timeline pages', () => {
  it('show a favourite and a bookmark made through the API at the next page', async () => {
    expect(await shown()).toEqual({ favourites: 0, favourited: false, bookmarked: false, authorStatuses: 1 });
    await server.call(reader.token, 'POST', `/api/v1/statuses/${statusId}/favourite`);
    await server.call(reader.token, 'POST', `/api/v1/statuses/${statusId}/bookmark`);
    expect(await shown()).toEqual({ favourites: 1, favourited: true, bookmarked: true, authorStatuses: 1 });
  });

  it('show changes another connection to the database made at the next page', async () => {
    expect((await shown()).favourites).toBe(1);
    otherConnection('DELETE FROM favourites WHERE status_id = ?', statusId);
    otherConnection('DELETE FROM bookmarks WHERE status_id = ?', statusId);
    expect(await shown()).toEqual({ favourites: 0, favourited: false, bookmarked: false, authorStatuses: 1 });
    otherConnection('UPDATE account_stats SET statuses_count = 7 WHERE account_id = ?', author.accountId);
    expect((await shown()).authorStatuses).toBe(7);
  });

  it("follow the viewer's mutes (the listing's filters are reused too)", async () => {
    const home = async () =>
      (await server.call(reader.token, 'GET', '/api/v1/timelines/home')).body.map((s: { id: string }) => s.id);
    expect(await home()).toContain(statusId);
    expect(await home()).toContain(statusId);
    await server.call(reader.token, 'POST', `/api/v1/accounts/${author.accountId}/mute`);
    expect(await home()).not.toContain(statusId);
    await server.call(reader.token, 'POST', `/api/v1/accounts/${author.accountId}/unmute`);
    expect(await home()).toContain(statusId);
  });

  it('keep nothing read inside a write that was then undone', async () => {
    const store = server.social.context.store;
    const readerId = reader.accountId;
    expect((await shown()).favourites).toBe(0);
    expect(() =>
      store.transaction(() => {
        store.interactions.favourite(readerId, statusId);
        // What the write sees of its own change: read inside it, undone with it.
        expect(store.statuses.counts([statusId]).get(statusId)?.favourites).toBe(1);
        expect(store.interactions.flags(readerId, [statusId], []).favourited.has(statusId)).toBe(true);
        throw new Error('undone');
      }),
    ).toThrow('undone');
    await store.durable();
    expect(store.read(() => store.statuses.counts([statusId]).get(statusId)?.favourites)).toBe(0);
    expect(await shown()).toEqual({ favourites: 0, favourited: false, bookmarked: false, authorStatuses: 7 });
  });
});
