import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSocialWithClock, type SocialTestServer, type TestUser } from '../testing/harness.ts';
import { postShowingCard, startTestSite, type TestSite } from './testing/test-site.ts';

/*
 * Link preview cards end to end: posts made through the API link to pages of a web site on loopback; the
 * server fetches them in the background and the posts show Mastodon's PreviewCard (through masto.js and the
 * plain API, both checked against the Mastodon OpenAPI document), with an image it serves itself. Mentions
 * and hashtags get no card, edits change it, pages without a title, non-HTML answers, errors and a page far
 * larger than what is read give none, and a server left with its defaults never requests a loopback address.
 */

let site: TestSite;
let server: SocialTestServer;
let alice: TestUser;

beforeAll(async () => {
  site = await startTestSite();
  server = await startSocialWithClock(Date.now, {
    social: { previewCards: { allowPrivateAddress: true, timeoutMs: 1_500 } },
  });
  alice = await server.createUser('alice');
  await server.createUser('bob');
});

afterAll(async () => {
  await server?.close();
  await site?.close();
});

/** Posts `text` as alice and returns the status as the API shows it once its card was looked for. */
const post = (text: string) => postShowingCard(server, alice.token, text);

describe('preview cards of local posts', () => {
  it('a post linking to a page with OpenGraph tags shows its card, with an image the server stores and serves', async () => {
    const link = `${site.base}/article`;
    const status = await server.masto(alice.token).v1.statuses.create({ status: `Look at this ${link} !` });
    expect(status.card).toBeNull();
    await server.social.previewCards.idle();
    const shown = await server.masto(alice.token).v1.statuses.$select(status.id).fetch();
    const card = shown.card!;
    expect(card).toMatchObject({
      url: link,
      title: 'Ducks & geese of the north',
      description: 'A field guide to waterfowl.',
      type: 'link',
      providerName: 'Bird Weekly',
      authorName: 'Mallory Mallard',
      imageDescription: 'Two ducks on a pond',
      language: 'en',
      publishedAt: '2025-03-04T05:06:07.000Z',
      html: '',
      embedUrl: '',
    });
    expect(card.authors).toEqual([{ name: 'Mallory Mallard', url: '', account: null }]);
    expect(card.image!.startsWith(`${server.url}/system/preview_cards/`)).toBe(true);
    expect(card.blurhash).toMatch(/^[0-9A-Za-z#$%*+,-.:;=?@[\]^_{|}~]{6,}$/);
    // Scaled as Mastodon scales card images: the original's aspect within 640×360 worth of pixels.
    const [width, height] = [card.width ?? 0, card.height ?? 0];
    expect(width * height).toBeGreaterThan(200_000);
    expect(width * height).toBeLessThanOrEqual(230_400);
    expect(Math.abs(width / height - site.image.width / site.image.height)).toBeLessThan(0.01);
    const served = await fetch(card.image!);
    expect(served.status).toBe(200);
    const meta = await sharp(Buffer.from(await served.arrayBuffer())).metadata();
    expect([meta.width, meta.height]).toEqual([card.width, card.height]);
    expect(site.hits.get('/article')).toBe(1);
    expect(site.hits.get('/images/ducks.png')).toBe(1);
  });

  it('the card shows on every path that shows the post: timelines, the account, context and search', async () => {
    const { id, card } = await post(`again ${site.base}/article`);
    expect(card.title).toBe('Ducks & geese of the north');
    const paths = [
      '/api/v1/timelines/home',
      '/api/v1/timelines/public?local=true',
      `/api/v1/accounts/${alice.accountId}/statuses`,
      `/api/v1/statuses?id[]=${id}`,
    ];
    for (const path of paths) {
      const res = await server.call(alice.token, 'GET', path);
      expect(res.status, path).toBe(200);
      expect((res.body as any[]).find((s) => s.id === id)?.card?.title, path).toBe('Ducks & geese of the north');
    }
    // A boost shows the card on the boosted post, none on the boost itself (as Mastodon).
    const boost = await server.call(alice.token, 'POST', `/api/v1/statuses/${id}/reblog`);
    expect(boost.body.card).toBeNull();
    expect(boost.body.reblog.card.title).toBe('Ducks & geese of the north');
  });

  it('a link is fetched once for a while: later posts linking to it reuse its card', async () => {
    const before = site.hits.get('/article');
    const { card } = await post(`third time ${site.base}/article`);
    expect(card.title).toBe('Ducks & geese of the north');
    expect(site.hits.get('/article')).toBe(before);
  });

  it('mentions and hashtags get no card: the first other link does', async () => {
    const before = site.total();
    const none = await post('hello @bob #waterfowl');
    expect(none.card).toBeNull();
    expect(site.total()).toBe(before);
    const { card } = await post(`@bob #waterfowl read ${site.base}/other and ${site.base}/article`);
    expect(card).toMatchObject({
      url: `${site.base}/other`,
      title: 'Another page',
      description: 'Plain description meta.',
      image: null,
      blurhash: null,
      width: 0,
      height: 0,
    });
  });

  it('an edit to another link changes the card; an edit without links takes it away; one keeping the link keeps it', async () => {
    const { id, card } = await post(`first ${site.base}/article`);
    expect(card.title).toBe('Ducks & geese of the north');
    await server.call(alice.token, 'PUT', `/api/v1/statuses/${id}`, { status: `now ${site.base}/other` });
    await server.social.previewCards.idle();
    expect((await server.call(alice.token, 'GET', `/api/v1/statuses/${id}`)).body.card.title).toBe('Another page');
    const hits = site.total();
    await server.call(alice.token, 'PUT', `/api/v1/statuses/${id}`, { status: `still ${site.base}/other, reworded` });
    await server.social.previewCards.idle();
    expect((await server.call(alice.token, 'GET', `/api/v1/statuses/${id}`)).body.card.title).toBe('Another page');
    expect(site.total()).toBe(hits);
    await server.call(alice.token, 'PUT', `/api/v1/statuses/${id}`, { status: 'no links any more' });
    await server.social.previewCards.idle();
    expect((await server.call(alice.token, 'GET', `/api/v1/statuses/${id}`)).body.card).toBeNull();
  });

  it('a page with only a <title> gets a card from it; a page without one gets none', async () => {
    const titled = await post(`${site.base}/title-only`);
    expect(titled.card).toMatchObject({ title: 'Only a title here', description: '', provider_name: '', image: null });
    expect((await post(`${site.base}/bare`)).card).toBeNull();
  });

  it('a redirect is followed and the card keeps the link as posted', async () => {
    const { card } = await post(`short link ${site.base}/short`);
    expect(card).toMatchObject({ url: `${site.base}/short`, title: 'Ducks & geese of the north' });
  });

  it('a huge page, a gzip bomb, an endless page, a non-HTML answer and an error page give no card and no failure; the huge page is not read to its end', async () => {
    expect((await post(`${site.base}/huge`)).card).toBeNull();
    expect(site.hits.get('/huge')).toBe(1);
    expect(site.hugeFinished).toBe(false);
    expect((await post(`${site.base}/bomb`)).card).toBeNull();
    expect((await post(`${site.base}/endless`)).card).toBeNull();
    expect((await post(`${site.base}/data.json`)).card).toBeNull();
    expect((await post(`${site.base}/missing`)).card).toBeNull();
    expect((await post('unreachable http://127.0.0.1:1/nothing-listens')).card).toBeNull();
    expect((await post('not web ftp://example.org/file and mailto:someone@example.org')).card).toBeNull();
    expect((await server.call(alice.token, 'GET', '/api/v1/timelines/home')).status).toBe(200);
  });

  it('a page of a million nested elements is read to its head at little cost: its card is made, the server stays free', async () => {
    // Reading it as a whole cost 16 s of the event loop (the parser's stack of open elements grew quadratically).
    const before = process.cpuUsage();
    const { card } = await post(`${site.base}/deep`);
    const used = process.cpuUsage(before);
    expect(card).toMatchObject({ title: 'Deep nesting', image: null });
    expect(site.hits.get('/deep')).toBe(1);
    // Generous: the read takes tens of milliseconds; the whole fetch, post and card well under a second.
    expect((used.user + used.system) / 1000).toBeLessThan(3_000);
    expect((await server.call(alice.token, 'GET', '/api/v1/timelines/home')).status).toBe(200);
  });

  it('an image that would decode to gigapixels, or an SVG, is no card image: the card comes without one', async () => {
    const bomb = await post(`${site.base}/pixel-bomb`);
    expect(bomb.card).toMatchObject({ title: 'A pixel bomb', image: null, blurhash: null, width: 0, height: 0 });
    expect(site.hits.get('/images/bomb.png')).toBe(1);
    const svg = await post(`${site.base}/svg-card`);
    expect(svg.card).toMatchObject({ title: 'An SVG card', image: null, blurhash: null });
    // Asked for once; its type is none a card image may have, so its body is not even read.
    expect(site.hits.get('/images/card.svg')).toBe(1);
  });
});

describe('preview cards with the default rules', () => {
  it('links to loopback addresses are refused: no request reaches them and no card is made', async () => {
    // Cards on, with the defaults a served instance has (private addresses refused).
    const guarded = await startSocialWithClock(Date.now, { social: { previewCards: {} } });
    try {
      const user = await guarded.createUser('carol');
      const before = site.total();
      for (const link of [
        `${site.base}/article`,
        `http://localhost:${new URL(site.base).port}/article`,
        `http://[::1]:${new URL(site.base).port}/article`,
      ]) {
        const created = await guarded.call(user.token, 'POST', '/api/v1/statuses', { status: `see ${link}` });
        expect(created.status).toBe(200);
        await guarded.social.previewCards.idle();
        expect((await guarded.call(user.token, 'GET', `/api/v1/statuses/${created.body.id}`)).body.card).toBeNull();
      }
      expect(site.total()).toBe(before);
    } finally {
      await guarded.close();
    }
  });

  it('keeps at most queueLimit statuses waiting: past it a post gets no card and its link is not fetched', async () => {
    const busy = await startSocialWithClock(Date.now, {
      social: { previewCards: { allowPrivateAddress: true, timeoutMs: 1_000, queueLimit: 1 } },
    });
    try {
      const user = await busy.createUser('erin');
      const before = site.hits.get('/endless') ?? 0;
      // Four fetch at once (each held by the endless page until its deadline), one waits, the sixth is dropped.
      const ids: string[] = [];
      for (let i = 0; i < 6; i++)
        ids.push(
          (await busy.call(user.token, 'POST', '/api/v1/statuses', { status: `slow ${site.base}/endless?n=${i}` })).body
            .id,
        );
      await busy.social.previewCards.idle();
      expect((site.hits.get('/endless') ?? 0) - before).toBe(5);
      for (const id of ids) expect((await busy.call(user.token, 'GET', `/api/v1/statuses/${id}`)).body.card).toBeNull();
    } finally {
      await busy.close();
    }
  });

  it('turned off (as other tests run), no link is fetched even where private addresses are allowed', async () => {
    const off = await startSocialWithClock(Date.now, {
      social: { previewCards: { enabled: false, allowPrivateAddress: true } },
    });
    try {
      const user = await off.createUser('dave');
      const before = site.total();
      const created = await off.call(user.token, 'POST', '/api/v1/statuses', { status: `see ${site.base}/article` });
      expect(created.status).toBe(200);
      await off.social.previewCards.idle();
      expect((await off.call(user.token, 'GET', `/api/v1/statuses/${created.body.id}`)).body.card).toBeNull();
      expect(site.total()).toBe(before);
    } finally {
      await off.close();
    }
  });
});
