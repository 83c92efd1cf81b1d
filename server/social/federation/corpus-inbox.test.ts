// Over 400 lines on purpose: one subject, the inbox fed the recorded activities of Mastodon and Misskey, one case per kind of activity; its cases share one set-up.
import type { mastodon } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFixture, RecordedPeers, rewrite, type Json } from './testing/recorded-peers.ts';
import { createTestNetwork, eventually, type TestInstance, type TestNetwork } from './testing/test-network.ts';

/*
 * Recorded payloads of Mastodon, Misskey, Pleroma/Akkoma, PeerTube and Hubzilla/Osada (from the corpus in
 * shared/fixtures, see testing/fixtures.ts) delivered to a live Homeport's inbox with valid signatures, each checked through the
 * Mastodon API for what it should change: notifications, timelines, relationships. Only what must name the
 * local user (lain, the corpus's own recipient) or her posts is rewritten. The corpus holds no GoToSocial
 * payload and no Friendica activity (only Friendica collections); Hubzilla and Osada stand for that family.
 */

const HOME = 'https://home.test';
const INBOX = `${HOME}/inbox`;
const LAIN = `${HOME}/users/lain`;

let net: TestNetwork;
let home: TestInstance;
let lain: Awaited<ReturnType<TestInstance['createUser']>>;
let peers: RecordedPeers;

beforeAll(async () => {
  net = createTestNetwork();
  home = await net.add('home.test');
  lain = await home.createUser('lain');
  peers = new RecordedPeers(net);
});

afterAll(async () => {
  await net?.close();
});

/** The corpus's recipients (lain on the Pleroma test servers, and others) as lain here. */
const TO_LAIN = {
  'http://localtesting.pleroma.lol/users/lain': LAIN,
  'https://localtesting.pleroma.lol/users/lain': LAIN,
  '@lain@localtesting.pleroma.lol': '@lain@home.test',
};

/** A recorded payload that names only Mastodon's extension context, with ActivityStreams' before it (as sent today). */
function withActivityStreamsContext(activity: Json): Json {
  return { ...activity, '@context': ['https://www.w3.org/ns/activitystreams', ...[activity['@context']].flat()] };
}

async function deliver(activity: Json): Promise<void> {
  const res = await peers.deliver(INBOX, activity);
  expect(res.status, await res.clone().text()).toBe(202);
}

/** A new post of lain's, and the corpus's object ids (of a Like, a boost…) rewritten to it. */
async function lainPost(
  text: string,
  objectIds: string[],
): Promise<{ id: string; replacements: Record<string, string> }> {
  const status = await lain.client.v1.statuses.create({ status: text });
  return { id: status.id, replacements: Object.fromEntries(objectIds.map((id) => [id, status.uri])) };
}

async function notificationsOf(type: 'mention' | 'favourite' | 'reblog' | 'follow') {
  return lain.client.v1.notifications.list({ types: [type], limit: 40 });
}

/** A reaction payload (Like, EmojiReact) about a new post of lain's: the favourite notification it makes. */
async function reactionTo(file: string, objectId: string) {
  const post = await lainPost(`a post for ${file}`, [objectId]);
  await deliver(rewrite(readFixture(file), post.replacements));
  const notification = await eventually(
    async () => (await notificationsOf('favourite')).find((n) => n.status?.id === post.id),
    `the favourite of ${file}`,
  );
  return { post, notification };
}

/** A post in lain's home timeline, once it is there. */
async function inHome(uri: string) {
  return eventually(
    async () => (await lain.client.v1.timelines.home.list()).find((s) => s.uri === uri),
    `${uri} in home`,
  );
}

/** lain follows a peer's account, looked up by its handle; the peer accepts. */
async function follow(acct: string): Promise<string> {
  const account = await lain.client.v1.accounts.lookup({ acct });
  await lain.client.v1.accounts.$select(account.id).follow();
  await eventually(
    async () => (await lain.client.v1.accounts.relationships.fetch({ id: [account.id] }))[0].following,
    `lain follows ${acct}`,
  );
  return account.id;
}

/** A post of a peer's actor that lain follows, delivered as recorded: the status in lain's home. */
async function postOfFollowed(actor: { id: string; file: string; acct: string }, payload: string, uri: string) {
  await peers.actor(actor.id, actor.file);
  await follow(actor.acct);
  await deliver(readFixture(payload));
  return inHome(uri);
}

