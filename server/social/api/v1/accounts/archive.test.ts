import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { buffer } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import type { TestUser } from '../../../testing/harness.ts';
import { useSocialTestServer } from '../../../testing/use-server.ts';
import { blob, pngImage } from '../../../testing/media-fixtures.ts';

/*
 * The account archive in Mastodon's format, downloaded over HTTP and opened with a real zip reader: alice's
 * posts (one with an image, a poll, a reply, a reblog), her likes and bookmarks, her avatar and header, and
 * the stored files byte for byte.
 */

const t = useSocialTestServer('alice', 'bob');

async function download(token: string): Promise<Response> {
  return fetch(`${t.server.url}/api/v1/homeport/exports/archive.zip`, {
    headers: { Authorization: `Bearer ${token}` },
  });
}

/** Every entry of a zip, by name, read with yauzl (which checks each entry's CRC as it reads). */
async function unzip(data: Buffer): Promise<Map<string, Buffer>> {
  const zip = await yauzl.fromBufferPromise(data, { lazyEntries: true });
  const entries = new Map<string, Buffer>();
  await new Promise<void>((resolve, reject) => {
    zip.on('error', reject).on('end', resolve);
    zip.on('entry', (entry: yauzl.Entry) => {
      zip
        .openReadStreamPromise(entry)
        .then((stream) => buffer(stream))
        .then((content) => {
          entries.set(entry.fileName, content);
          zip.readEntry();
        }, reject);
    });
    zip.readEntry();
  });
  return entries;
}

async function archiveOf(user: TestUser): Promise<Map<string, Buffer>> {
  const res = await download(user.token);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/zip');
  expect(res.headers.get('content-disposition')).toMatch(
    new RegExp(`^attachment; filename="archive-\\d{14}-${user.username}\\.zip"$`),
  );
  return unzip(Buffer.from(await res.arrayBuffer()));
}

/** The actor document federation serves (read past the test fetch, which knows only Mastodon API schemas). */
async function actorDocument(username: string): Promise<any> {
  return new Promise((resolve, reject) => {
    http
      .get(`${t.server.url}/users/${username}`, { headers: { accept: 'application/activity+json' } }, (res) => {
        buffer(res).then((body) => resolve(JSON.parse(body.toString('utf8'))), reject);
      })
      .on('error', reject);
  });
}

const json = (entries: Map<string, Buffer>, name: string) => JSON.parse(entries.get(name)!.toString('utf8'));
const storedFile = (relative: string) => fs.readFileSync(t.server.social.context.media.absolute(relative));

