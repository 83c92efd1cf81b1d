import { describe, expect, it } from 'vitest';
import { useTestHomeport } from '../testing/homeport.ts';
import { UiSessions } from './auth.ts';

const server = useTestHomeport();

const api = (p: string, token?: string, init: RequestInit = {}) =>
  fetch(`${server.hp.httpUrl}/api/homeport/v1${p}`, {
    ...init,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(init.body ? { 'content-type': 'application/json' } : {}),
    },
  });
async function signIn(username: string, password: string): Promise<string> {
  const res = await api('/session', undefined, { method: 'POST', body: JSON.stringify({ username, password }) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { token: string }).token;
}

describe('UI sessions end with their credentials', () => {
  it('ends the session of an administrator who is removed, and never upgrades it to the built-in admin', async () => {
    await server.hp.eventLog.users.add({ name: 'eve', password: 'eve-password', groups: ['$admins'] });
    const eve = await signIn('eve', 'eve-password');
    expect((await api('/eventlog/streams', eve)).status).toBe(200);
    await server.hp.eventLog.users.remove('eve');
    for (const p of ['/eventlog/streams', '/server', '/session', '/eventlog/users'])
      expect((await api(p, eve)).status).toBe(401);
  });

  it('ends every session of a user whose password changes, and the old password stops working', async () => {
    await server.hp.eventLog.users.add({ name: 'frank', password: 'first-password', groups: ['$admins'] });
    const frank = await signIn('frank', 'first-password');
    await server.hp.eventLog.users.changePassword('frank', 'second-password');
    expect((await api('/eventlog/streams', frank)).status).toBe(401);
    expect(
      (
        await api('/session', undefined, {
          method: 'POST',
          body: JSON.stringify({ username: 'frank', password: 'first-password' }),
        })
      ).status,
    ).toBe(401);
    expect((await api('/eventlog/streams', await signIn('frank', 'second-password'))).status).toBe(200);
  });

  it('ends the session of an administrator taken out of $admins', async () => {
    await server.hp.eventLog.users.add({ name: 'gina', password: 'gina-password', groups: ['$admins'] });
    const gina = await signIn('gina', 'gina-password');
    await server.hp.eventLog.users.remove('gina');
    await server.hp.eventLog.users.add({ name: 'gina', password: 'gina-password', groups: ['devs'] });
    expect((await api('/eventlog/streams', gina)).status).toBe(401);
  });

  it('throttles sign-in per address after 10 failures with 429 and Retry-After', async () => {
    for (let i = 0; i < 10; i++)
      expect(
        (
          await api('/session', undefined, {
            method: 'POST',
            body: JSON.stringify({ username: 'admin', password: `guess-${i}` }),
          })
        ).status,
      ).toBe(401);
    const refused = await api('/session', undefined, {
      method: 'POST',
      body: JSON.stringify({ username: 'admin', password: 'changeit' }),
    });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('UiSessions', () => {
  it('expires sessions on its clock and evicts expired ones', () => {
    let now = 0;
    const sessions = new UiSessions({ now: () => now });
    const a = sessions.mint({ name: 'owner', via: 'app-token' }, 1000);
    expect(sessions.verify(a)).toEqual({ name: 'owner', via: 'app-token' });
    now = 999;
    expect(sessions.verify(a)).not.toBeNull();
    now = 1000;
    expect(sessions.verify(a)).toBeNull();
    for (let i = 0; i < 5; i++) sessions.mint({ name: 'owner', via: 'app-token' }, 10);
    now = 2000;
    sessions.mint({ name: 'owner', via: 'app-token' }, 10);
    expect(sessions.size).toBe(1);
  });

  it('refuses to mint for a principal whose credentials are not valid', () => {
    const sessions = new UiSessions({ credentialStamp: () => null });
    expect(() => sessions.mint({ name: 'ghost', via: 'eventlog-admin' })).toThrow(/may not sign in/);
  });
});