describe('Mastodon', () => {
  const ADMIN = 'http://mastodon.example.org/users/admin';

  beforeAll(async () => {
    await peers.actor(ADMIN, 'tesla_mock/admin@mastdon.example.org.json');
  });

  it('a post mentioning lain: a mention notification with its content warning and visibility', async () => {
    await deliver(rewrite(readFixture('mastodon-post-activity.json'), TO_LAIN));
    const mention = await eventually(
      async () => (await notificationsOf('mention')).find((n) => n.account.acct === 'admin@mastodon.example.org'),
      'the mention',
    );
    expect(mention.status!.uri).toBe('http://mastodon.example.org/users/admin/statuses/99512778738411822');
    expect(mention.status!.content).toContain(`href="${LAIN}"`);
    expect(mention.status!.spoilerText).toBe('cw');
    expect(mention.status!.sensitive).toBe(true);
    expect(mention.status!.visibility).toBe('public');
    expect(mention.status!.mentions.map((m) => m.acct)).toEqual(['lain']);
  });

  it('the recorded variants of that post keep their hashtags, sensitivity and language', async () => {
    const variants: { file: string; check: (status: mastodon.v1.Status) => void }[] = [
      { file: 'mastodon-post-activity-hashtag.json', check: (s) => expect(s.tags.map((t) => t.name)).toEqual(['moo']) },
      {
        file: 'mastodon-post-activity-nsfw.json',
        check: (s) => expect([s.tags.map((t) => t.name), s.sensitive]).toEqual([['nsfw'], true]),
      },
      { file: 'mastodon-post-activity-contentmap.json', check: (s) => expect(s.language).toBe('en') },
    ];
    for (const [i, variant] of variants.entries()) {
      // The variants share one post id (each would be taken as the first again): each gets its own.
      const id = `9951277873841183${i}`;
      await deliver(rewrite(readFixture(variant.file), { ...TO_LAIN, '99512778738411822': id }));
      const mention = await eventually(
        async () => (await notificationsOf('mention')).find((n) => n.status?.uri.endsWith(id)),
        `the mention of ${variant.file}`,
      );
      variant.check(mention.status!);
    }
  });

  it('a post with an attachment reaches the home timeline of a follower, its image linked', async () => {
    await follow('admin@mastodon.example.org');
    await deliver(readFixture('mastodon-create-with-attachment.json'));
    const status = await inHome('http://mastodon.example.org/users/admin/statuses/99541822081679796');
    expect(status.mediaAttachments).toHaveLength(1);
    expect(status.mediaAttachments[0]).toMatchObject({
      type: 'image',
      remoteUrl: 'http://mastodon.example.org/system/media_attachments/files/000/000/002/original/334ce029e7bfb920.jpg',
      description: null,
    });
  });

  it('a Like is a favourite notification; its Undo takes it back', async () => {
    const { post: liked } = await reactionTo(
      'mastodon-like.json',
      'http://localtesting.pleroma.lol/objects/eb92579d-3417-42a8-8652-2492c2d4f454',
    );
    expect((await lain.client.v1.statuses.$select(liked.id).fetch()).favouritesCount).toBe(1);
    await deliver(rewrite(readFixture('mastodon-undo-like.json'), liked.replacements));
    await eventually(
      async () => (await lain.client.v1.statuses.$select(liked.id).fetch()).favouritesCount === 0,
      'the favourite undone',
    );
    expect((await notificationsOf('favourite')).find((n) => n.status?.id === liked.id)).toBeUndefined();
  });

  it('an Announce is a reblog notification', async () => {
    const boosted = await lainPost('boost me', ['http://mastodon.example.org/@admin/99541947525187367']);
    await deliver(rewrite(readFixture('mastodon-announce.json'), boosted.replacements));
    const reblog = await eventually(
      async () => (await notificationsOf('reblog')).find((n) => n.status?.id === boosted.id),
      'the reblog',
    );
    expect(reblog.account.acct).toBe('admin@mastodon.example.org');
    expect((await lain.client.v1.statuses.$select(boosted.id).fetch()).reblogsCount).toBe(1);
  });

  it('a boost embedding a post in someone else’s name is not believed: the post is looked up at its origin', async () => {
    await peers.actor('https://mastodon.social/users/emelie', 'tesla_mock/emelie.json');
    // The recorded bogus Announce reuses the recorded Announce's id (activities are taken once per id).
    const bogus = {
      ...readFixture('bogus-mastodon-announce.json'),
      id: 'http://mastodon.example.org/users/admin/statuses/99542391527669786/activity',
    };
    await deliver(bogus);
    // A post delivered after it arrives, so the boost had its turn.
    await deliver(
      rewrite(readFixture('mastodon-post-activity.json'), { ...TO_LAIN, '99512778738411822': '99512778738411901' }),
    );
    await eventually(
      async () => (await notificationsOf('mention')).find((n) => n.status?.uri.endsWith('99512778738411901')),
      'the later mention',
    );
    const home = await lain.client.v1.timelines.home.list();
    expect(
      home.filter(
        (s) =>
          s.reblog?.uri === 'https://mastodon.social/users/emelie/statuses/101849165031453404' ||
          s.content.includes('this is a public toot'),
      ),
    ).toEqual([]);
    expect(peers.requested).toContain('https://mastodon.social/users/emelie/statuses/101849165031453404');
  });

  it('an Undo of the Announce (recorded with the http:// ActivityStreams context) takes the boost back', async () => {
    const boosted = (await notificationsOf('reblog')).find((n) => n.account.acct === 'admin@mastodon.example.org')!
      .status!;
    await deliver(
      rewrite(readFixture('mastodon-undo-announce.json'), {
        'http://mastodon.example.org/@admin/99541947525187367': boosted.uri,
      }),
    );
    await eventually(
      async () => (await lain.client.v1.statuses.$select(boosted.id).fetch()).reblogsCount === 0,
      'the boost undone',
    );
  });

  it('a Follow is a follow notification, answered with an Accept', async () => {
    await deliver(rewrite(readFixture('mastodon-follow-activity.json'), TO_LAIN));
    const followed = await eventually(
      async () => (await notificationsOf('follow')).find((n) => n.account.acct === 'admin@mastodon.example.org'),
      'the follow',
    );
    expect((await lain.client.v1.accounts.relationships.fetch({ id: [followed.account.id] }))[0].followedBy).toBe(true);
    const accept = await eventually(
      () =>
        peers.received.find(
          (r) =>
            r.activity.type === 'Accept' &&
            r.activity.object?.id === 'http://mastodon.example.org/users/admin#follows/2',
        ),
      'the Accept',
    );
    expect(accept.activity.actor).toBe(LAIN);
  });
});

