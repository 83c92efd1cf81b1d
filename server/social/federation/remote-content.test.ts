import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { image, mentionCreates } from './testing/activities.ts';
import { RecordedPeers, type Json } from './testing/recorded-peers.ts';
import { createTestNetwork, eventually, type TestInstance, type TestNetwork } from './testing/test-network.ts';

/*
 * What another server's posts may make Homeport do, delivered to a live inbox with valid signatures: an
 * activity too large to read is refused before it is read; one within bounds is read only as far as it is
 * kept (16 attachments), and what it gives by address only (tags, attachments) is never fetched; media links
 * to the user's own network, and SVG images, never reach clients.
 */

const HOME = 'https://home.test';
const INBOX = `${HOME}/inbox`;
const LAIN = `${HOME}/users/lain`;
let net: TestNetwork;
let home: TestInstance;
let lain: Awaited<ReturnType<TestInstance['createUser']>>;
let peers: RecordedPeers;
/** Requests that reached counted.test, a host only named by addresses that must not be fetched. */
const counted: string[] = [];

beforeAll(async () => {
  net = createTestNetwork();
  home = await net.add('home.test');
  lain = await home.createUser('lain');
  peers = new RecordedPeers(net);
  net.addRemote('counted.test', (request) => {
    counted.push(request.url);
    return Response.json(
      { '@context': 'https://www.w3.org/ns/activitystreams', id: request.url, type: 'Hashtag', name: '#fetched' },
      { headers: { 'content-type': 'application/activity+json' } },
    );
  });
});

afterAll(async () => {
  await net?.close();
});

/** An actor of far.test with the given profile images. */
function person(name: string, images: { icon?: Json; image?: Json } = {}): Json {
  const id = `https://far.test/users/${name}`;
  return {
    '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
    id,
    type: 'Person',
    preferredUsername: name,
    inbox: `${id}/inbox`,
    outbox: `${id}/outbox`,
    followers: `${id}/followers`,
    ...images,
  };
}

const createNote = mentionCreates({ id: LAIN, mention: '@lain@home.test' });

/** The status lain was notified of, once the mention arrived. */
async function mentioned(uri: string) {
  const notification = await eventually(
    async () =>
      (await lain.client.v1.notifications.list({ types: ['mention'], limit: 40 })).find((n) => n.status?.uri === uri),
    `the mention of ${uri}`,
  );
  return notification.status!;
}

