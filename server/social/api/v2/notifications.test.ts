import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSocialTestServer, type SocialTestServer, type TestUser } from '../../testing/harness.ts';

/*
 * Grouped notifications (Mastodon 4.3) through masto.js: favourites and reblogs of one status and follows
 * gather into groups with their counts and newest accounts, everything else stays ungrouped; paging by
 * Link, one group read whole, its accounts, dismissing it, and the unread count in groups.
 */

let server: SocialTestServer;
let owner: TestUser;
let fans: TestUser[];

beforeAll(async () => {
  server = await startSocialTestServer();
  owner = await server.createUser('owner');
  fans = await Promise.all(['fan1', 'fan2', 'fan3'].map((name) => server.createUser(name)));
});

afterAll(async () => {
  await server?.close();
});

describe('grouped notifications', () => {
  it('groups favourites, reblogs and follows; mentions stay one per group', async () => {
    const post = await server.masto(owner.token).v1.statuses.create({ status: 'group me' });
    for (const fan of fans) {
      await server.masto(fan.token).v1.statuses.$select(post.id).favourite();
      await server.masto(fan.token).v1.accounts.$select(owner.accountId).follow();
    }
    await server.masto(fans[0].token).v1.statuses.$select(post.id).reblog();
    const m1 = await server.masto(fans[1].token).v1.statuses.create({ status: '@owner hi', visibility: 'unlisted' });
    const m2 = await server.masto(fans[2].token).v1.statuses.create({ status: '@owner hello', visibility: 'unlisted' });

    const result = await server.masto(owner.token).v2.notifications.list();
    const groups = result.notificationGroups;
    expect(groups.map((g) => g.type)).toEqual(['mention', 'mention', 'reblog', 'follow', 'favourite']);
    const favourite = groups.find((g) => g.type === 'favourite')!;
    expect(favourite.notificationsCount).toBe(3);
    expect(favourite.sampleAccountIds).toEqual([fans[2].accountId, fans[1].accountId, fans[0].accountId]);
    expect(favourite.statusId).toBe(post.id);
    expect(favourite.groupKey).toMatch(new RegExp(`^favourite-${post.id}-\\d+$`));
    expect(groups.find((g) => g.type === 'follow')!.notificationsCount).toBe(3);
    expect(groups.filter((g) => g.type === 'mention').map((g) => g.groupKey.startsWith('ungrouped-'))).toEqual([
      true,
      true,
    ]);
    expect(result.statuses.map((s) => s.id).sort()).toEqual([post.id, m1.id, m2.id].sort());
    expect(result.accounts.map((a) => a.id).sort()).toEqual(fans.map((f) => f.accountId).sort());

    // Types not grouped in this request come one by one.
    const ungrouped = await server.masto(owner.token).v2.notifications.list({ groupedTypes: ['follow'] } as never);
    expect(ungrouped.notificationGroups.filter((g) => g.type === 'favourite')).toHaveLength(3);

    // One group whole, its accounts, and dismissing it.
    const single = await server.masto(owner.token).v2.notifications.$select(favourite.groupKey).fetch();
    expect(single.notificationGroups[0]).toMatchObject({ groupKey: favourite.groupKey, notificationsCount: 3 });
    const accounts = await server.masto(owner.token).v2.notifications.$select(favourite.groupKey).accounts.fetch();
    expect(accounts.map((a) => a.id).sort()).toEqual(fans.map((f) => f.accountId).sort());
    await server.masto(owner.token).v2.notifications.$select(favourite.groupKey).dismiss();
    expect(
      (await server.masto(owner.token).v2.notifications.list()).notificationGroups.map((g) => g.type),
    ).not.toContain('favourite');
  });

  it('pages by Link and counts unread groups after the marker', async () => {
    const first = await server.fetch(`${server.url}/api/v2/notifications?limit=2`, {
      headers: { Authorization: `Bearer ${owner.token}` },
    });
    const page = (await first.json()) as { notification_groups: { type: string; page_min_id: string }[] };
    expect(page.notification_groups.map((g) => g.type)).toEqual(['mention', 'mention']);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')![1];
    const second = (await (
      await server.fetch(next, { headers: { Authorization: `Bearer ${owner.token}` } })
    ).json()) as { notification_groups: { type: string }[] };
    expect(second.notification_groups.map((g) => g.type)).toEqual(['reblog', 'follow']);

    const unread = async () =>
      (
        (await (
          await server.fetch(`${server.url}/api/v2/notifications/unread_count`, {
            headers: { Authorization: `Bearer ${owner.token}` },
          })
        ).json()) as { count: number }
      ).count;
    expect(await unread()).toBe(4);
    await server
      .masto(owner.token)
      .v1.markers.create({ notifications: { lastReadId: page.notification_groups[1].page_min_id } });
    expect(await unread()).toBe(1);
  });

  it('tells clients through api_versions that grouped notifications exist', async () => {
    expect((await server.masto().v2.instance.fetch()).apiVersions.mastodon).toBeGreaterThanOrEqual(2);
  });
});
