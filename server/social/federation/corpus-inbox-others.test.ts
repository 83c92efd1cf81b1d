import { describe, expect, it } from 'vitest';
import { INBOX, LAIN, TO_LAIN, useCorpusHome } from './testing/corpus-home.ts';
import { readFixture, rewrite } from './testing/recorded-peers.ts';
import { eventually } from './testing/test-network.ts';

/*
 * Recorded payloads of Misskey, Pleroma/Akkoma, PeerTube and Hubzilla/Osada (from the corpus in shared/fixtures,
 * see testing/fixtures.ts) delivered to a live Homeport's inbox, each checked through the Mastodon API for what it
 * should change, as corpus-inbox.test.ts does for Mastodon's; and payloads unsigned or wrongly signed. The corpus
 * holds no GoToSocial payload and no Friendica activity (only Friendica collections); Hubzilla and Osada stand for
 * that family.
 */

const corpus = useCorpusHome();

describe('Misskey', () => {
  it('a Like with a _misskey_reaction is a favourite notification', async () => {
    await corpus.peers.actor('http://mastodon.example.org/users/admin', 'tesla_mock/admin@mastdon.example.org.json');
    const { notification } = await corpus.reactionTo(
      'misskey-like.json',
      'https://testing.pleroma.lol/objects/c331bbf7-2eb9-4801-a709-2a6103492a5a',
    );
    expect(notification.account.acct).toBe('admin@mastodon.example.org');
  });

  it('a custom emoji reaction (a Like with content and an Emoji tag) is a favourite notification', async () => {
    // The corpus has no document for this Misskey actor: a plain one stands in.
    await corpus.peers.actor('https://misskey.local.live/users/8x8yep20u2');
    const { notification } = await corpus.reactionTo(
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
    const note = await corpus.postOfFollowed(
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
    await corpus.peers.actor('https://p.helene.moe/users/helene', 'tesla_mock/helene@p.helene.moe.json');
    // The Misskey note it answers is on its server (and maybe here already).
    corpus.peers.serve(readFixture('tesla_mock/mk.absturztau.be-93e7nm8wqg.json'));
    const toLain = {
      'https://mk.absturztau.be/users/8ozbzjs3o8': LAIN,
      'https://mk.absturztau.be/@mametsuko': LAIN,
      '@mametsuko@mk.absturztau.be': '@lain@home.test',
    };
    await corpus.deliver(rewrite(readFixture('create-pleroma-reply-to-misskey-thread.json'), toLain));
    const mention = await eventually(
      async () => (await corpus.notificationsOf('mention')).find((n) => n.account.acct === 'helene@p.helene.moe'),
      'the mention',
    );
    const reply = mention.status!;
    expect(reply.content).toContain('meow');
    expect(reply.visibility).toBe('public');
    const parent = (
      await corpus.lain.client.v2.search.list({
        q: 'https://mk.absturztau.be/notes/93e7nm8wqg',
        resolve: true,
        type: 'statuses',
      })
    ).statuses[0];
    expect(reply.inReplyToId).toBe(parent.id);
  });

  it('an EmojiReact is a favourite notification', async () => {
    await corpus.peers.actor('http://mastodon.example.org/users/admin', 'tesla_mock/admin@mastdon.example.org.json');
    const { post } = await corpus.reactionTo(
      'emoji-reaction.json',
      'http://localtesting.pleroma.lol/objects/eb92579d-3417-42a8-8652-2492c2d4f454',
    );
    expect((await corpus.lain.client.v1.statuses.$select(post.id).fetch()).favouritesCount).toBe(1);
    // Taken back as Pleroma does it: an Undo carrying the reaction, under the same context (EmojiReact undefined).
    const {
      '@context': context,
      signature: _signature,
      ...reaction
    } = rewrite(readFixture('emoji-reaction.json'), post.replacements) as Record<string, unknown>;
    await corpus.deliver({
      '@context': context,
      type: 'Undo',
      id: `${String(reaction.actor)}#undo-reactions/2`,
      actor: reaction.actor,
      object: reaction,
    });
    await eventually(
      async () => (await corpus.lain.client.v1.statuses.$select(post.id).fetch()).favouritesCount === 0,
      'the reaction taken back',
    );
    expect((await corpus.notificationsOf('favourite')).some((n) => n.status?.id === post.id)).toBe(false);
  });

  it('a ChatMessage (recorded without a JSON-LD context) is refused with a reason and shows nowhere', async () => {
    await corpus.peers.actor('http://2hu.gensokyo/users/raymoo');
    const before = await corpus.lain.client.v1.notifications.list();
    const res = await corpus.peers.deliver(
      INBOX,
      rewrite(readFixture('create-chat-message.json'), { 'http://2hu.gensokyo/users/marisa': LAIN }),
    );
    // Without a context nothing in it means anything as JSON-LD, not even its actor: a client error, no crash.
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/actor/i);
    expect(await corpus.lain.client.v1.notifications.list()).toEqual(before);
    expect((await corpus.lain.client.v2.search.list({ q: 'raymoo@2hu.gensokyo', resolve: false })).accounts).toEqual(
      [],
    );
  });
});

describe('PeerTube', () => {
  it('a video from a followed account is shown as Mastodon shows one: its title and a link', async () => {
    const framasoft = {
      id: 'https://framatube.org/accounts/framasoft',
      file: 'tesla_mock/https___framatube.org_accounts_framasoft.json',
      acct: 'framasoft@framatube.org',
    };
    const video = await corpus.postOfFollowed(
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
    await corpus.peers.actor(
      'https://hubzilla.example.org/channel/kaniini',
      'tesla_mock/kaniini@hubzilla.example.org.json',
    );
    await corpus.peers.actor('https://apfed.club/channel/indio', 'tesla_mock/osada-user-indio.json');
    await corpus.deliver(rewrite(readFixture('hubzilla-follow-activity.json'), TO_LAIN));
    await corpus.deliver(
      rewrite(readFixture('osada-follow-activity.json'), { 'https://pleroma.site/users/kaniini': LAIN }),
    );
    for (const acct of ['kaniini@hubzilla.example.org', 'indio@apfed.club']) {
      const followed = await eventually(
        async () => (await corpus.notificationsOf('follow')).find((n) => n.account.acct === acct),
        `the follow of ${acct}`,
      );
      expect(
        (await corpus.lain.client.v1.accounts.relationships.fetch({ id: [followed.account.id] }))[0].followedBy,
      ).toBe(true);
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
    const photo = await corpus.postOfFollowed(
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
    await corpus.peers.actor(ADMIN, 'tesla_mock/admin@mastdon.example.org.json');
    const before = (await corpus.notificationsOf('mention')).length;
    const forged = rewrite(readFixture('mastodon-post-activity.json'), {
      ...TO_LAIN,
      '99512778738411822': '99512778738419999',
    });
    expect((await corpus.peers.deliver(INBOX, forged, 'none')).status).toBe(401);
    expect((await corpus.peers.deliver(INBOX, forged, 'stranger')).status).toBe(401);
    expect((await corpus.notificationsOf('mention')).length).toBe(before);
    const search = await corpus.lain.client.v2.search.list({
      q: 'http://mastodon.example.org/users/admin/statuses/99512778738419999',
      resolve: false,
    });
    expect(search.statuses).toEqual([]);
  });
});