describe('Mastodon: blocks and polls', () => {
  it('a Block ends the follows both ways; its Undo lets them be made again', async () => {
    const admin = await lain.client.v1.accounts.lookup({ acct: 'admin@mastodon.example.org' });
    const before = (await lain.client.v1.accounts.relationships.fetch({ id: [admin.id] }))[0];
    expect([before.following, before.followedBy]).toEqual([true, true]);
    // The recorded Block reuses the id of the recorded Follow (activities are taken once per id): it gets the id
    // the corpus's Undo of it names.
    const block = {
      ...rewrite(readFixture('mastodon-block-activity.json'), TO_LAIN),
      id: 'http://mastodon.example.org/users/admin#blocks/2',
    };
    await deliver(block);
    await eventually(async () => {
      const relationship = (await lain.client.v1.accounts.relationships.fetch({ id: [admin.id] }))[0];
      return !relationship.following && !relationship.followedBy;
    }, 'the follows ended');
    await deliver(rewrite(readFixture('mastodon-unblock-activity.json'), TO_LAIN));
    await follow('admin@mastodon.example.org');
  });

  it('a Question from a followed account is a poll with its options and counts', async () => {
    const rinpatch = {
      id: 'https://mastodon.sdf.org/users/rinpatch',
      file: 'tesla_mock/rinpatch.json',
      acct: 'rinpatch@mastodon.sdf.org',
    };
    const question = await postOfFollowed(
      rinpatch,
      'mastodon-question-activity.json',
      'https://mastodon.sdf.org/users/rinpatch/statuses/102070944809637304',
    );
    expect(question.content).toContain('Why is Tenshi eating a corndog so cute?');
    expect(question.poll!.options.map((o) => `${o.title}:${o.votesCount}`)).toEqual([
      'Dunno:0',
      'Everyone knows that!:1',
      '25 char limit is dumb:0',
      "I can't even fit a funny:1",
    ]);
    expect(question.poll!.multiple).toBe(false);
    expect(question.poll!.expired).toBe(true);
  });
});

