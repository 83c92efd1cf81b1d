import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSocialTestServer, type SocialTestServer, type TestUser } from '../../testing/harness.ts';

/*
 * Notification policies and requests (Mastodon 4.3): notifications from strangers the policy filters wait
 * in one request per sender until accepted (shown, and the sender let through from then on) or dismissed.
 */

let server: SocialTestServer;
let reader: TestUser;
let stranger: TestUser;
let other: TestUser;
let friend: TestUser;

beforeAll(async () => {
  server = await startSocialTestServer();
  [reader, stranger, other, friend] = await Promise.all(
    ['reader', 'stranger', 'other', 'friend'].map((u) => server.createUser(u)),
  );
  await server.masto(reader.token).v1.accounts.$select(friend.accountId).follow();
});

afterAll(async () => {
  await server?.close();
});

const call = (token: string | null, method: string, path: string, body?: unknown) =>
  server.call(token, method, path, body);

const notificationIds = async (query = '') =>
  (
    (await call(reader.token, 'GET', `/api/v1/notifications${query}`)).body as { id: string; account: { id: string } }[]
  ).map((n) => n.account.id);

describe('notification policy and requests', () => {
  it('holds private mentions from strangers in a request by default, and accepting lets the sender through', async () => {
    const policy = await call(reader.token, 'GET', '/api/v2/notifications/policy');
    expect(policy.body).toEqual({
      for_not_following: 'accept',
      for_not_followers: 'accept',
      for_new_accounts: 'accept',
      for_private_mentions: 'filter',
      for_limited_accounts: 'filter',
      summary: { pending_requests_count: 0, pending_notifications_count: 0 },
    });

    const dm = await server.masto(stranger.token).v1.statuses.create({ status: '@reader psst', visibility: 'direct' });
    await server
      .masto(friend.token)
      .v1.statuses.create({ status: '@reader hello from a friend', visibility: 'direct' });
    expect(await notificationIds()).toEqual([friend.accountId]);

    const requests = await call(reader.token, 'GET', '/api/v1/notifications/requests');
    expect(requests.body).toHaveLength(1);
    expect(requests.body[0]).toMatchObject({
      account: { id: stranger.accountId },
      notifications_count: '1',
      last_status: { id: dm.id },
    });
    expect((await call(reader.token, 'GET', '/api/v2/notifications/policy')).body.summary).toEqual({
      pending_requests_count: 1,
      pending_notifications_count: 1,
    });
    // The request's notifications, as clients show them before deciding.
    expect(await notificationIds(`?account_id=${stranger.accountId}&include_filtered=true`)).toEqual([
      stranger.accountId,
    ]);
    const grouped = await call(reader.token, 'GET', '/api/v2/notifications');
    expect(
      grouped.body.notification_groups.map((g: { sample_account_ids: string[] }) => g.sample_account_ids[0]),
    ).toEqual([friend.accountId]);

    const id = requests.body[0].id as string;
    expect((await call(reader.token, 'GET', `/api/v1/notifications/requests/${id}`)).body.id).toBe(id);
    expect((await call(reader.token, 'POST', `/api/v1/notifications/requests/${id}/accept`)).status).toBe(200);
    expect(await notificationIds()).toEqual([friend.accountId, stranger.accountId]);
    expect((await call(reader.token, 'GET', `/api/v1/notifications/requests/${id}`)).status).toBe(404);
    expect((await call(reader.token, 'GET', '/api/v1/notifications/requests/merged')).body).toEqual({ merged: true });

    await server.masto(stranger.token).v1.statuses.create({ status: '@reader again', visibility: 'direct' });
    expect((await notificationIds())[0]).toBe(stranger.accountId);
    expect((await call(reader.token, 'GET', '/api/v1/notifications/requests')).body).toEqual([]);
  });

  it('filters or drops by the policy the user sets, and dismissing a request drops what it held', async () => {
    const patched = await call(reader.token, 'PATCH', '/api/v2/notifications/policy', { for_not_following: 'filter' });
    expect(patched.body).toMatchObject({ for_not_following: 'filter', for_private_mentions: 'filter' });
    expect(
      (await call(reader.token, 'PATCH', '/api/v2/notifications/policy', { for_not_followers: 'sometimes' })).status,
    ).toBe(422);

    const before = await notificationIds();
    await server.masto(other.token).v1.statuses.create({ status: '@reader public hello' });
    await server.masto(other.token).v1.accounts.$select(reader.accountId).follow();
    await server.masto(friend.token).v1.statuses.create({ status: '@reader a followed account passes' });
    expect(await notificationIds()).toEqual([friend.accountId, ...before]);

    const [request] = (await call(reader.token, 'GET', '/api/v1/notifications/requests')).body;
    expect(request).toMatchObject({ account: { id: other.accountId }, notifications_count: '2' });
    expect(
      (await call(reader.token, 'POST', '/api/v1/notifications/requests/dismiss', { id: [request.id] })).status,
    ).toBe(200);
    expect(await notificationIds(`?account_id=${other.accountId}&include_filtered=true`)).toEqual([]);

    await call(reader.token, 'PATCH', '/api/v2/notifications/policy', { for_not_following: 'drop' });
    await server.masto(other.token).v1.statuses.create({ status: '@reader dropped' });
    expect(await notificationIds(`?account_id=${other.accountId}&include_filtered=true`)).toEqual([]);
    expect((await call(reader.token, 'GET', '/api/v1/notifications/requests')).body).toEqual([]);
  });

  it('shows and sets the policy through the v1 booleans too', async () => {
    const v1 = await call(friend.token, 'GET', '/api/v1/notifications/policy');
    expect(v1.body).toEqual({
      filter_not_following: false,
      filter_not_followers: false,
      filter_new_accounts: false,
      filter_private_mentions: true,
      summary: { pending_requests_count: 0, pending_notifications_count: 0 },
    });
    const put = await call(friend.token, 'PUT', '/api/v1/notifications/policy', {
      filter_new_accounts: true,
      filter_private_mentions: false,
    });
    expect(put.body).toMatchObject({ filter_new_accounts: true, filter_private_mentions: false });
    expect((await call(friend.token, 'GET', '/api/v2/notifications/policy')).body).toMatchObject({
      for_new_accounts: 'filter',
      for_private_mentions: 'accept',
    });
  });

  it('needs the notification scopes', async () => {
    const readOnly = (await server.createUser('scoped', { scopes: 'read' })).token;
    expect((await call(readOnly, 'GET', '/api/v2/notifications/policy')).status).toBe(200);
    expect((await call(readOnly, 'PATCH', '/api/v2/notifications/policy', { for_new_accounts: 'drop' })).status).toBe(
      403,
    );
    expect((await call(readOnly, 'POST', '/api/v1/notifications/requests/accept', { id: ['1'] })).status).toBe(403);
  });

  it('accepts and dismisses without ids as a no-op answered {}, as Mastodon does', async () => {
    await server.masto(stranger.token).v1.statuses.create({ status: '@friend who are you?', visibility: 'direct' });
    const pending = (await call(friend.token, 'GET', '/api/v1/notifications/requests')).body;
    expect(pending).toHaveLength(1);
    for (const action of ['accept', 'dismiss']) {
      const answer = await call(friend.token, 'POST', `/api/v1/notifications/requests/${action}`);
      expect(answer, action).toMatchObject({ status: 200, body: {} });
      expect((await call(friend.token, 'POST', `/api/v1/notifications/requests/${action}`, {})).status).toBe(200);
    }
    expect((await call(friend.token, 'GET', '/api/v1/notifications/requests')).body).toEqual(pending);
  });
});
