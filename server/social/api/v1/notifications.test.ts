import { describe, expect, it } from 'vitest';
import { useSocialTestServer } from '../../testing/use-server.ts';

/* Notifications of every type, their filters, dismissal and suppression; direct-message conversations. */

const t = useSocialTestServer('alice', 'bob', 'carol');

describe('notifications', () => {
  it('notifies of mentions, subscribed statuses, reblogs, follows, follow requests, favourites and edits', async () => {
    const a = t.server.masto(t.alice.token);
    const b = t.server.masto(t.bob.token);
    await b.v1.accounts.$select(t.alice.accountId).follow({ notify: true }); // follow (+ "notify me" subscription)
    const post = await a.v1.statuses.create({ status: 'hello followers' }); // status, for bob
    await b.v1.statuses.$select(post.id).favourite(); // favourite
    await b.v1.statuses.$select(post.id).reblog(); // reblog
    await a.v1.statuses.$select(post.id).update({ status: 'hello followers (edited)' }); // update, for bob who reblogged
    const mention = await b.v1.statuses.create({ status: '@alice look' }); // mention
    await a.v1.accounts.updateCredentials({ locked: true });
    await t.server.masto(t.carol.token).v1.accounts.$select(t.alice.accountId).follow(); // follow_request

    const forAlice = await a.v1.notifications.list({ limit: 80 });
    expect(forAlice.map((n) => n.type)).toEqual(['follow_request', 'mention', 'reblog', 'favourite', 'follow']);
    expect(forAlice.find((n) => n.type === 'mention')?.status?.id).toBe(mention.id);
    expect(forAlice.find((n) => n.type === 'favourite')?.status?.favouritesCount).toBe(1);
    // Favourites and reblogs of one status and follows carry Mastodon 4.3's group keys; the rest group alone.
    for (const n of forAlice) {
      if (n.type === 'favourite' || n.type === 'reblog')
        expect(n.groupKey).toMatch(new RegExp(`^${n.type}-${n.status!.id}-\\d+$`));
      else if (n.type === 'follow') expect(n.groupKey).toMatch(/^follow-\d+$/);
      else expect(n.groupKey).toBe(`ungrouped-${n.id}`);
    }
    const forBob = await b.v1.notifications.list();
    expect(forBob.map((n) => n.type)).toEqual(['update', 'status']);
    expect(forBob[0].status?.content).toContain('edited');

    // Filters: types[], exclude_types[], account_id (megalodon sends exclude_types).
    expect((await a.v1.notifications.list({ types: ['favourite', 'reblog'] })).map((n) => n.type)).toEqual([
      'reblog',
      'favourite',
    ]);
    const excluded = await t.server
      .megalodon(t.alice.token)
      .getNotifications({ exclude_types: ['follow', 'follow_request'] as never });
    expect(excluded.data.map((n) => n.type)).toEqual(['mention', 'reblog', 'favourite']);
    expect((await a.v1.notifications.list({ accountId: t.carol.accountId })).map((n) => n.type)).toEqual([
      'follow_request',
    ]);

    // One notification; dismiss; clear.
    const one = await a.v1.notifications.$select(forAlice[1].id).fetch();
    expect(one.type).toBe('mention');
    await a.v1.notifications.$select(forAlice[1].id).dismiss();
    const missing = await t.server.fetch(`${t.server.url}/api/v1/notifications/${forAlice[1].id}`, {
      headers: { Authorization: `Bearer ${t.alice.token}` },
    });
    expect(missing.status).toBe(404);
    expect(
      await b.v1.notifications
        .$select(forAlice[0].id)
        .fetch()
        .catch((e: { statusCode: number }) => e.statusCode),
    ).toBe(404);
    await a.v1.notifications.clear();
    expect(await a.v1.notifications.list()).toEqual([]);
    await a.v1.accounts.updateCredentials({ locked: false });
  });

  it('suppresses notifications from accounts muted with notifications, but not from plain mutes', async () => {
    const a = t.server.masto(t.alice.token);
    const post = await a.v1.statuses.create({ status: 'mute test' });
    await a.v1.accounts.$select(t.carol.accountId).mute({ notifications: false });
    await t.server.masto(t.carol.token).v1.statuses.$select(post.id).favourite();
    // A mention from a muted account is dropped even when the mute keeps notifications.
    await t.server.masto(t.carol.token).v1.statuses.create({ status: '@alice muted mention' });
    expect((await a.v1.notifications.list()).map((n) => `${n.type}:${n.account.id}`)).toEqual([
      `favourite:${t.carol.accountId}`,
    ]);
    await a.v1.accounts.$select(t.carol.accountId).mute({ notifications: true });
    await t.server.masto(t.carol.token).v1.statuses.$select(post.id).reblog();
    expect((await a.v1.notifications.list()).map((n) => n.type)).toEqual(['favourite']);
    await a.v1.accounts.$select(t.carol.accountId).unmute();
    await t.server.masto(t.carol.token).v1.statuses.$select(post.id).unreblog();
    await t.server.masto(t.carol.token).v1.statuses.$select(post.id).reblog();
    expect((await a.v1.notifications.list()).map((n) => n.type)).toEqual(['reblog', 'favourite']);
    // Unfavouriting removes what the favourite caused.
    await t.server.masto(t.carol.token).v1.statuses.$select(post.id).unfavourite();
    expect((await a.v1.notifications.list()).map((n) => n.type)).toEqual(['reblog']);
    await a.v1.notifications.clear();
  });

  it('answers the unread count after the notifications marker', async () => {
    const res = await t.server.fetch(`${t.server.url}/api/v1/notifications/unread_count`, {
      headers: { Authorization: `Bearer ${t.alice.token}` },
    });
    expect(await res.json()).toEqual({ count: 0 });
  });
});

