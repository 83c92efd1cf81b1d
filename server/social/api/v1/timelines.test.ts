import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSocialTestServer, type SocialTestServer, type TestUser } from '../../testing/harness.ts';

/*
 * Timelines through real clients: home (follows, reblogs, mutes, blocks), public, hashtag and account
 * timelines with their filters, and cursor pagination walked with max_id, since_id and min_id.
 */

let server: SocialTestServer;
let owner: TestUser;
let writer: TestUser;
let booster: TestUser;
let stranger: TestUser;

beforeAll(async () => {
  server = await startSocialTestServer();
  [owner, writer, booster, stranger] = await Promise.all([
    server.createUser('owner'),
    server.createUser('writer'),
    server.createUser('booster'),
    server.createUser('stranger'),
  ]);
  await server.masto(owner.token).v1.accounts.$select(writer.accountId).follow();
  await server.masto(owner.token).v1.accounts.$select(booster.accountId).follow();
});

afterAll(async () => {
  await server?.close();
});

const ids = (list: { id: string }[]) => list.map((s) => s.id);

async function get(token: string | null, path: string) {
  const res = await server.fetch(`${server.url}${path}`, {
    headers: token ? { Authorization: `Bearer ${token}` } : {},
  });
  return { status: res.status, body: (await res.json()) as { id: string }[], link: res.headers.get('link') };
}

function linkTo(link: string | null, rel: 'next' | 'prev'): string | null {
  const m = link?.match(new RegExp(`<([^>]+)>; rel="${rel}"`));
  return m ? m[1].replace(server.url, '') : null;
}

describe('home timeline', () => {
  it('holds own and followed statuses and reblogs, honouring show_reblogs, mutes and blocks', async () => {
    const o = server.masto(owner.token);
    const own = await o.v1.statuses.create({ status: 'my own' });
    const followed = await server.masto(writer.token).v1.statuses.create({ status: 'from writer' });
    const unrelated = await server.masto(stranger.token).v1.statuses.create({ status: 'from a stranger' });
    const boost = await server.masto(booster.token).v1.statuses.$select(unrelated.id).reblog();
    let home = await o.v1.timelines.home.list({ limit: 40 });
    expect(ids(home).slice(0, 3)).toEqual([boost.id, followed.id, own.id]);
    expect(home[0].reblog?.id).toBe(unrelated.id);
    expect(ids(home)).not.toContain(unrelated.id);

    // A reply to someone the owner does not follow stays out; a reply to the owner comes in.
    const replyToStranger = await server
      .masto(writer.token)
      .v1.statuses.create({ status: '@stranger hi', inReplyToId: unrelated.id });
    const replyToOwner = await server
      .masto(writer.token)
      .v1.statuses.create({ status: '@owner hi', inReplyToId: own.id });
    home = await o.v1.timelines.home.list({ limit: 40 });
    expect(ids(home)).not.toContain(replyToStranger.id);
    expect(ids(home)).toContain(replyToOwner.id);

    // Turning reblogs off affects only later reblogs.
    await o.v1.accounts.$select(booster.accountId).follow({ reblogs: false });
    const later = await server.masto(stranger.token).v1.statuses.create({ status: 'another one' });
    const hiddenBoost = await server.masto(booster.token).v1.statuses.$select(later.id).reblog();
    home = await o.v1.timelines.home.list({ limit: 40 });
    expect(ids(home)).toContain(boost.id);
    expect(ids(home)).not.toContain(hiddenBoost.id);
    await o.v1.accounts.$select(booster.accountId).follow({ reblogs: true });

    // Muting the writer hides their statuses until unmuted; blocking the reblogged author hides the reblog.
    await o.v1.accounts.$select(writer.accountId).mute();
    expect(ids(await o.v1.timelines.home.list({ limit: 40 }))).not.toContain(followed.id);
    await o.v1.accounts.$select(writer.accountId).unmute();
    expect(ids(await o.v1.timelines.home.list({ limit: 40 }))).toContain(followed.id);
    await o.v1.accounts.$select(stranger.accountId).block();
    expect(ids(await o.v1.timelines.home.list({ limit: 40 }))).not.toContain(boost.id);
    await o.v1.accounts.$select(stranger.accountId).unblock();

    // Unfollowing removes the account's statuses; following again merges them back.
    await o.v1.accounts.$select(writer.accountId).unfollow();
    expect(ids(await o.v1.timelines.home.list({ limit: 40 }))).not.toContain(followed.id);
    await o.v1.accounts.$select(writer.accountId).follow();
    expect(ids(await o.v1.timelines.home.list({ limit: 40 }))).toContain(followed.id);

    // A deleted status leaves every feed.
    await server.masto(writer.token).v1.statuses.$select(followed.id).remove();
    expect(ids(await o.v1.timelines.home.list({ limit: 40 }))).not.toContain(followed.id);
  });

  it('shows a status once: reblogs of a status the feed holds already, or has a reblog of, stay out', async () => {
    const o = server.masto(owner.token);
    const original = await server.masto(stranger.token).v1.statuses.create({ status: 'worth sharing' });
    const firstBoost = await server.masto(booster.token).v1.statuses.$select(original.id).reblog();
    const secondBoost = await server.masto(writer.token).v1.statuses.$select(original.id).reblog();
    let home = ids(await o.v1.timelines.home.list({ limit: 40 }));
    expect(home).toContain(firstBoost.id);
    expect(home).not.toContain(secondBoost.id);
    // The reblogger's own feed has no other copy, so it holds the reblog.
    expect(ids(await server.masto(writer.token).v1.timelines.home.list({ limit: 40 }))).toContain(secondBoost.id);

    const followed = await server.masto(writer.token).v1.statuses.create({ status: 'from writer again' });
    const boostOfFollowed = await server.masto(booster.token).v1.statuses.$select(followed.id).reblog();
    home = ids(await o.v1.timelines.home.list({ limit: 40 }));
    expect(home).toContain(followed.id);
    expect(home).not.toContain(boostOfFollowed.id);

    // Once the feed's reblog is withdrawn, a later reblog of the same status comes in.
    await server.masto(booster.token).v1.statuses.$select(original.id).unreblog();
    await server.masto(writer.token).v1.statuses.$select(original.id).unreblog();
    const thirdBoost = await server.masto(writer.token).v1.statuses.$select(original.id).reblog();
    home = ids(await o.v1.timelines.home.list({ limit: 40 }));
    expect(home).not.toContain(firstBoost.id);
    expect(home).toContain(thirdBoost.id);
  });

  it('needs a user token; no Link header on an empty page', async () => {
    expect((await get(null, '/api/v1/timelines/home')).status).toBe(401);
    const empty = await get(stranger.token, '/api/v1/timelines/home?max_id=1');
    expect(empty.body).toEqual([]);
    expect(empty.link).toBeNull();
  });
});