describe('Mastodon: profile updates and deletes', () => {
  const GARGRON = 'http://mastodon.example.org/users/gargron';
  const STATUS = 'http://mastodon.example.org/users/gargron/statuses/99620895606148759';
  const update = readFixture('mastodon-update.json');
  let served: Json;

  beforeAll(async () => {
    // The corpus has gargron's document only inside his Update: it is served as his actor, as it was before
    // the Update (another name, no bio).
    served = (
      await peers.actor(GARGRON, { '@context': update['@context'], ...update.object, name: 'Eugen', summary: '' })
    ).document;
  });

  it('an Update carrying a key that is not valid PEM (as recorded) is refused with the reason, not a 500', async () => {
    const res = await peers.deliver(INBOX, update);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('Invalid PEM-SPKI format');
  });

  it('an Update of the actor refreshes the profile', async () => {
    // The recorded Update, its key the one gargron signs with.
    await deliver({ ...update, object: { ...update.object, publicKey: served.publicKey } });
    const account = await eventually(async () => {
      const found = await lain.client.v1.accounts.lookup({ acct: 'gargron@mastodon.example.org' });
      return found.displayName === 'gargle' ? found : null;
    }, 'the profile');
    expect(account.note).toContain('Some bio');
    expect(account.avatar).toBe('https://cd.niu.moe/accounts/avatars/000/033/323/original/fd7f8ae0b3ffedc9.jpeg');
    // Its fields are PropertyValues its context does not define (Mastodon's today does): not read as fields.
    expect(account.fields).toEqual([]);
  });

  it('a Delete of a post removes it and its mention', async () => {
    // The corpus has the Delete but not the post: Mastodon's post activity, re-authored as gargron's.
    const post = rewrite(readFixture('mastodon-post-activity.json'), {
      ...TO_LAIN,
      'users/admin/statuses/99512778738411822': 'users/gargron/statuses/99620895606148759',
      'users/admin': 'users/gargron',
      '@admin': '@gargron',
    });
    await deliver(post);
    const mention = await eventually(
      async () => (await notificationsOf('mention')).find((n) => n.status?.uri === STATUS),
      'the mention',
    );
    // As recorded, the Delete has no ActivityStreams context, so none of its terms mean anything: refused.
    const recorded = readFixture('mastodon-delete.json');
    const res = await peers.deliver(INBOX, recorded);
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/actor/i);
    expect((await lain.client.v1.statuses.$select(mention.status!.id).fetch()).uri).toBe(STATUS);
    // With the context Mastodon sends today in front of its own, the post is gone.
    await deliver(withActivityStreamsContext(recorded));
    await eventually(
      async () => !(await notificationsOf('mention')).some((n) => n.status?.uri === STATUS),
      'the mention gone',
    );
    await expect(lain.client.v1.statuses.$select(mention.status!.id).fetch()).rejects.toThrow(/not found/i);
  });
});

describe('Misskey', () => {
  it('a Like with a _misskey_reaction is a favourite notification', async () => {
    await peers.actor('http://mastodon.example.org/users/admin', 'tesla_mock/admin@mastdon.example.org.json');
    const { notification } = await reactionTo(
      'misskey-like.json',
      'https://testing.pleroma.lol/objects/c331bbf7-2eb9-4801-a709-2a6103492a5a',
    );
    expect(notification.account.acct).toBe('admin@mastodon.example.org');
  });

  it('a custom emoji reaction (a Like with content and an Emoji tag) is a favourite notification', async () => {
    // The corpus has no document for this Misskey actor: a plain one stands in.
    await peers.actor('https://misskey.local.live/users/8x8yep20u2');
    const { notification } = await reactionTo(
      'custom-emoji-reaction.json',
      'https://pleroma.local.live/objects/89937a53-2692-4631-bb62-770091267391',
    );
    expect(notification.account.acct).toBe('8x8yep20u2@misskey.local.live');
  });

  it('a note reaches the home timeline of a follower', async () => {
    const mametsuko = {
      id: 'https://mk.absturztau.be/users/8ozbzjs3o8',
      file: 'tesla_mock/mametsuko@mk.absturztau.be.json',
      acct: 'mametsuko@mk.absturztau.be',
    };
    const note = await postOfFollowed(
      mametsuko,
      'tesla_mock/mk.absturztau.be-93e7nm8wqg-activity.json',
      'https://mk.absturztau.be/notes/93e7nm8wqg',
    );
    expect(note.content).toContain('meow');
    expect(note.visibility).toBe('public');
    expect(note.account.acct).toBe('mametsuko@mk.absturztau.be');
  });
});

