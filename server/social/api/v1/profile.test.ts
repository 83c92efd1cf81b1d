import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSocialTestServer, type SocialTestServer, type TestUser } from '../../testing/harness.ts';

/* The editable profile of Mastodon 4.6 (/api/v1/profile): the fields as entered, and the profile's display settings. */

let server: SocialTestServer;
let me: TestUser;

beforeAll(async () => {
  server = await startSocialTestServer();
  me = await server.createUser('me');
});

afterAll(async () => {
  await server?.close();
});

const profile = async (method = 'GET', body?: FormData | string) => {
  const headers: Record<string, string> = { Authorization: `Bearer ${me.token}` };
  if (typeof body === 'string') headers['content-type'] = 'application/json';
  const res = await server.fetch(`${server.url}/api/v1/profile`, { method, headers, body });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

describe('/api/v1/profile', () => {
  it('shows and edits the profile as entered, with its display settings', async () => {
    const empty = await profile();
    expect(empty.body).toMatchObject({
      id: me.accountId,
      display_name: '',
      note: '',
      fields: [],
      avatar: null,
      header: null,
      show_media: true,
      show_media_replies: true,
      show_featured: true,
    });

    const form = new FormData();
    form.set('display_name', 'Me Myself');
    form.set('note', 'Hello #world, see https://example.org');
    form.set('fields_attributes[0][name]', 'Site');
    form.set('fields_attributes[0][value]', 'https://example.org');
    form.set('show_media', 'false');
    const png = await sharp({ create: { width: 50, height: 50, channels: 3, background: '#336699' } })
      .png()
      .toBuffer();
    form.set('avatar', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'me.png');
    const edited = await profile('PATCH', form);
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      display_name: 'Me Myself',
      note: 'Hello #world, see https://example.org',
      fields: [{ name: 'Site', value: 'https://example.org', verified_at: null }],
      show_media: false,
      show_featured: true,
    });
    expect(edited.body.avatar).toMatch(/^http/);

    // The rendered account follows the same edit.
    const account = await server.masto(me.token).v1.accounts.verifyCredentials();
    expect(account.displayName).toBe('Me Myself');
    expect(account.note).toContain('<a href=');

    expect((await profile('PATCH', JSON.stringify({ display_name: 'x'.repeat(31) }))).status).toBe(422);
    expect((await profile()).body.display_name).toBe('Me Myself');

    const removed = await server.fetch(`${server.url}/api/v1/profile/avatar`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${me.token}` },
    });
    expect(removed.status).toBe(200);
    expect((await profile()).body.avatar).toBeNull();
  });
});