describe('public, hashtag and account timelines', () => {
  it('filters public timelines by origin and media, and hashtags by any, all and none', async () => {
    const store = server.social.context.store;
    // A remote account and status, as federation would store them.
    const remoteId = store.accounts.insertRemote({
      username: 'far',
      domain: 'remote.example',
      uri: 'https://remote.example/users/far',
      publicKey: '',
    });
    const remoteStatusId = store.statuses.insert({
      accountId: remoteId,
      local: false,
      uri: 'https://remote.example/users/far/statuses/1',
      content: '<p>remote #fedi</p>',
      visibility: 'public',
    });
    store.statuses.setTags(remoteStatusId, ['fedi']);

    const w = server.masto(writer.token);
    const both = await w.v1.statuses.create({ status: 'cats and dogs #cats #dogs #fedi' });
    const cats = await w.v1.statuses.create({ status: 'only #cats' });
    const dogs = await w.v1.statuses.create({ status: 'only #Dogs' });
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#123456' } })
      .png()
      .toBuffer();
    const media = await w.v1.media.create({ file: new Blob([new Uint8Array(png)], { type: 'image/png' }) });
    const withMedia = await w.v1.statuses.create({ status: 'picture #cats', mediaIds: [media.id] });
    const unlisted = await w.v1.statuses.create({ status: 'quiet #cats', visibility: 'unlisted' });

    const pub = server.masto(stranger.token).v1.timelines.public;
    const all = ids(await pub.list({ limit: 40 }));
    expect(all).toContain(remoteStatusId);
    expect(all).toContain(both.id);
    expect(all).not.toContain(unlisted.id);
    expect(ids(await pub.list({ local: true, limit: 40 }))).not.toContain(remoteStatusId);
    expect(ids(await pub.list({ remote: true, limit: 40 }))).toEqual([remoteStatusId]);
    expect(ids(await pub.list({ onlyMedia: true, limit: 40 }))).toEqual([withMedia.id]);

    const tag = (name: string, params: Record<string, unknown> = {}) =>
      server
        .masto(stranger.token)
        .v1.timelines.tag.$select(name)
        .list({ limit: 40, ...params });
    expect(ids(await tag('cats'))).toEqual([withMedia.id, cats.id, both.id]);
    expect(ids(await tag('CATS', { onlyMedia: true }))).toEqual([withMedia.id]);
    expect(ids(await tag('cats', { any: ['dogs'] }))).toEqual([withMedia.id, dogs.id, cats.id, both.id]);
    expect(ids(await tag('cats', { all: ['dogs'] }))).toEqual([both.id]);
    expect(ids(await tag('cats', { none: ['dogs'] }))).toEqual([withMedia.id, cats.id]);
    expect(ids(await tag('fedi', { local: true }))).toEqual([both.id]);
    expect(ids(await tag('fedi', { remote: true }))).toEqual([remoteStatusId]);
    expect(ids(await tag('no-such-tag'))).toEqual([]);
    expect(ids((await server.megalodon().getTagTimeline('dogs', { limit: 40 })).data)).toEqual([dogs.id, both.id]);

    // A user's domain block hides the remote status from their public timeline.
    await server.masto(stranger.token).v1.domainBlocks.create({ domain: 'remote.example' });
    expect(ids(await pub.list({ limit: 40 }))).not.toContain(remoteStatusId);
  });

  it('filters account statuses: replies, reblogs, media, tags; readable without a token', async () => {
    const w = server.masto(writer.token);
    const root = await w.v1.statuses.create({ status: 'root #topic' });
    const selfReply = await w.v1.statuses.create({ status: 'continuing', inReplyToId: root.id });
    const other = await server.masto(stranger.token).v1.statuses.create({ status: 'stranger here' });
    const replyToOther = await w.v1.statuses.create({ status: '@stranger yes', inReplyToId: other.id });
    const reblog = await w.v1.statuses.$select(other.id).reblog();
    const anon = server.megalodon();
    const list = async (options: Record<string, unknown>) =>
      ids((await anon.getAccountStatuses(writer.accountId, { limit: 40, ...options })).data);
    const everything = await list({});
    expect(everything.slice(0, 4)).toEqual([reblog.id, replyToOther.id, selfReply.id, root.id]);
    const noReplies = await list({ exclude_replies: true });
    expect(noReplies).toContain(selfReply.id);
    expect(noReplies).not.toContain(replyToOther.id);
    expect(await list({ exclude_reblogs: true })).not.toContain(reblog.id);
    expect(await list({ only_media: true })).not.toContain(root.id);
    expect(
      ids(await server.masto(stranger.token).v1.accounts.$select(writer.accountId).statuses.list({ tagged: 'topic' })),
    ).toEqual([root.id]);
  });
});

