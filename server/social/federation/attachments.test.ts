import { encode, isBlurhashValid } from 'blurhash';
import { describe, expect, it } from 'vitest';
import { blob, pngImage } from '../testing/media-fixtures.ts';
import { Create, Object as APObject } from '@fedify/vocab';
import { acceptableBlurhash, acceptableFocus, parseAttachments } from './attachments.ts';
import { eventually, useFollowingPair } from './testing/test-network.ts';

/*
 * Attachments across servers with what Mastodon adds to them: alice's image on a.test, with a description and
 * a focal point, reaches b.test as a link to a.test carrying its description, blurhash, focus and size, and
 * bob's API shows them as Mastodon shows a remote attachment.
 */

const t = useFollowingPair();

describe('attachments across servers', () => {
  it('carry description, blurhash, focal point and size to the other server', async () => {
    // What b.test's inbox receives, as sent.
    const delivered: string[] = [];
    t.b.intercept = async (request) => {
      if (request.method === 'POST') delivered.push(await request.clone().text());
      return null;
    };
    const media = await t.alice.client.v2.media.create({
      file: blob(await pngImage(800, 600), 'image/png'),
      description: 'a blue rectangle on a table',
      focus: '0.5,-0.25',
    });
    expect(isBlurhashValid(media.blurhash!).result).toBe(true);
    await t.alice.client.v1.statuses.create({ status: 'look at this', mediaIds: [media.id] });

    // What a.test serves for the Note: Mastodon's keys, defined in the attachment's context.
    const posted = (await t.alice.client.v1.timelines.home.list())[0];
    const note = (await (await fetch(posted.uri, { headers: { accept: 'application/activity+json' } })).json()) as {
      '@context': unknown;
      attachment: Record<string, unknown>[] | Record<string, unknown>;
    };
    const [document] = Array.isArray(note.attachment) ? note.attachment : [note.attachment];
    expect(document).toMatchObject({
      type: 'Document',
      mediaType: 'image/png',
      name: 'a blue rectangle on a table',
      blurhash: media.blurhash,
      focalPoint: [0.5, -0.25],
      width: 800,
      height: 600,
    });
    expect(JSON.stringify(note['@context'])).toContain('"focalPoint":{"@container":"@list","@id":"toot:focalPoint"}');
    // The outbox's Creates carry the same keys.
    const activityJson = async (url: string) =>
      (await (await fetch(url, { headers: { accept: 'application/activity+json' } })).json()) as any;
    const outbox = await activityJson(`${posted.account.url.replace('/@alice', '/users/alice')}/outbox`);
    const page = typeof outbox.first === 'string' ? await activityJson(outbox.first) : outbox.first;
    expect([page.orderedItems[0].object.attachment].flat()[0]).toMatchObject({
      blurhash: media.blurhash,
      focalPoint: [0.5, -0.25],
    });
    // Fetched by itself (a boost, a search by URL), the Note gives the same.
    const fetched = await APObject.fromJsonLd(note);
    expect(await parseAttachments(fetched)).toEqual([
      {
        type: 'image',
        url: media.url,
        description: 'a blue rectangle on a table',
        contentType: 'image/png',
        blurhash: media.blurhash,
        meta: { original: { width: 800, height: 600 }, focus: { x: 0.5, y: -0.25 } },
      },
    ]);

    const seen = await eventually(
      async () => (await t.bob.client.v1.timelines.home.list()).find((s) => s.content.includes('look at this')),
      'the post at b',
    );
    expect(seen.mediaAttachments).toHaveLength(1);
    const remote = seen.mediaAttachments[0];
    expect(remote.type).toBe('image');
    expect(remote.url).toBe(media.url);
    expect(remote.remoteUrl).toBe(media.url);
    expect(remote.description).toBe('a blue rectangle on a table');
    expect(remote.blurhash).toBe(media.blurhash);
    expect(remote.meta?.focus).toEqual({ x: 0.5, y: -0.25 });
    expect(remote.meta?.original).toMatchObject({ width: 800, height: 600, size: '800x600', aspect: 800 / 600 });

    // The Create as it travelled: Mastodon's plain keys, defined in its context.
    const create = delivered.map((body) => JSON.parse(body)).find((json) => json.type === 'Create');
    const sent = [create.object.attachment].flat()[0];
    expect(sent).toMatchObject({ blurhash: media.blurhash, focalPoint: [0.5, -0.25], width: 800, height: 600 });
    expect(JSON.stringify(create['@context'])).toContain('"blurhash":"toot:blurhash"');
    t.b.intercept = null;

    // An edit of the description and focus reaches b.test too (Update), the post marked edited there.
    await t.alice.client.v1.statuses.$select(posted.id).update({
      status: 'look at this',
      mediaIds: [media.id],
      mediaAttributes: [{ id: media.id, description: 'a blue rectangle, edited', focus: '-0.5,0.75' }],
    });
    const edited = await eventually(async () => {
      const status = await t.bob.client.v1.statuses.$select(seen.id).fetch();
      return status.mediaAttachments[0]?.description === 'a blue rectangle, edited' ? status : null;
    }, 'the edit at b');
    expect(edited.mediaAttachments).toHaveLength(1);
    expect(edited.mediaAttachments[0].id).toBe(remote.id);
    expect(edited.mediaAttachments[0].meta?.focus).toEqual({ x: -0.5, y: 0.75 });
    expect(edited.editedAt).not.toBeNull();
  });
});

