import { describe, expect, it } from 'vitest';
import { eventually, useFollowingPair, type NetworkUser as User } from './testing/test-network.ts';

/*
 * The server's domain blocks applied to federation, between two Homeports: a suspended domain neither sends
 * nor receives anything and its known accounts are suspended; a silenced one's accounts are limited; lifting
 * the block restores both. Limited federation mode lets only allowed domains in.
 */

const t = useFollowingPair();

const homeOf = async (user: User) => (await user.client.v1.timelines.home.list({ limit: 40 })).map((s) => s.content);

describe('domain blocks in federation', () => {
  it('a suspended domain neither sends nor receives, its accounts are suspended, and lifting the block restores them', async () => {
    const moderation = t.a.social.context.moderation;
    const blocked = moderation.blockDomain({
      domain: 'b.test',
      severity: 'suspend',
      rejectMedia: false,
      rejectReports: false,
      privateComment: null,
      publicComment: 'testing',
      obfuscate: false,
    });
    if (!('created' in blocked)) throw new Error('the block was refused');
    expect(t.a.social.context.store.accounts.byId(t.bobOnA)!.suspendedAt).not.toBeNull();

    const mark = t.net.log.length;
    await t.bob.client.v1.statuses.create({ status: 'sent while blocked' });
    await t.alice.client.v1.statuses.create({ status: 'written while blocking' });
    // Both sides have handled those posts before the block is lifted: a sent nothing, b's delivery was refused.
    await t.a.social.federation!.idle();
    await eventually(
      async () =>
        t.net.log
          .slice(mark)
          .some((r) => r.method === 'POST' && r.url.startsWith('https://a.test/') && r.url.includes('inbox')),
      'b’s delivery to a',
    );
    t.a.social.context.store.moderation.removeDomainBlock(blocked.created.id);
    moderation.applyDomainBlock('b.test');
    expect(t.a.social.context.store.accounts.byId(t.bobOnA)!.suspendedAt).toBeNull();

    // What was sent after the block lifted arrives; what was sent during it never does.
    await t.bob.client.v1.statuses.create({ status: 'sent after the block' });
    await t.alice.client.v1.statuses.create({ status: 'written after the block' });
    await eventually(
      async () => (await homeOf(t.alice)).some((c) => c.includes('sent after the block')),
      'bob’s later post at a',
    );
    await eventually(
      async () => (await homeOf(t.bob)).some((c) => c.includes('written after the block')),
      'alice’s later post at b',
    );
    expect((await homeOf(t.alice)).some((c) => c.includes('sent while blocked'))).toBe(false);
    expect((await homeOf(t.bob)).some((c) => c.includes('written while blocking'))).toBe(false);
  });

  it('a silenced domain’s accounts are limited, and limited federation mode lets only allowed domains in', async () => {
    const ctx = t.a.social.context;
    const silenced = ctx.moderation.blockDomain({
      domain: 'b.test',
      severity: 'silence',
      rejectMedia: true,
      rejectReports: true,
      privateComment: null,
      publicComment: null,
      obfuscate: false,
    });
    if (!('created' in silenced)) throw new Error('the block was refused');
    expect((await t.alice.client.v1.accounts.$select(t.bobOnA).fetch()).limited).toBe(true);
    expect(ctx.moderation.domainPolicy('b.test')).toEqual({
      refused: false,
      silenced: true,
      rejectMedia: true,
      rejectReports: true,
    });
    ctx.store.moderation.removeDomainBlock(silenced.created.id);
    ctx.moderation.applyDomainBlock('b.test');
    expect((await t.alice.client.v1.accounts.$select(t.bobOnA).fetch()).limited).toBeFalsy();

    t.a.social.admin.setSetting('federation_mode', 'limited');
    try {
      expect(ctx.moderation.domainPolicy('b.test').refused).toBe(true);
      const mark = t.net.log.length;
      await t.bob.client.v1.statuses.create({ status: 'not allowed in' });
      await eventually(
        async () =>
          t.net.log
            .slice(mark)
            .some((r) => r.method === 'POST' && r.url.startsWith('https://a.test/') && r.url.includes('inbox')),
        'b’s delivery to a',
      );
      ctx.store.moderation.domainAllows.add('b.test');
      expect(ctx.moderation.domainPolicy('sub.b.test').refused).toBe(false);
      await t.bob.client.v1.statuses.create({ status: 'allowed in' });
      await eventually(
        async () => (await homeOf(t.alice)).some((c) => c.includes('allowed in') && !c.includes('not')),
        'the allowed post at a',
      );
      expect((await homeOf(t.alice)).some((c) => c.includes('not allowed in'))).toBe(false);
    } finally {
      t.a.social.admin.setSetting('federation_mode', 'open');
    }
  });
});