describe('Pleroma and Akkoma', () => {
  it('a reply in a Misskey thread mentioning lain: a mention, threaded under the note it answers', async () => {
    await peers.actor('https://p.helene.moe/users/helene', 'tesla_mock/helene@p.helene.moe.json');
    // The Misskey note it answers is on its server (and maybe here already).
    peers.serve(readFixture('tesla_mock/mk.absturztau.be-93e7nm8wqg.json'));
    const toLain = {
      'https://mk.absturztau.be/users/8ozbzjs3o8': LAIN,
      'https://mk.absturztau.be/@mametsuko': LAIN,
      '@mametsuko@mk.absturztau.be': '@lain@home.test',
    };
    await deliver(rewrite(readFixture('create-pleroma-reply-to-misskey-thread.json'), toLain));
    const mention = await eventually(
      async () => (await notificationsOf('mention')).find((n) => n.account.acct === 'helene@p.helene.moe'),
      'the mention',
    );
    const reply = mention.status!;
    expect(reply.content).toContain('meow');
    expect(reply.visibility).toBe('public');
    const parent = (
      await lain.client.v2.search.list({
        q: 'https://mk.absturztau.be/notes/93e7nm8wqg',
        resolve: true,
        type: 'statuses',
      })
    ).statuses[0];
    expect(reply.inReplyToId).toBe(parent.id);
  });

  it('an EmojiReact is a favourite notification', async () => {
    await peers.actor('http://mastodon.example.org/users/admin', 'tesla_mock/admin@mastdon.example.org.json');
    const { post } = await reactionTo(
      'emoji-reaction.json',
      'http://localtesting.pleroma.lol/objects/eb92579d-3417-42a8-8652-2492c2d4f454',
    );
    expect((await lain.client.v1.statuses.$select(post.id).fetch()).favouritesCount).toBe(1);
    // Taken back as Pleroma does it: an Undo carrying the reaction, under the same context (EmojiReact undefined).
    const {
      '@context': context,
      signature: _signature,
      ...reaction
    } = rewrite(readFixture('emoji-reaction.json'), post.replacements) as Record<string, unknown>;
    await deliver({
      '@context': context,
      type: 'Undo',
      id: `${String(reaction.actor)}#undo-reactions/2`,
      actor: reaction.actor,
      object: reaction,
    });
    await eventually(
      async () => (await lain.client.v1.statuses.$select(post.id).fetch()).favouritesCount === 0,
      'the reaction taken back',
    );
    expect((await notificationsOf('favourite')).some((n) => n.status?.id === post.id)).toBe(false);
  });

  it('a ChatMessage (recorded without a JSON-LD context) is refused with a reason and shows nowhere', async () => {
    await peers.actor('http://2hu.gensokyo/users/raymoo');
    const before = await lain.client.v1.notifications.list();
    const res = await peers.deliver(
      INBOX,
      rewrite(readFixture('create-chat-message.json'), { 'http://2hu.gensokyo/users/marisa': LAIN }),
    );
    // Without a context nothing in it means anything as JSON-LD, not even its actor: a client error, no crash.
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/actor/i);
    expect(await lain.client.v1.notifications.list()).toEqual(before);
    expect((await lain.client.v2.search.list({ q: 'raymoo@2hu.gensokyo', resolve: false })).accounts).toEqual([]);
  });
});

