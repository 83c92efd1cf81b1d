import { describe, expect, it } from 'vitest';
import { useTestHomeport } from './testing/homeport.ts';

/*
 * The desktop window signs in by itself. It used to get a full owner session while the event-log admin kept
 * EventStoreDB's public password `changeit` (which the TCP listener accepts), so desktop users never changed it.
 */
const server = useTestHomeport();

const api = (p: string, token: string, init: RequestInit = {}) =>
  fetch(`${server.hp.httpUrl}/api/homeport/v1${p}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, ...(init.body ? { 'content-type': 'application/json' } : {}) },
  });

describe("the desktop window's automatic sign-in", () => {
  it('may only change the default password while the admin still has it, then gets an owner session', async () => {
    const token = await server.hp.mintDesktopToken();
    const session = (await (await api('/session', token)).json()) as {
      user: { name: string; mustChangePassword?: boolean };
    };
    expect(session.user).toMatchObject({ name: 'admin', mustChangePassword: true });
    for (const p of ['/server', '/logs', '/eventlog/streams', '/backup'])
      expect((await api(p, token)).status, p).toBe(403);

    const changed = await api('/session/password', token, {
      method: 'PUT',
      body: JSON.stringify({ currentPassword: 'changeit', newPassword: 'a desktop secret' }),
    });
    expect(changed.status).toBe(200);
    // The UI signs in again with the new password (as after any change); the TCP listener no longer takes the old one.
    const again = await fetch(`${server.hp.httpUrl}/api/homeport/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'a desktop secret' }),
    });
    expect(again.status).toBe(200);
    expect(await server.hp.eventLog.users.authenticate('admin', 'changeit', 'test')).toBeNull();

    // From now on the window gets an owner session straight away.
    const next = await server.hp.mintDesktopToken();
    expect((await api('/server', next)).status).toBe(200);
    expect(((await (await api('/session', next)).json()) as { user: { via: string } }).user.via).toBe('app-token');
  });
});