describe('bounds on what an activity may hold', () => {
  it('a Create of thousands of attachments is refused before it is read, at little cost; the sender’s next post arrives', async () => {
    const sender = await peers.actor('https://far.test/users/hoarder', person('hoarder'));
    // 5,000 (the issue's: past the inbox's byte limit as well) and 1,000 in 80 KB (past the bound on objects).
    const refused: string[] = [];
    for (const count of [5_000, 1_000]) {
      const attachment = Array.from({ length: count }, (_, i) => image(`https://far.test/m/${i}.png`));
      const huge = createNote(sender.id, { attachment });
      const before = process.cpuUsage();
      const res = await peers.deliver(INBOX, huge.activity);
      const used = process.cpuUsage(before);
      expect(res.status).toBe(413);
      if (count === 1_000) expect(await res.text()).toBe('Activity refused: it holds more than 256 objects');
      // Reading it whole took 2.4-5 s of the event loop; refused unread it costs a JSON parse (generous bound).
      expect((used.user + used.system) / 1000).toBeLessThan(1_500);
      refused.push(huge.uri);
    }
    const next = createNote(sender.id, { attachment: [image('https://far.test/media/ok.png')] });
    expect((await peers.deliver(INBOX, next.activity)).status).toBe(202);
    expect((await mentioned(next.uri)).mediaAttachments).toHaveLength(1);
    const notified = await lain.client.v1.notifications.list({ types: ['mention'], limit: 40 });
    expect(notified.filter((n) => refused.includes(n.status?.uri ?? ''))).toEqual([]);
  });

  it('keeps 16 attachments and never fetches an attachment or a tag given by its address', async () => {
    const sender = await peers.actor('https://far.test/users/linker', person('linker'));
    const attachment = [
      'https://counted.test/attachments/bare',
      // Embedded, but with an id on another server: Fedify would fetch it again to trust it.
      { ...image('https://far.test/media/elsewhere.png'), id: 'https://counted.test/attachments/embedded' },
      ...Array.from({ length: 40 }, (_, i) => image(`https://far.test/media/${i}.png`, { name: `picture ${i}` })),
    ];
    const tag = [
      { type: 'Hashtag', href: 'https://far.test/tags/ducks', name: '#ducks' },
      ...Array.from({ length: 1_000 }, (_, i) => `https://counted.test/tags/${i}`),
    ];
    const post = createNote(sender.id, { attachment, tag });
    expect((await peers.deliver(INBOX, post.activity)).status).toBe(202);
    const status = await mentioned(post.uri);
    expect(status.mediaAttachments.map((m) => m.remoteUrl)).toEqual(
      Array.from({ length: 16 }, (_, i) => `https://far.test/media/${i}.png`),
    );
    expect(status.mediaAttachments[15].description).toBe('picture 15');
    expect(status.tags.map((t) => t.name)).toEqual(['ducks']);
    expect(status.mentions.map((m) => m.acct)).toEqual(['lain']);
    expect(counted).toEqual([]);
  });

  it('a poll’s options given by address are not fetched: the embedded ones make the poll', async () => {
    const sender = await peers.actor('https://far.test/users/pollster', person('pollster'));
    const option = (name: string) => ({ type: 'Note', name, replies: { type: 'Collection', totalItems: 2 } });
    const post = createNote(sender.id, {
      type: 'Question',
      oneOf: ['https://counted.test/options/1', option('ducks'), 'https://counted.test/options/2', option('geese')],
      endTime: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect((await peers.deliver(INBOX, post.activity)).status).toBe(202);
    const status = await mentioned(post.uri);
    expect(status.poll?.options).toEqual([
      { title: 'ducks', votesCount: 2 },
      { title: 'geese', votesCount: 2 },
    ]);
    expect(counted).toEqual([]);
  });
});

describe('remote media clients are given', () => {
  const MISSING_AVATAR = `${HOME}/avatars/original/missing.png`;
  const MISSING_HEADER = `${HOME}/headers/original/missing.png`;

  it('attachments on loopback, private or local-network hosts have no address; an SVG is no image', async () => {
    const sender = await peers.actor('https://far.test/users/painter', person('painter'));
    const post = createNote(sender.id, {
      attachment: [
        image('http://127.0.0.1:3000/api/v1/admin/accounts'),
        image('https://10.1.2.3/camera.png'),
        image('https://[::1]/x.png'),
        image('https://localhost/x.png'),
        image('https://router/admin.png'),
        image('https://printer.local/scan.png'),
        { type: 'Document', mediaType: 'image/svg+xml', url: 'https://far.test/media/drawing.svg' },
        { type: 'Image', url: 'https://far.test/media/vector.svg' },
        image('https://far.test/media/photo.png'),
      ],
    });
    expect((await peers.deliver(INBOX, post.activity)).status).toBe(202);
    const status = await mentioned(post.uri);
    expect(status.mediaAttachments.map((m) => [m.type, m.url, m.remoteUrl])).toEqual([
      ['unknown', null, null],
      ['unknown', null, null],
      ['unknown', null, null],
      ['unknown', null, null],
      ['unknown', null, null],
      ['unknown', null, null],
      ['unknown', null, 'https://far.test/media/drawing.svg'],
      ['unknown', null, 'https://far.test/media/vector.svg'],
      ['image', 'https://far.test/media/photo.png', 'https://far.test/media/photo.png'],
    ]);
    // Not anywhere in what the API gives, timelines included.
    const shown = JSON.stringify(await lain.client.v1.statuses.$select(status.id).fetch());
    for (const address of ['127.0.0.1', '10.1.2.3', '[::1]', 'localhost', 'router', 'printer.local'])
      expect(shown).not.toContain(address);
  });

  it('custom emojis on private addresses, or SVG, are not taken; public ones are', async () => {
    const sender = await peers.actor('https://far.test/users/emojist', person('emojist'));
    const emoji = (name: string, url: string, mediaType = 'image/png') => ({
      id: `https://far.test/emojis/${name}`,
      type: 'Emoji',
      name: `:${name}:`,
      icon: { type: 'Image', mediaType, url },
    });
    const post = createNote(sender.id, {
      content: '<p>:inside: :loopback: :vector: :fine: for <a href="https://home.test/users/lain">@lain</a></p>',
      tag: [
        emoji('inside', 'https://192.168.0.10/e.png'),
        emoji('loopback', 'https://localhost/e.png'),
        emoji('vector', 'https://far.test/emojis/vector.svg', 'image/svg+xml'),
        emoji('fine', 'https://far.test/emojis/fine.png'),
      ],
    });
    expect((await peers.deliver(INBOX, post.activity)).status).toBe(202);
    const status = await mentioned(post.uri);
    expect(status.emojis.map((e) => [e.shortcode, e.url])).toEqual([['fine', 'https://far.test/emojis/fine.png']]);
  });

  it('an SVG avatar, or one on a private address, shows as the default one (as Mastodon’s missing.png)', async () => {
    const svg = await peers.actor(
      'https://far.test/users/vector',
      person('vector', {
        icon: { type: 'Image', mediaType: 'image/svg+xml', url: 'https://far.test/avatars/vector.svg' },
        image: { type: 'Image', mediaType: 'image/svg+xml', url: 'https://far.test/headers/vector.svg' },
      }),
    );
    const local = await peers.actor(
      'https://far.test/users/insider',
      person('insider', {
        icon: { type: 'Image', mediaType: 'image/png', url: 'http://192.168.1.1/avatar.png' },
        image: { type: 'Image', mediaType: 'image/png', url: 'http://127.0.0.1:8080/header.png' },
      }),
    );
    const plain = await peers.actor(
      'https://far.test/users/plain',
      person('plain', { icon: { type: 'Image', mediaType: 'image/png', url: 'https://far.test/avatars/plain.png' } }),
    );
    for (const actor of [svg, local, plain]) {
      const post = createNote(actor.id);
      expect((await peers.deliver(INBOX, post.activity)).status).toBe(202);
      await mentioned(post.uri);
    }
    const account = (name: string) => lain.client.v1.accounts.lookup({ acct: `${name}@far.test` });
    for (const name of ['vector', 'insider']) {
      expect(await account(name)).toMatchObject({
        avatar: MISSING_AVATAR,
        avatarStatic: MISSING_AVATAR,
        header: MISSING_HEADER,
        headerStatic: MISSING_HEADER,
      });
    }
    expect((await account('plain')).avatar).toBe('https://far.test/avatars/plain.png');
  });
});
