import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
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
    // A disabled user's tokens are refused until enabled again.
    expect((await call(target.token, 'GET', '/api/v1/accounts/verify_credentials')).status).toBe(403);
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

  it('refuses a suspended or disabled login’s tokens with 403 while in force, takes them back after, and closes its streams at once', async () => {
    const target = await server.createUser('paused');
    const streaming = (await server.masto(target.token).v2.instance.fetch()).configuration.urls.streaming;
    const act = (path: string, body?: unknown) =>
      call(moderator.token, 'POST', `/api/v1/admin/accounts/${target.accountId}/${path}`, body);
    const me = () => call(target.token, 'GET', '/api/v1/accounts/verify_credentials');

    /** A WebSocket and an event stream of the target, open; resolves with how each ended. */
    const openStreams = async () => {
      const socket = new WebSocket(`${streaming}/api/v1/streaming?stream=user`, [target.token]);
      const socketClosed = new Promise<{ code: number; reason: string }>((resolve) =>
        socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
      );
      await new Promise((resolve, reject) => {
        socket.on('open', resolve);
        socket.on('error', reject);
      });
      const events = await fetch(`${streaming.replace(/^ws/, 'http')}/api/v1/streaming/user`, {
        headers: { Authorization: `Bearer ${target.token}` },
      });
      expect(events.status).toBe(200);
      const eventsEnded = events.text().then(() => 'ended');
      return { socketClosed, eventsEnded };
    };

    for (const [action, undo] of [
      ['disable', 'enable'],
      ['suspend', 'unsuspend'],
    ] as const) {
      const streams = await openStreams();
      expect((await act('action', { type: action })).status).toBe(200);
      expect(await streams.socketClosed, action).toEqual({ code: 1008, reason: 'Your login is currently disabled' });
      expect(await streams.eventsEnded, action).toBe('ended');
      const refused = await me();
      expect(refused, action).toMatchObject({ status: 403, body: { error: 'Your login is currently disabled' } });
      const handshake = new WebSocket(`${streaming}/api/v1/streaming?stream=user`, [target.token]);
      const status = await new Promise<number>((resolve) =>
        handshake.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)),
      );
      expect(status, action).toBe(403);

      expect((await act(undo)).status).toBe(200);
      // The same token works again: no app has to sign in anew.
      expect((await me()).status, undo).toBe(200);
      expect((await server.masto(target.token).v1.accounts.verifyCredentials()).id).toBe(target.accountId);
    }
  });
});
