import { describe, expect, it } from 'vitest';
import { jsonRequest, useStatusCast } from '../../../testing/status-cast.ts';

/*
 * What others do with a status, through real clients against a running Homeport (every JSON body validated
 * against the Mastodon OpenAPI document by the harness): reblogs, favourites, bookmarks, pins, conversation mutes
 * and who may quote it.
 */

/** alice, followed by bob and carol; dave follows nobody. */
const c = useStatusCast();
const api = (token: string | null, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  jsonRequest(c.server, token, method, path, body, headers);

describe('reblogs, favourites, bookmarks, pins and conversation mutes', () => {
  it('reblogs public statuses, refuses private ones with 422, and unreblogs', async () => {
    const a = c.server.masto(c.alice.token);
    const d = c.server.masto(c.dave.token);
    const pub = await a.v1.statuses.create({ status: 'boost me' });
    const priv = await a.v1.statuses.create({ status: 'followers only', visibility: 'private' });
    const reblog = await c.server.masto(c.bob.token).v1.statuses.$select(pub.id).reblog({ visibility: 'unlisted' });
    expect(reblog.reblog?.id).toBe(pub.id);
    expect(reblog.visibility).toBe('unlisted');
    expect(reblog.reblog?.reblogged).toBe(true);
    // The wrapper's own flag follows the reblogged status, as Mastodon's does.
    expect(reblog.reblogged).toBe(true);
    expect(reblog.content).toBe('');
    const again = await c.server.masto(c.bob.token).v1.statuses.$select(pub.id).reblog();
    expect(again.id).toBe(reblog.id);
    const refused = await api(c.bob.token, 'POST', `/api/v1/statuses/${priv.id}/reblog`);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatch(/private/);
    // dave cannot even see it.
    expect((await api(c.dave.token, 'POST', `/api/v1/statuses/${priv.id}/reblog`)).status).toBe(404);
    // The author may boost their own private status; it stays private.
    const own = await a.v1.statuses.$select(priv.id).reblog();
    expect(own.visibility).toBe('private');

    const counted = await d.v1.statuses.$select(pub.id).fetch();
    expect(counted.reblogsCount).toBe(1);
    expect(counted.reblogged).toBe(false);
    const rebloggedBy = await d.v1.statuses.$select(pub.id).rebloggedBy.list();
    expect(rebloggedBy.map((x) => x.id)).toEqual([c.bob.accountId]);
    const notes = await a.v1.notifications.list({ types: ['reblog'] });
    expect(notes.find((n) => n.status?.id === pub.id)?.account.id).toBe(c.bob.accountId);

    const undone = await c.server.masto(c.bob.token).v1.statuses.$select(pub.id).unreblog();
    expect(undone.id).toBe(pub.id);
    expect(undone.reblogged).toBe(false);
    expect(undone.reblogsCount).toBe(0);
    expect((await a.v1.notifications.list({ types: ['reblog'] })).some((n) => n.status?.id === pub.id)).toBe(false);
  });

  it('favourites and bookmarks with correct flags and listings, and hides blocked and muted accounts from favourited_by', async () => {
    const status = await c.server.masto(c.alice.token).v1.statuses.create({ status: 'like me' });
    for (const user of [c.bob, c.carol, c.dave])
      await c.server.masto(user.token).v1.statuses.$select(status.id).favourite();
    const faved = await c.server.masto(c.bob.token).v1.statuses.$select(status.id).favourite();
    expect(faved.favourited).toBe(true);
    expect(faved.favouritesCount).toBe(3);
    const byAnon = (await c.server.megalodon().getStatusFavouritedBy(status.id)).data.map((a) => a.id).sort();
    expect(byAnon).toEqual([c.bob.accountId, c.carol.accountId, c.dave.accountId].sort());
    // alice mutes carol and is blocked by dave: both drop out of her view of the list.
    await c.server.masto(c.alice.token).v1.accounts.$select(c.carol.accountId).mute();
    await c.server.masto(c.dave.token).v1.accounts.$select(c.alice.accountId).block();
    const byAlice = await c.server.masto(c.alice.token).v1.statuses.$select(status.id).favouritedBy.list();
    expect(byAlice.map((a) => a.id)).toEqual([c.bob.accountId]);
    await c.server.masto(c.alice.token).v1.accounts.$select(c.carol.accountId).unmute();
    await c.server.masto(c.dave.token).v1.accounts.$select(c.alice.accountId).unblock();

    const unfaved = await c.server.masto(c.bob.token).v1.statuses.$select(status.id).unfavourite();
    expect(unfaved.favourited).toBe(false);
    expect(unfaved.favouritesCount).toBe(2);

    const bookmarked = await c.server.masto(c.bob.token).v1.statuses.$select(status.id).bookmark();
    expect(bookmarked.bookmarked).toBe(true);
    expect((await c.server.masto(c.bob.token).v1.bookmarks.list()).map((s) => s.id)).toContain(status.id);
    await c.server.masto(c.bob.token).v1.statuses.$select(status.id).unbookmark();
    expect((await c.server.masto(c.bob.token).v1.bookmarks.list()).map((s) => s.id)).not.toContain(status.id);
    expect((await c.server.masto(c.carol.token).v1.favourites.list()).map((s) => s.id)).toContain(status.id);
  });

  it('pins own statuses (private ones too) and lists them', async () => {
    const masto = c.server.masto(c.alice.token);
    const priv = await masto.v1.statuses.create({ status: 'pinned but private', visibility: 'private' });
    const pinned = await masto.v1.statuses.$select(priv.id).pin();
    expect(pinned.pinned).toBe(true);
    const list = await masto.v1.accounts.$select(c.alice.accountId).statuses.list({ pinned: true });
    expect(list.map((s) => s.id)).toEqual([priv.id]);
    expect((await c.server.megalodon().getAccountStatuses(c.alice.accountId, { pinned: true })).data).toEqual([]);
    expect((await api(c.bob.token, 'POST', `/api/v1/statuses/${priv.id}/pin`)).status).toBe(422);
    const direct = await masto.v1.statuses.create({ status: 'secret @bob', visibility: 'direct' });
    expect((await api(c.alice.token, 'POST', `/api/v1/statuses/${direct.id}/pin`)).status).toBe(422);
    const unpinned = await masto.v1.statuses.$select(priv.id).unpin();
    expect(unpinned.pinned).toBe(false);
  });

  it('mutes a conversation: muted is set and its notifications stop', async () => {
    const root = await c.server.masto(c.alice.token).v1.statuses.create({ status: 'a thread' });
    const muted = await c.server.masto(c.alice.token).v1.statuses.$select(root.id).mute();
    expect(muted.muted).toBe(true);
    const reply = await c.server
      .masto(c.bob.token)
      .v1.statuses.create({ status: '@alice replying', inReplyToId: root.id });
    expect(reply.muted).toBe(false);
    await c.server.masto(c.bob.token).v1.statuses.$select(root.id).favourite();
    const notes = await c.server.masto(c.alice.token).v1.notifications.list({ limit: 80 });
    expect(notes.some((n) => n.status?.id === reply.id || n.status?.id === root.id)).toBe(false);
    const unmuted = await c.server.masto(c.alice.token).v1.statuses.$select(root.id).unmute();
    expect(unmuted.muted).toBe(false);
    await c.server.masto(c.carol.token).v1.statuses.$select(root.id).favourite();
    expect(
      (await c.server.masto(c.alice.token).v1.notifications.list({ types: ['favourite'] })).some(
        (n) => n.status?.id === root.id,
      ),
    ).toBe(true);
  });

  it('changes who may quote an own post after posting, as followers see it', async () => {
    const post = await c.server.masto(c.alice.token).v1.statuses.create({ status: 'quote me, maybe' });
    expect(post.quoteApproval).toMatchObject({ automatic: ['public'], currentUser: 'automatic' });
    const changed = await api(c.alice.token, 'PUT', `/api/v1/statuses/${post.id}/interaction_policy`, {
      quote_approval_policy: 'followers',
    });
    expect(changed.status).toBe(200);
    expect(changed.body.quote_approval).toMatchObject({ automatic: ['followers'], current_user: 'automatic' });
    expect((await api(c.bob.token, 'GET', `/api/v1/statuses/${post.id}`)).body.quote_approval.current_user).toBe(
      'automatic',
    );
    expect((await api(c.dave.token, 'GET', `/api/v1/statuses/${post.id}`)).body.quote_approval.current_user).toBe(
      'denied',
    );
    expect(
      (
        await api(c.bob.token, 'PUT', `/api/v1/statuses/${post.id}/interaction_policy`, {
          quote_approval_policy: 'public',
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await api(c.alice.token, 'PUT', `/api/v1/statuses/${post.id}/interaction_policy`, {
          quote_approval_policy: 'everyone',
        })
      ).status,
    ).toBe(422);
    // A timeline page written from cached pieces shows the new policy too.
    const own = (await api(c.alice.token, 'GET', '/api/v1/timelines/home')).body.find(
      (s: { id: string }) => s.id === post.id,
    );
    expect(own.quote_approval.automatic).toEqual(['followers']);
  });
});
