import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
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

/** The status `id` as the home timeline of `token` shows it, read twice (the second read is the memo's). */
async function onHome(token: string, id: string) {
  const first = await server.call(token, 'GET', '/api/v1/timelines/home');
  const second = await server.call(token, 'GET', '/api/v1/timelines/home');
  expect(second.body).toEqual(first.body);
  return first.body.find((s: { id: string }) => s.id === id);
}

/** The status as the reader's home timeline shows it. */
async function shown() {
  const status = await onHome(reader.token, statusId);
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

/*
 * The authors with their counters, the statuses' counters and the viewer's flags are kept through writes that
 * leave them alone (rowMemo): a page read right after an unrelated post or favourite reads none of them again,
 * and each write that changes one shows at the next page.
 */
describe('memos kept through unrelated writes', () => {
  let poster: TestUser;
  let viewer: TestUser;
  let other: TestUser;
  let postId: string;

  beforeAll(async () => {
    poster = await server.createUser('rowposter');
    viewer = await server.createUser('rowviewer');
    other = await server.createUser('rowother');
    await server.masto(viewer.token).v1.accounts.$select(poster.accountId).follow();
    postId = (await server.call(poster.token, 'POST', '/api/v1/statuses', { status: 'kept #rows' })).body.id;
  });

  /** The post as the viewer's home timeline shows it. */
  async function page() {
    const s = await onHome(viewer.token, postId);
    return {
      favourites: s.favourites_count,
      favourited: s.favourited,
      reblogs: s.reblogs_count,
      reblogged: s.reblogged,
      muted: s.muted,
      statuses: s.account.statuses_count,
      followers: s.account.followers_count,
      name: s.account.display_name,
    };
  }

  it('read nothing again after a write to other rows', async () => {
    const { store } = server.social.context;
    await page();
    const kept = () =>
      store.read(() => ({
        author: store.accounts.byIdsWithCounts([poster.accountId]).counts.get(poster.accountId),
        counts: store.statuses.counts([postId]).get(postId),
      }));
    const before = kept();
    const readFlags = vi.spyOn(
      store.interactions as unknown as { readFlags: (viewerId: string) => unknown },
      'readFlags',
    );
    try {
      // Another account posts and favourites its own post: nothing the viewer's page shows changes.
      const own = (await server.call(other.token, 'POST', '/api/v1/statuses', { status: 'elsewhere' })).body.id;
      await server.call(other.token, 'POST', `/api/v1/statuses/${own}/favourite`);
      await page();
      // (The answers to the writes present the other account's own post with its flags.)
      expect(readFlags.mock.calls.filter(([account]) => account === viewer.accountId)).toEqual([]);
      const after = kept();
      // The very objects read before: neither the author's counters nor the post's were read again.
      expect(after.author).toBe(before.author);
      expect(after.counts).toBe(before.counts);
    } finally {
      readFlags.mockRestore();
    }
  });

  it("show each write that changes the author's row, counters, the post's counters or the viewer's flags", async () => {
    const start = await page();
    expect(start).toMatchObject({
      favourites: 0,
      favourited: false,
      reblogs: 0,
      reblogged: false,
      muted: false,
      statuses: 1,
    });
    await server.call(poster.token, 'POST', '/api/v1/statuses', { status: 'a second post' });
    expect((await page()).statuses).toBe(2);
    await server.masto(other.token).v1.accounts.$select(poster.accountId).follow();
    expect((await page()).followers).toBe(start.followers + 1);
    await server.call(poster.token, 'PATCH', '/api/v1/accounts/update_credentials', { display_name: 'Renamed' });
    expect((await page()).name).toBe('Renamed');
    await server.call(other.token, 'POST', `/api/v1/statuses/${postId}/favourite`);
    expect((await page()).favourites).toBe(1);
    await server.call(viewer.token, 'POST', `/api/v1/statuses/${postId}/favourite`);
    expect(await page()).toMatchObject({ favourites: 2, favourited: true });
    await server.call(viewer.token, 'POST', `/api/v1/statuses/${postId}/reblog`);
    expect(await page()).toMatchObject({ reblogs: 1, reblogged: true });
    await server.call(viewer.token, 'POST', `/api/v1/statuses/${postId}/unreblog`);
    expect(await page()).toMatchObject({ reblogs: 0, reblogged: false });
    await server.call(viewer.token, 'POST', `/api/v1/statuses/${postId}/mute`);
    expect((await page()).muted).toBe(true);
  });

  it('show a suspended follower leaving the counts of the accounts it follows', async () => {
    const { store } = server.social.context;
    const followers = (await page()).followers;
    // `other` follows the poster (above): its suspension changes the poster's count, not a row of the poster's.
    store.transaction(() => store.accounts.setSuspended(other.accountId, true));
    await store.durable();
    expect((await page()).followers).toBe(followers - 1);
    store.transaction(() => store.accounts.setSuspended(other.accountId, false));
    await store.durable();
    expect((await page()).followers).toBe(followers);
  });
});

describe("a viewer's scope kept through unrelated writes", () => {
  it('follows its blocks, mutes, domain blocks, exclusive lists and any account becoming unavailable', async () => {
    const { store } = server.social.context;
    const viewer = await server.createUser('scopeviewer');
    const blocker = await server.createUser('scopeblocker');
    const scope = async () => {
      await store.durable();
      const { blocks, mutes, domainBlocks, exclusiveLists, unavailableAccounts } = store.read(() =>
        store.timelines.scope(viewer.accountId),
      );
      return { blocks, mutes, domainBlocks, exclusiveLists, unavailableAccounts };
    };
    const before = await scope();
    expect(before).toMatchObject({ blocks: false, mutes: false, domainBlocks: false, exclusiveLists: false });
    // An unrelated write keeps the very scope read before.
    const kept = store.read(() => store.timelines.scope(viewer.accountId));
    await server.call(blocker.token, 'POST', '/api/v1/statuses', { status: 'unrelated' });
    await store.durable();
    expect(store.read(() => store.timelines.scope(viewer.accountId))).toBe(kept);
    await server.call(blocker.token, 'POST', `/api/v1/accounts/${viewer.accountId}/block`);
    expect((await scope()).blocks).toBe(true);
    await server.call(blocker.token, 'POST', `/api/v1/accounts/${viewer.accountId}/unblock`);
    expect((await scope()).blocks).toBe(false);
    await server.call(viewer.token, 'POST', `/api/v1/accounts/${blocker.accountId}/block`);
    expect((await scope()).blocks).toBe(true);
    await server.call(viewer.token, 'POST', `/api/v1/accounts/${blocker.accountId}/unblock`);
    expect((await scope()).blocks).toBe(false);
    await server.call(viewer.token, 'POST', `/api/v1/accounts/${blocker.accountId}/mute`);
    expect((await scope()).mutes).toBe(true);
    await server.call(viewer.token, 'POST', '/api/v1/domain_blocks', { domain: 'blocked.example' });
    expect((await scope()).domainBlocks).toBe(true);
    await server.call(viewer.token, 'POST', '/api/v1/lists', { title: 'only here', exclusive: true });
    expect((await scope()).exclusiveLists).toBe(true);
    expect((await scope()).unavailableAccounts).toBe(false);
    store.transaction(() => store.accounts.setSuspended(blocker.accountId, true));
    expect((await scope()).unavailableAccounts).toBe(true);
    store.transaction(() => store.accounts.setSuspended(blocker.accountId, false));
  });
});
