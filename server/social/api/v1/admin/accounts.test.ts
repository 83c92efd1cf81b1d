import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSocialTestServer, type SocialTestServer, type TestUser } from '../../../testing/harness.ts';

/* The admin API for accounts: listing with the v1 and v2 filters, approving sign-ups, and every action with its undo. */

let server: SocialTestServer;
let admin: TestUser;
let moderator: TestUser;
let user: TestUser;
let plain: TestUser;

const ADMIN_SCOPES = 'read write follow admin:read admin:write';

beforeAll(async () => {
  server = await startSocialTestServer();
  admin = await server.createUser('boss', { role: 'admin', scopes: ADMIN_SCOPES });
  moderator = await server.createUser('moddy', { role: 'moderator', scopes: ADMIN_SCOPES });
  user = await server.createUser('someone');
  plain = await server.createUser('plain', { scopes: ADMIN_SCOPES });
});

afterAll(async () => {
  await server?.close();
});

const call = (token: string | null, method: string, path: string, body?: unknown) =>
  server.call(token, method, path, body);

describe('admin accounts', () => {
  it('lists accounts with what staff see, filtered as v1 and v2 ask, and only to staff', async () => {
    const all = await call(moderator.token, 'GET', '/api/v1/admin/accounts?local=true');
    expect(all.status).toBe(200);
    const someone = all.body.find((a: { username: string }) => a.username === 'someone');
    expect(someone).toMatchObject({
      email: 'someone@example.org',
      confirmed: true,
      approved: true,
      disabled: false,
      silenced: false,
      suspended: false,
      sensitized: false,
      account: { id: user.accountId },
    });
    expect(
      (await call(admin.token, 'GET', '/api/v1/admin/accounts?staff=true')).body
        .map((a: { username: string }) => a.username)
        .sort(),
    ).toEqual(['boss', 'moddy']);
    expect(
      (await call(admin.token, 'GET', '/api/v2/admin/accounts?permissions=staff&username=bo')).body.map(
        (a: { username: string }) => a.username,
      ),
    ).toEqual(['boss']);
    expect(
      (await call(admin.token, 'GET', '/api/v2/admin/accounts?email=someone@')).body.map(
        (a: { username: string }) => a.username,
      ),
    ).toEqual(['someone']);
    expect((await call(plain.token, 'GET', '/api/v1/admin/accounts')).status).toBe(403);
    expect((await call(user.token, 'GET', '/api/v1/admin/accounts')).status).toBe(403);
    expect((await call(admin.token, 'GET', `/api/v1/admin/accounts/${user.accountId}`)).body.username).toBe('someone');
  });

  it('approves or rejects pending sign-ups', async () => {
    const pending = await server.createUser('waiting', { approved: false });
    const other = await server.createUser('waiting2', { approved: false });
    expect(
      (await call(admin.token, 'GET', '/api/v2/admin/accounts?status=pending')).body
        .map((a: { username: string }) => a.username)
        .sort(),
    ).toEqual(['waiting', 'waiting2']);
    const approved = await call(moderator.token, 'POST', `/api/v1/admin/accounts/${pending.accountId}/approve`);
    expect(approved.body.approved).toBe(true);
    expect((await call(moderator.token, 'POST', `/api/v1/admin/accounts/${pending.accountId}/approve`)).status).toBe(
      403,
    );
    expect((await call(moderator.token, 'POST', `/api/v1/admin/accounts/${other.accountId}/reject`)).status).toBe(200);
    expect((await call(admin.token, 'GET', '/api/v2/admin/accounts?status=pending')).body).toEqual([]);
  });

  it('takes a suspended account’s posts out of every timeline, and brings them back when unsuspended', async () => {
    const author = await server.createUser('soonsuspended');
    const reader = await server.createUser('reader');
    expect((await call(reader.token, 'POST', `/api/v1/accounts/${author.accountId}/follow`)).status).toBe(200);
    const posted = (await call(author.token, 'POST', '/api/v1/statuses', { status: 'Still here #suspensioncheck' }))
      .body as { id: string };
    const seen = async () => {
      const lists = await Promise.all(
        ['/api/v1/timelines/home', '/api/v1/timelines/public?local=true', '/api/v1/timelines/tag/suspensioncheck'].map(
          (path) => call(reader.token, 'GET', path),
        ),
      );
      return lists.map((r) => (r.body as { id: string }[]).some((s) => s.id === posted.id));
    };
    expect(await seen()).toEqual([true, true, true]);
    expect(
      (await call(moderator.token, 'POST', `/api/v1/admin/accounts/${author.accountId}/action`, { type: 'suspend' }))
        .status,
    ).toBe(200);
    expect(await seen()).toEqual([false, false, false]);
    expect((await call(moderator.token, 'POST', `/api/v1/admin/accounts/${author.accountId}/unsuspend`)).status).toBe(
      200,
    );
    expect(await seen()).toEqual([true, true, true]);
  });

  it('silences, marks sensitive, disables and suspends, each undone, and deletes only suspended accounts', async () => {
    const target = await server.createUser('target');
    const act = (type: string) =>
      call(moderator.token, 'POST', `/api/v1/admin/accounts/${target.accountId}/action`, { type });
    const state = async () => (await call(admin.token, 'GET', `/api/v1/admin/accounts/${target.accountId}`)).body;

    expect((await act('silence')).body).toEqual({});
    expect((await act('sensitive')).status).toBe(200);
    expect(await state()).toMatchObject({ silenced: true, sensitized: true });
    expect((await server.masto(target.token).v1.accounts.$select(target.accountId).fetch()).limited).toBe(true);
    await call(moderator.token, 'POST', `/api/v1/admin/accounts/${target.accountId}/unsilence`);
    await call(moderator.token, 'POST', `/api/v1/admin/accounts/${target.accountId}/unsensitive`);
    expect(await state()).toMatchObject({ silenced: false, sensitized: false });

    await act('disable');
    expect(await state()).toMatchObject({ disabled: true });
    // A disabled user's tokens stop working.
    expect((await call(target.token, 'GET', '/api/v1/accounts/verify_credentials')).status).toBe(401);
    await call(moderator.token, 'POST', `/api/v1/admin/accounts/${target.accountId}/enable`);
    expect(await state()).toMatchObject({ disabled: false });

    expect((await call(admin.token, 'DELETE', `/api/v1/admin/accounts/${target.accountId}`)).status).toBe(403);
    await act('suspend');
    expect(await state()).toMatchObject({ suspended: true });
    expect((await call(moderator.token, 'DELETE', `/api/v1/admin/accounts/${target.accountId}`)).status).toBe(403);
    expect(
      (await call(admin.token, 'POST', `/api/v1/admin/accounts/${target.accountId}/unsuspend`)).body.suspended,
    ).toBe(false);
    await act('suspend');
    expect((await call(admin.token, 'DELETE', `/api/v1/admin/accounts/${target.accountId}`)).status).toBe(200);
    expect((await call(admin.token, 'POST', `/api/v1/admin/accounts/${target.accountId}/unsuspend`)).status).toBe(403);

    expect((await act('banish')).status).toBe(422);
    // Staff cannot act on staff ranked as high as themselves.
    expect(
      (await call(moderator.token, 'POST', `/api/v1/admin/accounts/${admin.accountId}/action`, { type: 'silence' }))
        .status,
    ).toBe(403);
  });
});