describe('destroy_multiple', () => {
  it('deletes the caller’s notifications named by ids[], leaving the rest and others’ alone', async () => {
    const [owner, fan] = await Promise.all([t.server.createUser('owner'), t.server.createUser('fan')]);
    const post = await t.server.masto(owner.token).v1.statuses.create({ status: 'like me' });
    await t.server.masto(fan.token).v1.statuses.$select(post.id).favourite();
    await t.server.masto(fan.token).v1.statuses.$select(post.id).reblog();
    await t.server.masto(fan.token).v1.accounts.$select(owner.accountId).follow();
    const before = await t.server.masto(owner.token).v1.notifications.list();
    expect(before).toHaveLength(3);
    const [keep, ...gone] = before.map((n) => n.id);
    expect(
      (await t.server.call(fan.token, 'DELETE', `/api/v1/notifications/destroy_multiple?ids[]=${keep}`)).status,
    ).toBe(200);
    const answer = await t.server.call(
      owner.token,
      'DELETE',
      `/api/v1/notifications/destroy_multiple?${gone.map((id) => `ids[]=${id}`).join('&')}`,
    );
    expect(answer).toMatchObject({ status: 200, body: {} });
    expect((await t.server.masto(owner.token).v1.notifications.list()).map((n) => n.id)).toEqual([keep]);
  });
});

describe('conversations', () => {
  it('tracks direct threads per participant with unread and last_status; read and remove', async () => {
    const a = t.server.masto(t.alice.token);
    const b = t.server.masto(t.bob.token);
    const first = await a.v1.statuses.create({ status: '@bob @carol secret plan', visibility: 'direct' });
    const reply = await b.v1.statuses.create({
      status: '@alice @carol agreed',
      visibility: 'direct',
      inReplyToId: first.id,
    });

    const mine = await a.v1.conversations.list();
    expect(mine).toHaveLength(1);
    expect(mine[0].lastStatus?.id).toBe(reply.id);
    expect(mine[0].unread).toBe(true);
    expect(mine[0].accounts.map((x) => x.id).sort()).toEqual([t.bob.accountId, t.carol.accountId].sort());
    const bobs = await b.v1.conversations.list();
    expect(bobs[0].unread).toBe(false); // bob wrote the last message
    const carols = (await t.server.megalodon(t.carol.token).getConversationTimeline()).data;
    expect(carols[0].last_status?.id).toBe(reply.id);
    expect(carols[0].unread).toBe(true);

    const read = await a.v1.conversations.$select(mine[0].id).read();
    expect(read.unread).toBe(false);
    const unread = await t.server.call(t.alice.token, 'POST', `/api/v1/conversations/${mine[0].id}/unread`);
    expect(unread).toMatchObject({ status: 200, body: { id: mine[0].id, unread: true } });
    expect((await a.v1.conversations.list())[0].unread).toBe(true);
    expect((await t.server.call(t.bob.token, 'POST', `/api/v1/conversations/${mine[0].id}/unread`)).status).toBe(404);
    await a.v1.conversations.$select(mine[0].id).read();
    // Deleting the last message falls back to the one before it.
    await b.v1.statuses.$select(reply.id).remove();
    expect((await a.v1.conversations.list())[0].lastStatus?.id).toBe(first.id);
    await a.v1.conversations.$select(mine[0].id).remove();
    expect(await a.v1.conversations.list()).toEqual([]);
    expect(
      (
        await t.server.fetch(`${t.server.url}/api/v1/conversations/${carols[0].id}/read`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${t.alice.token}` },
        })
      ).status,
    ).toBe(404);
  });

  it('takes the follow notification away with an unfollow, as Mastodon does', async () => {
    const [host, guest] = await Promise.all([t.server.createUser('host'), t.server.createUser('guest')]);
    const h = t.server.masto(host.token);
    const g = t.server.masto(guest.token);
    await g.v1.accounts.$select(host.accountId).follow();
    expect((await h.v1.notifications.list({ types: ['follow'] })).map((n) => n.account.id)).toEqual([guest.accountId]);
    await g.v1.accounts.$select(host.accountId).unfollow();
    expect(await h.v1.notifications.list({ types: ['follow'] })).toEqual([]);
  });
});