describe('account archive', () => {
  it('holds the actor, every post and reblog, likes, bookmarks and the files, as Mastodon writes them', async () => {
    const me = t.server.masto(t.alice.token);
    const them = t.server.masto(t.bob.token);
    await me.v1.accounts.updateCredentials({
      avatar: blob(await pngImage(120, 120, '#aa0000'), 'image/png'),
      header: blob(await pngImage(600, 200, '#00aa00'), 'image/png'),
    });
    const image = await me.v2.media.create({
      file: blob(await pngImage(320, 240), 'image/png'),
      description: 'a blue rectangle',
    });
    await t.server.social.mediaIdle();
    const withImage = await me.v1.statuses.create({ status: 'a picture', mediaIds: [image.id] });
    const poll = await me.v1.statuses.create({
      status: 'Tea or coffee?',
      poll: { options: ['tea', 'coffee'], expiresIn: 3600 },
    });
    const bobs = await them.v1.statuses.create({ status: 'hello from bob' });
    const reply = await me.v1.statuses.create({ status: '@bob hello back', inReplyToId: bobs.id });
    const reblog = await me.v1.statuses.$select(bobs.id).reblog();
    const deleted = await me.v1.statuses.create({ status: 'gone soon' });
    await me.v1.statuses.$select(deleted.id).remove();
    await me.v1.statuses.$select(bobs.id).favourite();
    await me.v1.statuses.$select(bobs.id).bookmark();
    await me.v1.statuses.$select(poll.id).bookmark();

    const entries = await archiveOf(t.alice);
    const profile = await me.v1.accounts.verifyCredentials();
    const avatarName = `avatar${path.extname(new URL(profile.avatar).pathname)}`;
    const headerName = `header${path.extname(new URL(profile.header).pathname)}`;
    const mediaPath = decodeURIComponent(new URL(withImage.mediaAttachments[0].url!).pathname).replace(
      /^\/system\//,
      '',
    );
    expect(mediaPath).toMatch(/^media_attachments\/files\//);
    expect([...entries.keys()].sort()).toEqual(
      ['actor.json', avatarName, 'bookmarks.json', headerName, 'likes.json', mediaPath, 'outbox.json'].sort(),
    );

    // The actor as federation serves it, with its key, and its links pointing into the archive.
    const actor = json(entries, 'actor.json');
    const served = await actorDocument('alice');
    expect(actor).toMatchObject({
      id: served.id,
      type: 'Person',
      preferredUsername: 'alice',
      outbox: 'outbox.json',
      likes: 'likes.json',
      bookmarks: 'bookmarks.json',
    });
    expect(actor.publicKey).toEqual(served.publicKey);
    expect(actor.publicKey.publicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(actor.icon).toMatchObject({ type: 'Image', url: avatarName });
    expect(actor.image).toMatchObject({ type: 'Image', url: headerName });

    // Every post and the reblog, oldest first; the deleted post is not there.
    const outbox = json(entries, 'outbox.json');
    expect(outbox).toMatchObject({ id: 'outbox.json', type: 'OrderedCollection', totalItems: 4 });
    expect(outbox['@context']).toContain('https://www.w3.org/ns/activitystreams');
    const items: any[] = outbox.orderedItems;
    expect(items.map((i) => [i.type, i.object?.type ?? 'uri'])).toEqual([
      ['Create', 'Note'],
      ['Create', 'Question'],
      ['Create', 'Note'],
      ['Announce', 'uri'],
    ]);
    expect(items.every((i) => i['@context'] === undefined && i.actor === served.id)).toBe(true);
    const [picture, question, answer, announce] = items;
    expect(picture.id).toBe(`${withImage.uri}/activity`);
    expect(picture.object).toMatchObject({
      id: withImage.uri,
      content: '<p>a picture</p>',
      attachment: { type: 'Document', mediaType: 'image/png', url: mediaPath, name: 'a blue rectangle' },
    });
    // With Mastodon's own keys, as federation sends them (not the `toot:` prefixed ones of a bare compaction).
    const attached = (picture.object as { attachment: Record<string, unknown> }).attachment;
    expect(typeof attached.blurhash).toBe('string');
    expect(attached).not.toHaveProperty('toot:blurhash');
    expect(question.object.id).toBe(poll.uri);
    expect(question.object.oneOf.map((o: { name: string }) => o.name)).toEqual(['tea', 'coffee']);
    expect(answer.object).toMatchObject({ id: reply.uri, inReplyTo: bobs.uri });
    expect(announce).toMatchObject({ id: reblog.uri, object: bobs.uri });
    expect(JSON.stringify(outbox)).not.toContain('gone soon');

    expect(json(entries, 'likes.json')).toEqual({
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: 'likes.json',
      type: 'OrderedCollection',
      orderedItems: [bobs.uri],
    });
    expect(json(entries, 'bookmarks.json')).toEqual({
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: 'bookmarks.json',
      type: 'OrderedCollection',
      orderedItems: [bobs.uri, poll.uri],
    });

    // The files are the stored ones, byte for byte (the same ones the media URLs serve).
    expect(entries.get(mediaPath)!.equals(storedFile(mediaPath))).toBe(true);
    expect(
      entries
        .get(mediaPath)!
        .equals(Buffer.from(await (await fetch(withImage.mediaAttachments[0].url!)).arrayBuffer())),
    ).toBe(true);
    const stored = (url: string) => decodeURIComponent(new URL(url).pathname).replace(/^\/system\//, '');
    expect(entries.get(avatarName)!.equals(storedFile(stored(profile.avatar)))).toBe(true);
    expect(entries.get(headerName)!.equals(storedFile(stored(profile.header)))).toBe(true);
  });

  it('gives each user their own archive only, and needs the read scope', async () => {
    const entries = await archiveOf(t.bob);
    expect(json(entries, 'actor.json')).toMatchObject({ preferredUsername: 'bob', outbox: 'outbox.json' });
    expect(json(entries, 'actor.json').icon).toBeUndefined();
    const outbox = json(entries, 'outbox.json');
    expect(
      outbox.orderedItems.map((i: { type: string; object: { content: string } }) => [i.type, i.object.content]),
    ).toEqual([['Create', '<p>hello from bob</p>']]);
    expect(outbox.totalItems).toBe(1);
    expect(json(entries, 'likes.json').orderedItems).toEqual([]);
    expect([...entries.keys()].filter((n) => n.startsWith('media_attachments/'))).toEqual([]);

    const writeOnly = await t.server.createUser('carol', { scopes: 'write' });
    const refused = await download(writeOnly.token);
    expect(refused.status).toBe(403);
    expect((await refused.json()).error).toMatch(/scope/i);
    const anonymous = await fetch(`${t.server.url}/api/v1/homeport/exports/archive.zip`);
    expect(anonymous.status).toBe(401);
    expect((await anonymous.json()).error).toBeTruthy();
  });

  it('makes one archive of an account at a time, and one cut short frees the account again', async () => {
    const archives = t.server.social.context.accountArchive;
    const documents = t.server.social.federation!.archiveDocuments;
    const account = t.server.social.context.store.accounts.byId(t.alice.accountId)!;
    const first = archives.stream(account, documents);
    expect(() => archives.stream(account, documents)).toThrow(/being made already/);
    const busy = await download(t.alice.token);
    expect(busy.status).toBe(409);
    expect((await busy.json()).error).toMatch(/being made already/);
    const others = await download(t.bob.token);
    expect(others.status).toBe(200);
    await others.arrayBuffer();

    first.destroy();
    await new Promise((resolve) => setImmediate(resolve));
    const entries = await unzip(await buffer(archives.stream(account, documents)));
    expect(json(entries, 'actor.json').preferredUsername).toBe('alice');
    expect(json(entries, 'outbox.json').totalItems).toBe(4);
  });

  it('streams a history longer than one page of reading, in order and complete', async () => {
    const dave = await t.server.createUser('dave');
    const ctx = t.server.social.context;
    const account = ctx.store.accounts.byId(dave.accountId)!;
    const poster = { account, user: ctx.store.users.byAccountId(dave.accountId), applicationId: null };
    const ids: string[] = [];
    for (let i = 0; i < 230; i++) {
      const result = ctx.statuses.post(poster, { text: `post ${i}` });
      if (result.kind !== 'status') throw new Error('posted a scheduled status');
      ids.push(result.status.id);
      if (i % 2 === 0) ctx.statuses.favourite(account, result.status.id);
    }
    const entries = await archiveOf(dave);
    const outbox = json(entries, 'outbox.json');
    expect(outbox.totalItems).toBe(230);
    expect(outbox.orderedItems.map((i: { object: { content: string } }) => i.object.content)).toEqual(
      ids.map((_, i) => `<p>post ${i}</p>`),
    );
    const likes = json(entries, 'likes.json').orderedItems;
    expect(likes).toEqual(ids.filter((_, i) => i % 2 === 0).map((id) => `${t.server.url}/users/dave/statuses/${id}`));
  });

  it('leaves out a file missing from disk, and the actor then keeps its URL', async () => {
    const erin = await t.server.createUser('erin');
    const profile = await t.server
      .masto(erin.token)
      .v1.accounts.updateCredentials({ avatar: blob(await pngImage(64, 64), 'image/png') });
    fs.rmSync(
      t.server.social.context.media.absolute(
        decodeURIComponent(new URL(profile.avatar).pathname).replace(/^\/system\//, ''),
      ),
    );
    const entries = await archiveOf(erin);
    expect([...entries.keys()].sort()).toEqual(['actor.json', 'bookmarks.json', 'likes.json', 'outbox.json']);
    expect(json(entries, 'actor.json').icon.url).toBe(profile.avatar);
  });
});
