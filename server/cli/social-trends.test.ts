import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Homeport } from '../index.ts';
import { startCliTestServer, type CliTestServer } from './testing/cli-server.ts';

/*
 * `homeport trends links …` while the server runs: lists the articles shared lately with their review, and
 * allows or keeps one out of the server's trending links. The shares are written to social.db directly (a
 * card the crawler would have made, public posts showing it), as fetching pages is the cards tests' concern.
 */

let server: CliTestServer;
let hp: Homeport;
const ARTICLE = 'https://news.example/otters';

beforeAll(async () => {
  server = await startCliTestServer('trends-cli');
  hp = server.hp;
  const store = hp.social.context.store;
  const card = store.previewCards.save({
    url: ARTICLE,
    title: 'Otters return',
    description: 'After forty years.',
    type: 'link',
    linkType: 'article',
    authorName: '',
    authorUrl: '',
    providerName: 'River News',
    providerUrl: '',
    html: '',
    width: 400,
    height: 200,
    imageFile: 'preview_cards/otters.png',
    imageDescription: '',
    blurhash: null,
    embedUrl: '',
    language: 'en',
    publishedAt: null,
  });
  for (const username of ['ann', 'bob']) {
    const { account } = await hp.social.admin.createAccount({
      username,
      email: `${username}@example.org`,
      password: `pw-${username}-correct-horse`,
      confirmed: true,
      approved: true,
    });
    const status = store.statuses.insert({
      accountId: account.id,
      local: true,
      visibility: 'public',
      text: ARTICLE,
      content: `<p>${ARTICLE}</p>`,
    });
    store.previewCards.attach(status, card, ARTICLE);
  }
});

afterAll(async () => {
  await server?.close();
});

const cli = (...args: string[]) => server.cli(...args);

const trending = async () =>
  ((await (await fetch(`${hp.httpUrl}/api/v1/trends/links`)).json()) as { url: string }[]).map((l) => l.url);

describe('homeport trends links', () => {
  it('lists shared articles with their review, and allows or keeps one out of trends', async () => {
    expect((await cli('trends', 'links')).out).toEqual([
      `${ARTICLE}\tOtters return\t2 accounts, 2 shares\tnot reviewed`,
    ]);
    expect(await trending()).toEqual([]);

    expect((await cli('trends', 'links', 'allow', ARTICLE)).out).toEqual([`${ARTICLE} may trend`]);
    expect(await trending()).toEqual([ARTICLE]);
    expect((await cli('trends', 'links')).out).toEqual([`${ARTICLE}\tOtters return\t2 accounts, 2 shares\tallowed`]);

    expect((await cli('trends', 'links', 'disallow', ARTICLE)).out).toEqual([`${ARTICLE} kept out of trends`]);
    expect(await trending()).toEqual([]);
    expect((await cli('trends', 'links')).out[0]).toMatch(/\tkept out$/);

    const unknown = await cli('trends', 'links', 'allow', 'https://news.example/never-shared');
    expect(unknown.code).not.toBe(0);
    expect(unknown.err.join('\n')).toContain('no link preview card has the address https://news.example/never-shared');
    expect((await cli('trends', 'links', 'allow')).code).not.toBe(0);
  });
});