describe('pagination', () => {
  let all: string[] = [];

  beforeAll(async () => {
    const pager = await server.createUser('pager');
    const masto = server.masto(pager.token);
    for (let i = 0; i < 100; i++) all.push((await masto.v1.statuses.create({ status: `page walk ${i} #walk` })).id);
    all = all.reverse(); // newest first, as timelines list them
    await server.masto(stranger.token).v1.accounts.$select(pager.accountId).follow();
  });

  const timelines = ['/api/v1/timelines/tag/walk', '/api/v1/timelines/home'];

  it('walks a 100-status timeline backwards with max_id (following the Link next)', async () => {
    for (const path of timelines) {
      const seen: string[] = [];
      let next: string | null = `${path}?limit=7`;
      while (next) {
        const page = await get(stranger.token, next);
        seen.push(...ids(page.body));
        next = linkTo(page.link, 'next');
      }
      expect(seen.filter((id) => all.includes(id))).toEqual(all);
    }
    // masto's paginator follows the same links to the end.
    const walked: string[] = [];
    for await (const page of server.masto(stranger.token).v1.timelines.tag.$select('walk').list({ limit: 9 }))
      walked.push(...ids(page));
    expect(walked).toEqual(all);
  });

  it('walks forwards with min_id (following the Link prev) from the oldest status', async () => {
    const oldest = all[all.length - 1];
    const seen: string[] = [oldest];
    let prev: string | null = `/api/v1/timelines/tag/walk?limit=7&min_id=${oldest}`;
    while (prev) {
      const page = await get(stranger.token, prev);
      if (page.body.length === 0) break;
      // Each min_id page is the run just above the cursor, newest first.
      seen.unshift(...ids(page.body));
      prev = linkTo(page.link, 'prev');
    }
    expect(seen).toEqual(all);
  });

  it('walks with since_id: newest first above the cursor, paged down with max_id until the cursor', async () => {
    const cursor = all[60];
    const expected = all.slice(0, 60);
    const first = await get(stranger.token, `/api/v1/timelines/tag/walk?limit=7&since_id=${cursor}`);
    expect(ids(first.body)).toEqual(expected.slice(0, 7));
    const seen = ids(first.body);
    let next = linkTo(first.link, 'next');
    while (next) {
      const url = new URL(next, server.url);
      url.searchParams.set('since_id', cursor);
      const page = await get(stranger.token, `${url.pathname}${url.search}`);
      seen.push(...ids(page.body));
      next = page.body.length ? linkTo(page.link, 'next') : null;
    }
    expect(seen).toEqual(expected);
    // The same through megalodon's parameters.
    const mega = await server.megalodon(stranger.token).getTagTimeline('walk', { since_id: all[5], limit: 40 });
    expect(ids(mega.data)).toEqual(all.slice(0, 5));
  });

  it('walks the account timeline with min_id and max_id together, and rejects bad cursors with 422', async () => {
    const pagerId = (await server.masto(stranger.token).v1.accounts.lookup({ acct: 'pager' })).id;
    const window = await get(null, `/api/v1/accounts/${pagerId}/statuses?max_id=${all[10]}&min_id=${all[20]}&limit=40`);
    expect(ids(window.body)).toEqual(all.slice(11, 20));
    const bad = await server.fetch(`${server.url}/api/v1/timelines/public?max_id=not-an-id`);
    expect(bad.status).toBe(422);
  });
});