describe('what is taken from other servers', () => {
  it('reads the keys however the sender spelled them, and only from the object they belong to', async () => {
    const hash = 'LEHV6nWB2yk8pyo0adR*.7kCMdnj';
    // What Fedify's compaction of an activity with a Linked Data signature leaves: full IRIs, a JSON-LD list.
    const create = await Create.fromJsonLd({
      '@context': 'https://www.w3.org/ns/activitystreams',
      type: 'Create',
      id: 'https://x.test/notes/1/activity',
      actor: 'https://x.test/users/x',
      object: {
        type: 'Note',
        id: 'https://x.test/notes/1',
        content: 'hi',
        attachment: [
          {
            type: 'Document',
            url: 'https://x.test/files/1.jpg',
            mediaType: 'image/jpeg',
            'http://joinmastodon.org/ns#blurhash': hash,
            'http://joinmastodon.org/ns#focalPoint': { '@list': [0.1, 0.2] },
          },
          {
            type: 'Image',
            url: 'https://x.test/files/2.png',
            'toot:blurhash': 'not a blurhash',
            focalPoint: [3, 0],
            width: -5,
            height: 10,
          },
        ],
      },
    });
    const note = (await create.getObject())!;
    expect(await parseAttachments(note, create)).toEqual([
      {
        type: 'image',
        url: 'https://x.test/files/1.jpg',
        description: null,
        contentType: 'image/jpeg',
        blurhash: hash,
        meta: { focus: { x: 0.1, y: 0.2 } },
      },
      {
        type: 'image',
        url: 'https://x.test/files/2.png',
        description: null,
        contentType: null,
        blurhash: null,
        meta: {},
      },
    ]);
    // Without the activity, an embedded Note's own JSON is no longer there: the plain attachments remain.
    expect((await parseAttachments(note)).map((m) => m.blurhash)).toEqual([null, null]);
  });

  it('keeps only blurhashes and focal points Mastodon would keep', () => {
    expect(acceptableBlurhash('LEHV6nWB2yk8pyo0adR*.7kCMdnj')).toBe('LEHV6nWB2yk8pyo0adR*.7kCMdnj');
    // Well-formed but with 6×6 components (costly to decode), malformed, or not a string.
    const pixels = new Uint8ClampedArray(8 * 8 * 4).fill(128);
    expect(acceptableBlurhash(encode(pixels, 8, 8, 5, 5))).not.toBeNull();
    expect(acceptableBlurhash(encode(pixels, 8, 8, 6, 6))).toBeNull();
    expect(acceptableBlurhash('LEHV6nWB2yk8')).toBeNull();
    expect(acceptableBlurhash(42)).toBeNull();
    expect(acceptableFocus([0.25, '-1'])).toEqual({ x: 0.25, y: -1 });
    expect(acceptableFocus([1.5, 0])).toBeNull();
    expect(acceptableFocus([0])).toBeNull();
    expect(acceptableFocus('0.5,0.5')).toBeNull();
  });
});