describe('PeerTube', () => {
  it('a video from a followed account is shown as Mastodon shows one: its title and a link', async () => {
    const framasoft = {
      id: 'https://framatube.org/accounts/framasoft',
      file: 'tesla_mock/https___framatube.org_accounts_framasoft.json',
      acct: 'framasoft@framatube.org',
    };
    const video = await postOfFollowed(
      framasoft,
      'tesla_mock/framatube.org-video.json',
      'https://framatube.org/videos/watch/6050732a-8a7a-43d4-a6cd-809525a1d206',
    );
    expect(video.content).toContain('Déframasoftisons Internet [Framasoft]');
    expect(video.content).toContain('href="https://framatube.org/videos/watch/6050732a-8a7a-43d4-a6cd-809525a1d206"');
    expect(video.visibility).toBe('public');
  });
});

describe('Hubzilla and Osada', () => {
  it('Follows, with the actor as a bare id or embedded whole, are follow notifications', async () => {
    await peers.actor('https://hubzilla.example.org/channel/kaniini', 'tesla_mock/kaniini@hubzilla.example.org.json');
    await peers.actor('https://apfed.club/channel/indio', 'tesla_mock/osada-user-indio.json');
    await deliver(rewrite(readFixture('hubzilla-follow-activity.json'), TO_LAIN));
    await deliver(rewrite(readFixture('osada-follow-activity.json'), { 'https://pleroma.site/users/kaniini': LAIN }));
    for (const acct of ['kaniini@hubzilla.example.org', 'indio@apfed.club']) {
      const followed = await eventually(
        async () => (await notificationsOf('follow')).find((n) => n.account.acct === acct),
        `the follow of ${acct}`,
      );
      expect((await lain.client.v1.accounts.relationships.fetch({ id: [followed.account.id] }))[0].followedBy).toBe(
        true,
      );
    }
  });
});

describe('Hubzilla: a photo post', () => {
  it('a Create(Image) from a followed channel is shown as Mastodon shows one: its name and its page', async () => {
    const testc6 = {
      id: 'https://hub.somaton.com/channel/testc6',
      file: 'hubzilla-actor.json',
      acct: 'testc6@hub.somaton.com',
    };
    const photo = await postOfFollowed(
      testc6,
      'hubzilla-create-image.json',
      'https://hub.somaton.com/photo/452583b2-7e1f-4ac3-8334-ff666f134afe',
    );
    expect(photo.content).toContain('daf82c18ef92a84cda72(1).jpg');
    expect(photo.url).toBe('https://hub.somaton.com/photos/testc6/image/452583b2-7e1f-4ac3-8334-ff666f134afe');
    expect(photo.content).toContain(`href="${photo.url}"`);
  });
});

describe('signatures', () => {
  it('an unsigned or wrongly signed payload is refused with 401 and changes nothing', async () => {
    const ADMIN = 'http://mastodon.example.org/users/admin';
    await peers.actor(ADMIN, 'tesla_mock/admin@mastdon.example.org.json');
    const before = (await notificationsOf('mention')).length;
    const forged = rewrite(readFixture('mastodon-post-activity.json'), {
      ...TO_LAIN,
      '99512778738411822': '99512778738419999',
    });
    expect((await peers.deliver(INBOX, forged, 'none')).status).toBe(401);
    expect((await peers.deliver(INBOX, forged, 'stranger')).status).toBe(401);
    expect((await notificationsOf('mention')).length).toBe(before);
    const search = await lain.client.v2.search.list({
      q: 'http://mastodon.example.org/users/admin/statuses/99512778738419999',
      resolve: false,
    });
    expect(search.statuses).toEqual([]);
  });
});

describe('Mastodon: account deletion', () => {
  it('a Delete of the actor removes the account and its posts', async () => {
    // lain follows admin again since the Block: his post with the attachment is back in her home.
    const post = await inHome('http://mastodon.example.org/users/admin/statuses/99541822081679796');
    await deliver(withActivityStreamsContext(readFixture('mastodon-delete-user.json')));
    await eventually(
      async () =>
        !(await lain.client.v1.timelines.home.list()).some((s) => s.account.acct === 'admin@mastodon.example.org'),
      'admin’s posts gone from home',
    );
    await expect(lain.client.v1.statuses.$select(post.id).fetch()).rejects.toThrow(/not found/i);
    await expect(lain.client.v1.accounts.$select(post.account.id).fetch()).rejects.toThrow(/not found/i);
  });
});
