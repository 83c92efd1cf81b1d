import type { mastodon } from 'masto';
import { beforeAll, describe, expect, it } from 'vitest';
import { INBOX, LAIN, TO_LAIN, withActivityStreamsContext, useCorpusHome } from './testing/corpus-home.ts';
import { readFixture, rewrite, type Json } from './testing/recorded-peers.ts';
import { eventually } from './testing/test-network.ts';

/*
 * Recorded payloads of Mastodon (from the corpus in shared/fixtures, see testing/fixtures.ts) delivered to a live
 * Homeport's inbox with valid signatures, each checked through the Mastodon API for what it should change:
 * notifications, timelines, relationships, profiles, deletions. Only what must name the local user (lain, the
 * corpus's own recipient) or her posts is rewritten. The other servers' payloads: corpus-inbox-others.test.ts.
 */

const corpus = useCorpusHome();

describe('Mastodon', () => {
  const ADMIN = 'http://mastodon.example.org/users/admin';

  beforeAll(async () => {
    await corpus.peers.actor(ADMIN, 'tesla_mock/admin@mastdon.example.org.json');
  });

  it('a post mentioning lain: a mention notification with its content warning and visibility', async () => {
    await corpus.deliver(rewrite(readFixture('mastodon-post-activity.json'), TO_LAIN));
    const mention = await eventually(
      async () =>
        (await corpus.notificationsOf('mention')).find((n) => n.account.acct === 'admin@mastodon.example.org'),
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
      await corpus.deliver(rewrite(readFixture(variant.file), { ...TO_LAIN, '99512778738411822': id }));
      const mention = await eventually(
        async () => (await corpus.notificationsOf('mention')).find((n) => n.status?.uri.endsWith(id)),
        `the mention of ${variant.file}`,
      );
      variant.check(mention.status!);
    }
  });

  it('a post with an attachment reaches the home timeline of a follower, its image linked', async () => {
    await corpus.follow('admin@mastodon.example.org');
    await corpus.deliver(readFixture('mastodon-create-with-attachment.json'));
    const status = await corpus.inHome('http://mastodon.example.org/users/admin/statuses/99541822081679796');
    expect(status.mediaAttachments).toHaveLength(1);
    expect(status.mediaAttachments[0]).toMatchObject({
      type: 'image',
      remoteUrl: 'http://mastodon.example.org/system/media_attachments/files/000/000/002/original/334ce029e7bfb920.jpg',
      description: null,
    });
  });

  it('a Like is a favourite notification; its Undo takes it back', async () => {
    const { post: liked } = await corpus.reactionTo(
      'mastodon-like.json',
      'http://localtesting.pleroma.lol/objects/eb92579d-3417-42a8-8652-2492c2d4f454',
    );
    expect((await corpus.lain.client.v1.statuses.$select(liked.id).fetch()).favouritesCount).toBe(1);
    await corpus.deliver(rewrite(readFixture('mastodon-undo-like.json'), liked.replacements));
    await eventually(
      async () => (await corpus.lain.client.v1.statuses.$select(liked.id).fetch()).favouritesCount === 0,
      'the favourite undone',
    );
    expect((await corpus.notificationsOf('favourite')).find((n) => n.status?.id === liked.id)).toBeUndefined();
  });

  it('an Announce is a reblog notification', async () => {
    const boosted = await corpus.lainPost('boost me', ['http://mastodon.example.org/@admin/99541947525187367']);
    await corpus.deliver(rewrite(readFixture('mastodon-announce.json'), boosted.replacements));
    const reblog = await eventually(
      async () => (await corpus.notificationsOf('reblog')).find((n) => n.status?.id === boosted.id),
      'the reblog',
    );
    expect(reblog.account.acct).toBe('admin@mastodon.example.org');
    expect((await corpus.lain.client.v1.statuses.$select(boosted.id).fetch()).reblogsCount).toBe(1);
  });

  it('a boost embedding a post in someone else’s name is not believed: the post is looked up at its origin', async () => {
    await corpus.peers.actor('https://mastodon.social/users/emelie', 'tesla_mock/emelie.json');
    // The recorded bogus Announce reuses the recorded Announce's id (activities are taken once per id).
    const bogus = {
      ...readFixture('bogus-mastodon-announce.json'),
      id: 'http://mastodon.example.org/users/admin/statuses/99542391527669786/activity',
    };
    await corpus.deliver(bogus);
    // A post delivered after it arrives, so the boost had its turn.
    await corpus.deliver(
      rewrite(readFixture('mastodon-post-activity.json'), { ...TO_LAIN, '99512778738411822': '99512778738411901' }),
    );
    await eventually(
      async () => (await corpus.notificationsOf('mention')).find((n) => n.status?.uri.endsWith('99512778738411901')),
      'the later mention',
    );
    const home = await corpus.lain.client.v1.timelines.home.list();
    expect(
      home.filter(
        (s) =>
          s.reblog?.uri === 'https://mastodon.social/users/emelie/statuses/101849165031453404' ||
          s.content.includes('this is a public toot'),
      ),
    ).toEqual([]);
    expect(corpus.peers.requested).toContain('https://mastodon.social/users/emelie/statuses/101849165031453404');
  });

  it('an Undo of the Announce (recorded with the http:// ActivityStreams context) takes the boost back', async () => {
    const boosted = (await corpus.notificationsOf('reblog')).find(
      (n) => n.account.acct === 'admin@mastodon.example.org',
    )!.status!;
    await corpus.deliver(
      rewrite(readFixture('mastodon-undo-announce.json'), {
        'http://mastodon.example.org/@admin/99541947525187367': boosted.uri,
      }),
    );
    await eventually(
      async () => (await corpus.lain.client.v1.statuses.$select(boosted.id).fetch()).reblogsCount === 0,
      'the boost undone',
    );
  });

  it('a Follow is a follow notification, answered with an Accept', async () => {
    await corpus.deliver(rewrite(readFixture('mastodon-follow-activity.json'), TO_LAIN));
    const followed = await eventually(
      async () => (await corpus.notificationsOf('follow')).find((n) => n.account.acct === 'admin@mastodon.example.org'),
      'the follow',
    );
    expect(
      (await corpus.lain.client.v1.accounts.relationships.fetch({ id: [followed.account.id] }))[0].followedBy,
    ).toBe(true);
    const accept = await eventually(
      () =>
        corpus.peers.received.find(
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
    const admin = await corpus.lain.client.v1.accounts.lookup({ acct: 'admin@mastodon.example.org' });
    const before = (await corpus.lain.client.v1.accounts.relationships.fetch({ id: [admin.id] }))[0];
    expect([before.following, before.followedBy]).toEqual([true, true]);
    // The recorded Block reuses the id of the recorded Follow (activities are taken once per id): it gets the id
    // the corpus's Undo of it names.
    const block = {
      ...rewrite(readFixture('mastodon-block-activity.json'), TO_LAIN),
      id: 'http://mastodon.example.org/users/admin#blocks/2',
    };
    await corpus.deliver(block);
    await eventually(async () => {
      const relationship = (await corpus.lain.client.v1.accounts.relationships.fetch({ id: [admin.id] }))[0];
      return !relationship.following && !relationship.followedBy;
    }, 'the follows ended');
    await corpus.deliver(rewrite(readFixture('mastodon-unblock-activity.json'), TO_LAIN));
    await corpus.follow('admin@mastodon.example.org');
  });

  it('a Question from a followed account is a poll with its options and counts', async () => {
    const rinpatch = {
      id: 'https://mastodon.sdf.org/users/rinpatch',
      file: 'tesla_mock/rinpatch.json',
      acct: 'rinpatch@mastodon.sdf.org',
    };
    const question = await corpus.postOfFollowed(
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
      await corpus.peers.actor(GARGRON, {
        '@context': update['@context'],
        ...update.object,
        name: 'Eugen',
        summary: '',
      })
    ).document;
  });

  it('an Update carrying a key that is not valid PEM (as recorded) is refused with the reason, not a 500', async () => {
    const res = await corpus.peers.deliver(INBOX, update);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('Invalid PEM-SPKI format');
  });

  it('an Update of the actor refreshes the profile', async () => {
    // The recorded Update, its key the one gargron signs with.
    await corpus.deliver({ ...update, object: { ...update.object, publicKey: served.publicKey } });
    const account = await eventually(async () => {
      const found = await corpus.lain.client.v1.accounts.lookup({ acct: 'gargron@mastodon.example.org' });
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
    await corpus.deliver(post);
    const mention = await eventually(
      async () => (await corpus.notificationsOf('mention')).find((n) => n.status?.uri === STATUS),
      'the mention',
    );
    // As recorded, the Delete has no ActivityStreams context, so none of its terms mean anything: refused.
    const recorded = readFixture('mastodon-delete.json');
    const res = await corpus.peers.deliver(INBOX, recorded);
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/actor/i);
    expect((await corpus.lain.client.v1.statuses.$select(mention.status!.id).fetch()).uri).toBe(STATUS);
    // With the context Mastodon sends today in front of its own, the post is gone.
    await corpus.deliver(withActivityStreamsContext(recorded));
    await eventually(
      async () => !(await corpus.notificationsOf('mention')).some((n) => n.status?.uri === STATUS),
      'the mention gone',
    );
    await expect(corpus.lain.client.v1.statuses.$select(mention.status!.id).fetch()).rejects.toThrow(/not found/i);
  });
});

describe('Mastodon: account deletion', () => {
  it('a Delete of the actor removes the account and its posts', async () => {
    // lain follows admin again since the Block: his post with the attachment is back in her home.
    const post = await corpus.inHome('http://mastodon.example.org/users/admin/statuses/99541822081679796');
    await corpus.deliver(withActivityStreamsContext(readFixture('mastodon-delete-user.json')));
    await eventually(
      async () =>
        !(await corpus.lain.client.v1.timelines.home.list()).some(
          (s) => s.account.acct === 'admin@mastodon.example.org',
        ),
      'admin’s posts gone from home',
    );
    await expect(corpus.lain.client.v1.statuses.$select(post.id).fetch()).rejects.toThrow(/not found/i);
    await expect(corpus.lain.client.v1.accounts.$select(post.account.id).fetch()).rejects.toThrow(/not found/i);
  });
});
