import { describe, expect, it } from 'vitest';
import { useSocialTestServer } from '../testing/use-server.ts';

/* oEmbed of public posts; translation and async refreshes answering as Mastodon does without those services. */

const t = useSocialTestServer('author', 'reader');

const oembed = async (url: string) => {
  const res = await t.server.fetch(`${t.server.url}/api/oembed?url=${encodeURIComponent(url)}&maxwidth=300`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('oEmbed', () => {
  it('describes public and unlisted posts by their web address or id, and nothing else', async () => {
    const post = await t.server.masto(t.author.token).v1.statuses.create({ status: 'embed <me> please' });
    const found = await oembed(post.url!);
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({
      type: 'rich',
      version: '1.0',
      author_name: 'author',
      author_url: `${t.server.url}/@author`,
      width: 300,
      height: null,
    });
    expect(found.body.html).toContain('embed &lt;me&gt; please');
    expect(found.body.html).toContain(`href="${post.url}"`);
    expect((await oembed(post.uri)).status).toBe(200);

    const unlisted = await t.server
      .masto(t.author.token)
      .v1.statuses.create({ status: 'quiet', visibility: 'unlisted' });
    expect((await oembed(unlisted.url!)).status).toBe(200);
    const secret = await t.server
      .masto(t.author.token)
      .v1.statuses.create({ status: 'followers only', visibility: 'private' });
    expect((await oembed(secret.url!)).status).toBe(404);
    expect((await oembed('https://elsewhere.example/@author/1')).status).toBe(404);
    expect((await oembed('not a url')).status).toBe(404);
    expect((await t.server.fetch(`${t.server.url}/api/oembed`)).status).toBe(400);
  });
});

describe('services Homeport does not run', () => {
  it('answers translation requests 404 as Mastodon without a translation service, after checking token and status', async () => {
    const post = await t.server.masto(t.author.token).v1.statuses.create({ status: 'Bonjour', language: 'fr' });
    const translate = (token: string | null, id: string) =>
      t.server.fetch(`${t.server.url}/api/v1/statuses/${id}/translate`, {
        method: 'POST',
        headers: token ? { Authorization: `Bearer ${token}` } : {},
      });
    expect((await translate(null, post.id)).status).toBe(401);
    expect((await translate(t.reader.token, post.id)).status).toBe(404);
    const instance = (await (await t.server.fetch(`${t.server.url}/api/v2/instance`)).json()) as {
      configuration: { translation: { enabled: boolean } };
    };
    expect(instance.configuration.translation.enabled).toBe(false);
  });

  it('knows no async refresh (it never announces one)', async () => {
    const res = await t.server.fetch(`${t.server.url}/api/v1_alpha/async_refreshes/123`, {
      headers: { Authorization: `Bearer ${t.reader.token}` },
    });
    expect(res.status).toBe(404);
    expect((await t.server.fetch(`${t.server.url}/api/v1_alpha/async_refreshes/123`)).status).toBe(401);
  });
});
