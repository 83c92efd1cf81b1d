import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSocialWithClock, type SocialTestServer, type TestUser } from '../testing/harness.ts';
import { postShowingCard, startTestSite, type TestSite } from './testing/test-site.ts';

/*
 * Card images do not pile up: a card fetched again replaces its image file, and a card no status shows any
 * more (its posts deleted or edited to other links) goes with its image a day later, a bounded batch per run;
 * a later post linking there fetches the page again. Images are checked through the server's own URLs.
 */

const DAY = 24 * 3600 * 1000;

let site: TestSite;
let server: SocialTestServer;
let clock = Date.now();
let alice: TestUser;

beforeAll(async () => {
  site = await startTestSite();
  server = await startSocialWithClock(() => clock, {
    social: { previewCards: { allowPrivateAddress: true, timeoutMs: 5_000 } },
  });
  alice = await server.createUser('alice');
});

afterAll(async () => {
  await server?.close();
  await site?.close();
});

/** Posts as alice, one second after the last post. */
async function post(text: string): Promise<{ id: string; card: any }> {
  const shown = await postShowingCard(server, alice.token, text);
  clock += 1_000;
  return shown;
}

async function served(url: string): Promise<number> {
  const res = await fetch(url);
  await res.arrayBuffer();
  return res.status;
}

describe('preview card images', () => {
  it('a card fetched again (after two weeks) gets a new image file and the old one is deleted', async () => {
    const first = await post(`${site.base}/article`);
    const oldImage: string = first.card.image;
    expect(await served(oldImage)).toBe(200);
    const hits = site.hits.get('/article');
    clock += 15 * DAY;
    const again = await post(`again ${site.base}/article`);
    expect(site.hits.get('/article')).toBe(hits! + 1);
    expect(again.card.image).not.toBe(oldImage);
    expect(await served(again.card.image)).toBe(200);
    expect(await served(oldImage)).toBe(404);
    // The earlier post shows the card as it is now.
    expect((await server.call(alice.token, 'GET', `/api/v1/statuses/${first.id}`)).body.card.image).toBe(
      again.card.image,
    );
  });

  it('a card no status shows any more goes with its image; the link is fetched again when posted again', async () => {
    const deleted = await post(`otters ${site.base}/story`);
    const edited = await post(`otters again ${site.base}/story`);
    const image: string = deleted.card.image;
    expect(edited.card.image).toBe(image);
    expect((await server.call(alice.token, 'DELETE', `/api/v1/statuses/${deleted.id}`)).status).toBe(200);
    // Still shown by one status: kept.
    clock += 2 * DAY;
    expect(await server.social.previewCards.sweep()).toBe(0);
    expect(await served(image)).toBe(200);

    await server.call(alice.token, 'PUT', `/api/v1/statuses/${edited.id}`, { status: 'no link any more' });
    await server.social.previewCards.idle();
    expect(await server.social.previewCards.sweep()).toBe(1);
    expect(await served(image)).toBe(404);
    // The /article card is still shown by the first test's posts.
    expect(await served((await post(`${site.base}/article`)).card.image)).toBe(200);

    const hits = site.hits.get('/story')!;
    const back = await post(`otters are back ${site.base}/story`);
    expect(site.hits.get('/story')).toBe(hits + 1);
    expect(back.card.title).toBe('Otters return to the river');
    expect(await served(back.card.image)).toBe(200);
  });

  it('keeps an unused card for a day after it was made (a post may still come to show it), and removes a bounded batch per run', async () => {
    const a = await post(`${site.base}/title-only`);
    const b = await post(`${site.base}/other`);
    for (const s of [a, b]) await server.call(alice.token, 'DELETE', `/api/v1/statuses/${s.id}`);
    expect(await server.social.previewCards.sweep()).toBe(0);
    clock += DAY;
    const store = server.social.context.store;
    expect(store.previewCards.removeUnused(clock - DAY, 1).removed).toBe(1);
    expect(store.previewCards.removeUnused(clock - DAY, 1).removed).toBe(1);
    expect(store.previewCards.removeUnused(clock - DAY, 1).removed).toBe(0);
  });
});
