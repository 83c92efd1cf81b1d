import { describe, expect, it } from 'vitest';
import { useSocialTestServer } from '../../testing/use-server.ts';

/* Markers through masto.js: saved per timeline, versioned, read back by any device, and driving unread_count. */

const t = useSocialTestServer('alice', 'bob');

describe('markers', () => {
  it('keeps the reading position of home and notifications, with a version that grows', async () => {
    const client = t.server.masto(t.alice.token);
    expect(await client.v1.markers.fetch({ timeline: ['home', 'notifications'] })).toEqual({});
    const post = await t.server.masto(t.bob.token).v1.statuses.create({ status: 'read me' });
    const saved = await client.v1.markers.create({ home: { lastReadId: post.id } });
    expect(Object.keys(saved)).toEqual(['home']);
    expect(saved.home).toMatchObject({ lastReadId: post.id, version: 0 });
    const again = await client.v1.markers.create({ home: { lastReadId: post.id } });
    expect(again.home!.version).toBe(1);
    // Another device (another token of the same user) reads the same position.
    const other = t.server.masto(t.server.social.admin.createToken('alice', 'read').token);
    const fetched = await other.v1.markers.fetch({ timeline: ['home'] });
    expect(fetched.home).toMatchObject({ lastReadId: post.id, version: 1 });
    expect(fetched.notifications).toBeUndefined();
    // The markers of one user are theirs alone.
    expect(await t.server.masto(t.bob.token).v1.markers.fetch({ timeline: ['home'] })).toEqual({});
  });

  it('counts unread notifications after the notifications marker', async () => {
    const unread = async () =>
      (
        (await (
          await t.server.fetch(`${t.server.url}/api/v1/notifications/unread_count`, {
            headers: { Authorization: `Bearer ${t.alice.token}` },
          })
        ).json()) as { count: number }
      ).count;
    await t.server.masto(t.bob.token).v1.statuses.create({ status: '@alice one' });
    await t.server.masto(t.bob.token).v1.statuses.create({ status: '@alice two' });
    expect(await unread()).toBe(2);
    const [newest] = await t.server.masto(t.alice.token).v1.notifications.list({ limit: 1 });
    const older = (await t.server.masto(t.alice.token).v1.notifications.list())[1];
    await t.server.masto(t.alice.token).v1.markers.create({ notifications: { lastReadId: older.id } });
    expect(await unread()).toBe(1);
    await t.server.masto(t.alice.token).v1.markers.create({ notifications: { lastReadId: newest.id } });
    expect(await unread()).toBe(0);
  });

  it('answers 422 when no timeline is given and for a malformed id', async () => {
    const post = (body: unknown) =>
      t.server.fetch(`${t.server.url}/api/v1/markers`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${t.alice.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post({})).status).toBe(422);
    expect((await post({ home: { last_read_id: 'abc' } })).status).toBe(422);
  });
});
